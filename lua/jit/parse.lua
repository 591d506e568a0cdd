-- parse.lua: a recursive-descent parser for Lua 5.4 (lparser.c's grammar and operator
-- priorities), from lex.lua's tokens to a tree of tables. It reads all of Lua, so that
-- check.lua can name what a kernel may not use; gpu.jit parses one function's text.
--   expressions: Nil True False Number{value} String{text} Vararg Table Paren{expr}
--     Function{params, vararg, body, line, lastline} Binop{op, left, right} Unop{op, expr}
--     Name{name} Index{obj, key, dot} Call{fn, args} Method{obj, name, args}
--   statements: Local{names, attribs, exprs} Assign{targets, exprs} CallStat{call} Do{body}
--     While{cond, body} Repeat{body, cond} If{conds, blocks, orelse} Fornum{var, start,
--     limit, step, body} Forin{names, exprs, body} FunctionStat{target, func}
--     LocalFunction{name, func} Return{exprs} Break Goto{label} Label{name}
--   a block is a list of statements with .line (where it starts) and .lastline.
-- Every node has .line. Errors are raised as {line =, msg =}.
local M = {}

local binary = {
  ["+"] = {10, 10}, ["-"] = {10, 10}, ["*"] = {11, 11}, ["%"] = {11, 11}, ["^"] = {14, 13},
  ["/"] = {11, 11}, ["//"] = {11, 11}, ["&"] = {6, 6}, ["|"] = {4, 4}, ["~"] = {5, 5},
  ["<<"] = {7, 7}, [">>"] = {7, 7}, [".."] = {9, 8}, ["=="] = {3, 3}, ["<"] = {3, 3},
  ["<="] = {3, 3}, ["~="] = {3, 3}, [">"] = {3, 3}, [">="] = {3, 3}, ["and"] = {2, 2},
  ["or"] = {1, 1},
}
local unary = {["not"] = true, ["-"] = true, ["#"] = true, ["~"] = true}
local UNARY_PRIORITY = 12
local block_end = {["else"] = true, ["elseif"] = true, ["end"] = true, ["until"] = true,
                   eof = true}

-- A parser over tokens t (lex.lua), at token index i.
local function parser(t, i)
  local kind, value, lines = t.kind, t.value, t.line
  local P = {}

  local function near()
    local k = kind[i]
    if k == "name" or k == "number" then return "'" .. tostring(value[i]) .. "'" end
    if k == "string" then return value[i] end
    if k == "eof" then return "<eof>" end
    return "'" .. k .. "'"
  end
  local function fail(msg) error({line = lines[i], msg = msg .. " near " .. near()}, 0) end
  local function test(k) if kind[i] == k then i = i + 1; return true end return false end
  local function expect(k, what)
    if kind[i] ~= k then fail("'" .. k .. "' expected" .. (what or "")) end
    i = i + 1
  end
  local function match_end(k, opener, line)
    if kind[i] ~= k then
      if line == lines[i] then fail("'" .. k .. "' expected")
      else fail(("'%s' expected (to close '%s' at line %d)"):format(k, opener, line)) end
    end
    i = i + 1
  end
  local function name()
    if kind[i] ~= "name" then fail("<name> expected") end
    i = i + 1
    return value[i - 1]
  end

  local expr, block

  local function exprlist()
    local list = {expr()}
    while test(",") do list[#list + 1] = expr() end
    return list
  end

  -- funcbody: '(' params ')' block 'end'; line is where 'function' was
  local function funcbody(line, is_method)
    local f = {tag = "Function", line = line, params = {}, vararg = false}
    if is_method then f.params[1] = "self" end
    expect("(")
    if kind[i] ~= ")" then
      repeat
        if test("...") then f.vararg = true; break end
        f.params[#f.params + 1] = name()
      until not test(",")
    end
    expect(")")
    f.body = block()
    f.lastline = lines[i]
    match_end("end", "function", line)
    return f
  end

  local function args(line)
    local k = kind[i]
    if k == "string" then
      i = i + 1
      return {{tag = "String", text = value[i - 1], line = line}}
    elseif k == "{" then
      return {P.table()}
    end
    expect("(", " (function arguments)")
    if test(")") then return {} end
    local list = exprlist()
    match_end(")", "(", line)
    return list
  end

  function P.table()
    local line = lines[i]
    expect("{")
    local items = {}
    while kind[i] ~= "}" do
      if kind[i] == "[" then
        i = i + 1
        local k = expr()
        expect("]")
        expect("=")
        items[#items + 1] = {key = k, value = expr()}
      elseif kind[i] == "name" and kind[i + 1] == "=" then
        local k = name()
        i = i + 1
        items[#items + 1] = {name = k, value = expr()}
      else
        items[#items + 1] = {value = expr()}
      end
      if not test(",") and not test(";") then break end
    end
    match_end("}", "{", line)
    return {tag = "Table", items = items, line = line}
  end

  local function primary()
    local line = lines[i]
    if kind[i] == "name" then return {tag = "Name", name = name(), line = line} end
    if test("(") then
      local e = expr()
      match_end(")", "(", line)
      return {tag = "Paren", expr = e, line = line}
    end
    fail("unexpected symbol")
  end

  local function suffixed()
    local e = primary()
    while true do
      local k, line = kind[i], lines[i]
      if k == "." then
        i = i + 1
        e = {tag = "Index", obj = e, key = {tag = "String", name = name(), line = line},
             dot = true, line = line}
      elseif k == "[" then
        i = i + 1
        e = {tag = "Index", obj = e, key = expr(), line = line}
        -- numba's a[i, j] (in gpuhost's files, where the host reads it as a[{i, j}]): a[i][j]
        while test(",") do e = {tag = "Index", obj = e, key = expr(), line = line} end
        expect("]")
      elseif k == ":" then
        i = i + 1
        local n = name()
        e = {tag = "Method", obj = e, name = n, args = args(line), line = line}
      elseif k == "(" or k == "string" or k == "{" then
        e = {tag = "Call", fn = e, args = args(line), line = line}
      else
        return e
      end
    end
  end

  local function simple()
    local k, line = kind[i], lines[i]
    if k == "number" then i = i + 1; return {tag = "Number", value = value[i - 1], line = line} end
    if k == "string" then i = i + 1; return {tag = "String", text = value[i - 1], line = line} end
    if k == "nil" then i = i + 1; return {tag = "Nil", line = line} end
    if k == "true" then i = i + 1; return {tag = "True", line = line} end
    if k == "false" then i = i + 1; return {tag = "False", line = line} end
    if k == "..." then i = i + 1; return {tag = "Vararg", line = line} end
    if k == "{" then return P.table() end
    if k == "function" then i = i + 1; return funcbody(line) end
    return suffixed()
  end

  local function subexpr(limit)
    local e
    local k, line = kind[i], lines[i]
    if unary[k] then
      i = i + 1
      e = {tag = "Unop", op = k, expr = subexpr(UNARY_PRIORITY), line = line}
    else
      e = simple()
    end
    while true do
      local op = kind[i]
      local pr = binary[op]
      if not pr or pr[1] <= limit then break end
      local oline = lines[i]
      i = i + 1
      e = {tag = "Binop", op = op, left = e, right = subexpr(pr[2]), line = oline}
    end
    return e
  end
  expr = function() return subexpr(0) end

  local statement

  block = function()
    local b = {line = lines[i]}
    while not block_end[kind[i]] do
      if kind[i] == "return" then
        local line = lines[i]
        i = i + 1
        local exprs = {}
        if not block_end[kind[i]] and kind[i] ~= ";" then exprs = exprlist() end
        test(";")
        b[#b + 1] = {tag = "Return", exprs = exprs, line = line}
        break
      end
      local s = statement()
      if s then b[#b + 1] = s end
    end
    b.lastline = lines[i]
    return b
  end

  local function fornum(var, line)
    local start = expr()
    expect(",")
    local limit = expr()
    local step = test(",") and expr() or nil
    expect("do")
    local body = block()
    match_end("end", "for", line)
    return {tag = "Fornum", var = var, start = start, limit = limit, step = step,
            body = body, line = line}
  end

  local function forin(first, line)
    local names = {first}
    while test(",") do names[#names + 1] = name() end
    expect("in")
    local exprs = exprlist()
    expect("do")
    local body = block()
    match_end("end", "for", line)
    return {tag = "Forin", names = names, exprs = exprs, body = body, line = line}
  end

  local function localstat(line)
    local names, attribs = {}, {}
    repeat
      names[#names + 1] = name()
      if test("<") then
        attribs[#names] = name()
        expect(">")
      end
    until not test(",")
    local exprs = test("=") and exprlist() or {}
    return {tag = "Local", names = names, attribs = attribs, exprs = exprs, line = line}
  end

  statement = function()
    local k, line = kind[i], lines[i]
    if k == ";" then i = i + 1; return nil end
    if k == "if" then
      i = i + 1
      local s = {tag = "If", conds = {}, blocks = {}, line = line}
      s.conds[1] = expr()
      expect("then")
      s.blocks[1] = block()
      while kind[i] == "elseif" do
        i = i + 1
        s.conds[#s.conds + 1] = expr()
        expect("then")
        s.blocks[#s.blocks + 1] = block()
      end
      if test("else") then s.orelse = block() end
      match_end("end", "if", line)
      return s
    elseif k == "while" then
      i = i + 1
      local cond = expr()
      expect("do")
      local body = block()
      match_end("end", "while", line)
      return {tag = "While", cond = cond, body = body, line = line}
    elseif k == "do" then
      i = i + 1
      local body = block()
      match_end("end", "do", line)
      return {tag = "Do", body = body, line = line}
    elseif k == "for" then
      i = i + 1
      local var = name()
      if test("=") then return fornum(var, line) end
      return forin(var, line)
    elseif k == "repeat" then
      i = i + 1
      local body = block()
      match_end("until", "repeat", line)
      return {tag = "Repeat", body = body, cond = expr(), line = line}
    elseif k == "function" then
      i = i + 1
      local target = {tag = "Name", name = name(), line = line}
      local is_method = false
      while kind[i] == "." or kind[i] == ":" do
        is_method = kind[i] == ":"
        i = i + 1
        target = {tag = "Index", obj = target, key = {tag = "String", name = name(), line = line},
                  dot = true, line = line}
        if is_method then break end
      end
      return {tag = "FunctionStat", target = target, func = funcbody(line, is_method), line = line}
    elseif k == "local" then
      i = i + 1
      if test("function") then
        local n = name()
        return {tag = "LocalFunction", name = n, func = funcbody(line), line = line}
      end
      return localstat(line)
    elseif k == "::" then
      i = i + 1
      local n = name()
      expect("::")
      return {tag = "Label", name = n, line = line}
    elseif k == "break" then
      i = i + 1
      return {tag = "Break", line = line}
    elseif k == "goto" then
      i = i + 1
      return {tag = "Goto", label = name(), line = line}
    end
    local e = suffixed()
    if kind[i] == "=" or kind[i] == "," then
      local targets = {e}
      while test(",") do targets[#targets + 1] = suffixed() end
      expect("=")
      for _, tgt in ipairs(targets) do
        if tgt.tag ~= "Name" and tgt.tag ~= "Index" then
          error({line = tgt.line, msg = "syntax error: cannot assign to this expression"}, 0)
        end
      end
      return {tag = "Assign", targets = targets, exprs = exprlist(), line = line}
    end
    if e.tag ~= "Call" and e.tag ~= "Method" then fail("syntax error") end
    return {tag = "CallStat", call = e, line = line}
  end

  P.funcbody = funcbody
  P.name = name
  function P.pos() return i end
  function P.kind(at) return kind[at or i] end
  function P.value(at) return value[at or i] end
  function P.line(at) return lines[at or i] end
  function P.skip() i = i + 1 end
  return P
end

-- function_at(tokens, i): parses `function [name] funcbody` at token i (the 'function'
-- keyword); returns true and the Function node (with .name when the statement names it,
-- and .last, the index of its `end`), or false and the error when it does not parse.
function M.function_at(t, i)
  local P = parser(t, i + 1)
  return pcall(function()
    local line = P.line(i)
    local fname, is_method
    if P.kind() == "name" then
      fname = P.name()
      while P.kind() == "." or P.kind() == ":" do
        is_method = P.kind() == ":"
        P.skip()
        fname = P.name()
        if is_method then break end
      end
    end
    local f = P.funcbody(line, is_method)
    f.name, f.method, f.last = fname, is_method, P.pos() - 1
    return f
  end)
end

return M

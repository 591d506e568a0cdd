-- scan.lua: what gpu.jit reads from a function's text before any types: the names it uses
-- from outside (its upvalues and globals, in the order met), and the constructs a kernel
-- may not use, refused with their line. gpu.jit scans a function where it is defined; the
-- names are part of the key of its compiled signatures (jit.lua).
local M = {}

local function fail(file, line, fmt, ...)
  error({file = file, line = line, msg = fmt:format(...)}, 0)
end
M.fail = fail

-- what a kernel may not use: the construct, and what to do instead
local refused = {
  Table = {"a table constructor ({...})", "use a device array, gpu.shared.array or gpu.local_array"},
  Function = {"a function defined inside a gpu.jit function", "define it outside with gpu.jit and call it"},
  Vararg = {"'...'", "name the parameters"},
  Method = {"a method call (a:f())"},
  Nil = {"nil", "kernel values are numbers, booleans and arrays"},
  Forin = {"a generic for (for ... in)", "use a numeric for"},
}
refused.FunctionStat, refused.LocalFunction = refused.Function, refused.Function
M.refused = refused

function M.refuse(file, node, what, hint)
  local r = refused[node.tag] or {}
  what, hint = what or r[1], hint or r[2]
  fail(file, node.line, "%s is not supported in a gpu.jit function%s", what, hint and (": " .. hint) or "")
end
local refuse = M.refuse

-- Is call e gpu.shared.array(...) or gpu.local_array(...), whose first argument may be a
-- shape {16, 16}? (By its spelling: infer.lua checks what the names mean.)
local function takes_shape(e)
  local f = e.fn
  if f.tag ~= "Index" or not f.dot then return false end
  if f.key.name == "local_array" then return true end
  return f.key.name == "array" and f.obj.tag == "Index" and f.obj.dot and f.obj.key.name == "shared"
end

-- scan(fn, file) -> the free names of Function node fn, in order; raises on a refused
-- construct.
function M.scan(fn, file)
  local scopes, free, seen = {{}}, {}, {}
  local function bound(name)
    for i = #scopes, 1, -1 do if scopes[i][name] then return true end end
    return false
  end
  local function use(name)
    if not bound(name) and not seen[name] then seen[name] = true; free[#free + 1] = name end
  end
  local expr, block
  local function exprs(list) for _, e in ipairs(list) do expr(e) end end

  expr = function(e)
    local tag = e.tag
    if tag == "Name" then use(e.name)
    elseif tag == "Index" then expr(e.obj); if not e.dot then expr(e.key) end
    elseif tag == "Call" then
      expr(e.fn)
      for i, a in ipairs(e.args) do
        if a.tag == "Table" and i == 1 and takes_shape(e) then
          for _, item in ipairs(a.items) do
            if item.key or item.name then refuse(file, a) end
            expr(item.value)
          end
        else
          expr(a)
        end
      end
    elseif tag == "Binop" then
      if e.op == ".." then refuse(file, e, "string concatenation (..)") end
      expr(e.left); expr(e.right)
    elseif tag == "Unop" or tag == "Paren" then expr(e.expr)
    elseif refused[tag] then refuse(file, e)
    end
  end

  local function stat(s)
    local tag = s.tag
    if tag == "Local" then
      exprs(s.exprs)
      for i, n in ipairs(s.names) do
        local attrib = s.attribs[i]
        if attrib and attrib ~= "const" then
          refuse(file, s, ("local '%s <%s>'"):format(n, attrib), "only <const> is")
        end
        scopes[#scopes][n] = true
      end
    elseif tag == "Assign" then
      exprs(s.exprs)
      for _, t in ipairs(s.targets) do
        if t.tag == "Name" and not bound(t.name) then
          fail(file, t.line, "assigning to '%s', which is not a local of the gpu.jit function "
               .. "(kernels cannot change upvalues or globals)", t.name)
        end
        expr(t)
      end
    elseif tag == "CallStat" then expr(s.call)
    elseif tag == "Do" then block(s.body)
    elseif tag == "While" then expr(s.cond); block(s.body)
    elseif tag == "Repeat" then block(s.body, s.cond)
    elseif tag == "If" then
      for i, c in ipairs(s.conds) do expr(c); block(s.blocks[i]) end
      if s.orelse then block(s.orelse) end
    elseif tag == "Fornum" then
      expr(s.start); expr(s.limit)
      if s.step then expr(s.step) end
      block(s.body, nil, s.var)
    elseif tag == "Return" then exprs(s.exprs)
    elseif tag ~= "Goto" and tag ~= "Label" and tag ~= "Break" then refuse(file, s)
    end
  end

  -- a block; `until` sees its locals; a for's variable is its first local
  block = function(b, until_, var)
    scopes[#scopes + 1] = {}
    if var then scopes[#scopes][var] = true end
    for _, s in ipairs(b) do stat(s) end
    if until_ then expr(until_) end
    scopes[#scopes] = nil
  end

  if fn.vararg then refuse(file, fn, "'...' in the parameter list", "name the parameters") end
  if fn.method then fail(file, fn.line, "a method (function a:%s) cannot be a gpu.jit function", fn.name) end
  for _, p in ipairs(fn.params) do scopes[1][p] = true end
  block(fn.body)
  return free
end

return M

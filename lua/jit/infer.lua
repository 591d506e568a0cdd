-- infer.lua: what the names of a gpu.jit function mean and the type of every expression.
-- resolve() walks the function once: scopes, locals, labels, and the free names (upvalues
-- and globals), which the caller's ctx.free() turns into constants, arrays, gpu.jit
-- functions or the gpu and math namespaces; it refuses what a kernel cannot do (tables,
-- closures, strings, method calls, generic for ...), naming the construct and its line.
-- infer() then types the function: a local has the type of what is assigned to it,
-- widened by every later assignment (types.unify), repeated until nothing changes.
-- Annotations go on the tree: e.ty, e.const, e.var, e.free, e.intr, e.chain, e.callee.
local types, intrinsics, scan = ...
local M = {}

local function fail(ctx, line, fmt, ...)
  error({file = ctx.file, line = line, msg = fmt:format(...)}, 0)
end
M.fail = fail

local refused = scan.refused
local function refuse(ctx, node, what, hint) scan.refuse(ctx.file, node, what, hint) end
M.refuse = refuse

------------------------------------------------------------------------------------
-- resolve: scopes, names, labels

-- A device function that returns a value must return one on every way out: Lua would
-- return nil where it returns bare or reaches its end, which no C type holds; each is an
-- error (the end's at the function's last line). Control is followed through the
-- statements: a return, goto or break ends a way, a label some goto names starts one
-- again, an if goes on where any branch does, a loop goes on unless it is `while true`
-- or `repeat ... until false` without a break of its own.
local function loop_breaks(b)   -- a break of this loop's (none of the loops inside it)
  for _, s in ipairs(b) do
    if s.tag == "Break" then return true end
    if s.tag == "If" then
      for _, sub in ipairs(s.blocks) do if loop_breaks(sub) then return true end end
      if s.orelse and loop_breaks(s.orelse) then return true end
    elseif s.tag == "Do" and loop_breaks(s.body) then
      return true
    end
  end
  return false
end
local LOOPS = {While = true, Repeat = true, Fornum = true, Forin = true}
local function goto_targets(b, names)
  for _, s in ipairs(b) do
    if s.tag == "Goto" then names[s.label] = true end
    for _, sub in ipairs(s.blocks or {}) do goto_targets(sub, names) end
    if s.orelse then goto_targets(s.orelse, names) end
    if s.body then goto_targets(s.body, names) end
  end
  return names
end
-- whether the end of b is reached, given whether its start is (live)
local function flows(ctx, b, live, targets)
  for _, s in ipairs(b) do
    local tag = s.tag
    if tag == "Label" then
      live = live or targets[s.name] == true
    elseif tag == "Return" then
      if not s.exprs[1] then
        fail(ctx, s.line, "this function returns nothing here and a value elsewhere (Lua's nil, "
             .. "which a device function cannot return)")
      end
      live = false
    elseif tag == "Goto" or tag == "Break" then
      live = false
    elseif tag == "If" then
      local any = s.orelse == nil and live
      for _, sub in ipairs(s.blocks) do any = flows(ctx, sub, live, targets) or any end
      if s.orelse then any = flows(ctx, s.orelse, live, targets) or any end
      live = any
    elseif tag == "Do" then
      live = flows(ctx, s.body, live, targets)
    elseif LOOPS[tag] then
      flows(ctx, s.body, live, targets)   -- (for its bare returns)
      local cond = s.cond
      while cond and cond.tag == "Paren" do cond = cond.expr end
      local forever = (tag == "While" and cond.tag == "True") or (tag == "Repeat" and cond.tag == "False")
      if forever and not loop_breaks(s.body) then live = false end
    end
  end
  return live
end
local function ends_with_value(ctx)
  local body = ctx.fn.body
  if flows(ctx, body, true, goto_targets(body, {})) then
    fail(ctx, body.lastline or ctx.fn.lastline, "this function can reach its end without returning "
         .. "a value (Lua's nil, which a device function cannot return): end it with a return")
  end
end

-- Lua raises where a local is read while nil; the C would read 0. So a local declared
-- without a value must be given one on every way to each read of it, or the read is a
-- compile error. The ways are followed as flows() follows them: an if goes on with what
-- every branch gave, a loop that may not run gives nothing after it (what its breaks gave,
-- for `while true`), a goto gives its label what it gave. A set maps each local given a
-- value to true; ALL is a point no way reaches (every local given one).
local ALL = setmetatable({}, {__index = function() return true end})
local function meet(x, y)
  if x == ALL then return y end
  if y == ALL then return x end
  local both = {}
  for v in pairs(x) do if y[v] then both[v] = true end end
  return both
end
local function copy(set)
  if set == ALL then return ALL end
  local c = {}
  for v in pairs(set) do c[v] = true end
  return c
end
-- a condition that is always true (false): true, not false, (true) ... (else nil)
local function constant(cond)
  while cond and cond.tag == "Paren" do cond = cond.expr end
  if not cond then return nil end
  if cond.tag == "True" then return true end
  if cond.tag == "False" then return false end
  if cond.tag == "Unop" and cond.op == "not" then
    local c = constant(cond.expr)
    if c ~= nil then return not c end
  end
  return nil
end
local function nil_reads(ctx, body)
  local pending, loops = {}, {}
  -- what each label is given by the gotos to it: those of the last walk (a goto back to a
  -- label comes after it), met with those of this walk so far, walked again until it holds
  local labels, before, report = {}, {}, false
  local function reads(e, set)
    if type(e) ~= "table" then return end
    if report and e.tag == "Name" and e.var and pending[e.var] and not set[e.var] then
      fail(ctx, e.line, "local '%s' may be nil here (declared without a value at line %d, and "
           .. "not given one on every way here: Lua raises where it is read nil); give it a "
           .. "value where it is declared", e.name, e.var.line or 0)
    end
    reads(e.left, set); reads(e.right, set); reads(e.expr, set); reads(e.obj, set)
    reads(e.key, set); reads(e.fn, set)
    for _, arg in ipairs(e.args or {}) do reads(arg, set) end
  end
  local walk
  local function loop(s, set, runs_once)
    loops[#loops + 1] = ALL
    local after = walk(s.body, runs_once and set or copy(set))
    if s.tag == "Repeat" then reads(s.cond, after) end
    local breaks = table.remove(loops)
    -- (a loop whose condition never lets it end goes on only by its breaks)
    if s.tag == "Repeat" and constant(s.cond) == false then return breaks end
    if s.tag == "While" and constant(s.cond) == true then return breaks end
    if runs_once then return meet(after, breaks) end
    return meet(set, breaks)
  end
  walk = function(b, set)
    for _, s in ipairs(b) do
      local tag = s.tag
      if tag == "Local" then
        for _, e in ipairs(s.exprs) do reads(e, set) end
        local last = s.exprs[#s.exprs]
        for i, v in ipairs(s.vars) do
          if i > #s.exprs and not (last and last.tag == "Call") then pending[v] = true
          elseif set ~= ALL then set[v] = true end
        end
      elseif tag == "Assign" then
        for _, e in ipairs(s.exprs) do reads(e, set) end
        for _, t in ipairs(s.targets) do if t.tag ~= "Name" then reads(t, set) end end   -- (before any store)
        for _, t in ipairs(s.targets) do
          if t.tag == "Name" and t.var and set ~= ALL then set[t.var] = true end
        end
      elseif tag == "CallStat" then reads(s.call, set)
      elseif tag == "Do" then set = walk(s.body, set)
      elseif tag == "If" then
        local out = s.orelse and ALL or copy(set)
        for i, c in ipairs(s.conds) do
          reads(c, set)
          out = meet(out, walk(s.blocks[i], copy(set)))
        end
        if s.orelse then out = meet(out, walk(s.orelse, copy(set))) end
        set = out
      elseif tag == "While" then reads(s.cond, set); set = loop(s, set, false)
      elseif tag == "Repeat" then set = loop(s, set, true)
      elseif tag == "Fornum" then
        reads(s.start, set); reads(s.limit, set); reads(s.step, set)
        set = loop(s, set, false)
      elseif tag == "Return" then
        for _, e in ipairs(s.exprs) do reads(e, set) end
        set = ALL
      elseif tag == "Break" then
        loops[#loops] = meet(loops[#loops], set)
        set = ALL
      elseif tag == "Goto" then
        labels[s.target] = meet(labels[s.target] or ALL, set)
        set = ALL
      elseif tag == "Label" then
        set = meet(meet(set, labels[s] or ALL), before[s] or ALL)
      end
    end
    return set
  end
  local function same(x, y)
    if x == ALL or y == ALL then return x == y end
    for v in pairs(x) do if not y[v] then return false end end
    for v in pairs(y) do if not x[v] then return false end end
    return true
  end
  for _ = 1, 100 do   -- (each walk gives a label no more than the last: it ends)
    walk(body, {})
    local held = true
    for l, set in pairs(labels) do if not before[l] or not same(before[l], set) then held = false end end
    before, labels = labels, {}
    if held then break end
  end
  report = true
  walk(body, {})
end

function M.resolve(ctx, fn)
  local scopes, blocks, gotos = {}, {}, {}
  ctx.vars, ctx.labels = {}, {}
  local function lookup(name)
    for i = #scopes, 1, -1 do
      local v = scopes[i][name]
      if v then return v end
    end
  end
  local function declare(name, line, kind)
    local v = {name = name, line = line, kind = kind}
    scopes[#scopes][name] = v
    ctx.vars[#ctx.vars + 1] = v
    return v
  end

  local expr, block, stat
  local function exprs(list) for _, e in ipairs(list) do expr(e) end end

  expr = function(e)
    local tag = e.tag
    if tag == "Name" then
      local v = lookup(e.name)
      if v then e.var = v
      else
        local d = ctx.free(e.name, e.line)
        if d.kind == "intr" then e.intr = d.path
        elseif d.kind == "ns" then e.ns = d.path
        else e.free = d end
      end
    elseif tag == "Index" then
      expr(e.obj)
      local ns = e.obj.ns
      if ns then
        local key = e.dot and e.key.name or (e.key.tag == "String" and e.key.name)
        if not key then fail(ctx, e.line, "%s[...] is not supported: write %s.name", ns, ns) end
        local path = ns .. "." .. key
        local what = intrinsics.lookup(path)
        if what == "ns" then e.ns = path
        elseif what then e.intr = path
        else fail(ctx, e.line, "%s is not available in a gpu.jit function", path) end
      elseif e.obj.intr then
        fail(ctx, e.line, "%s has no fields", e.obj.intr)
      elseif not e.dot then
        expr(e.key)
      end
    elseif tag == "Call" then
      expr(e.fn)
      -- a shape: gpu.shared.array({16, 16}, gpu.float32)
      if (e.fn.intr == "gpu.shared.array" or e.fn.intr == "gpu.local_array") and e.args[1] then
        e.args[1].shape = true
      end
      exprs(e.args)
    elseif tag == "Binop" then
      if e.op == ".." then refuse(ctx, e, "string concatenation (..)") end
      expr(e.left)
      expr(e.right)
    elseif tag == "Unop" or tag == "Paren" then
      expr(e.expr)
    elseif tag == "Table" then
      if not e.shape then refuse(ctx, e) end
      for _, item in ipairs(e.items) do
        if item.key or item.name then refuse(ctx, e) end
        expr(item.value)
      end
    elseif refused[tag] then
      refuse(ctx, e)
    end
  end

  block = function(b, setup)
    scopes[#scopes + 1] = {}
    blocks[#blocks + 1] = b
    b.labels = {}
    for _, s in ipairs(b) do
      if s.tag == "Label" then
        s.cname = ("%s_%d"):format(s.name, #ctx.labels + 1)
        ctx.labels[#ctx.labels + 1] = s
        b.labels[s.name] = s
      end
    end
    if setup then setup() end
    for _, s in ipairs(b) do stat(s) end
    blocks[#blocks] = nil
    scopes[#scopes] = nil
  end

  stat = function(s)
    local tag = s.tag
    if tag == "Local" then
      exprs(s.exprs)
      s.vars = {}
      for i, n in ipairs(s.names) do
        local attrib = s.attribs[i]
        if attrib and attrib ~= "const" then
          refuse(ctx, s, ("local '%s <%s>'"):format(n, attrib), "only <const> is")
        end
        s.vars[i] = declare(n, s.line, "local")
        s.vars[i].init = {exprs = s.exprs, k = i}   -- what it is given first (emit.lua's bounds)
      end
      -- `local s = gpu.shared.array(...)` declares an array
      if #s.exprs == 1 and #s.vars == 1 and s.exprs[1].tag == "Call" then
        s.exprs[1].declares = s.vars[1]
      end
    elseif tag == "Assign" then
      exprs(s.exprs)
      for _, t in ipairs(s.targets) do
        expr(t)
        if t.var then t.var.reassigned = true end
        if t.tag == "Name" and not t.var then
          fail(ctx, t.line, "assigning to '%s', which is not a local of the gpu.jit function "
               .. "(kernels cannot change upvalues or globals)", t.name)
        end
      end
    elseif tag == "CallStat" then
      expr(s.call)
    elseif tag == "Do" then
      block(s.body)
    elseif tag == "While" then
      expr(s.cond)
      block(s.body)
    elseif tag == "Repeat" then
      block(s.body, nil)
      -- the condition sees the body's locals: resolve it inside the body's scope
      scopes[#scopes + 1] = {}
      for _, b in ipairs(s.body) do
        if b.tag == "Local" then for _, v in ipairs(b.vars) do scopes[#scopes][v.name] = v end end
      end
      expr(s.cond)
      scopes[#scopes] = nil
    elseif tag == "If" then
      for i, c in ipairs(s.conds) do expr(c); block(s.blocks[i]) end
      if s.orelse then block(s.orelse) end
    elseif tag == "Fornum" then
      expr(s.start)
      expr(s.limit)
      if s.step then expr(s.step) end
      block(s.body, function() s.v = declare(s.var, s.line, "for") end)
    elseif tag == "Return" then
      exprs(s.exprs)
    elseif tag == "Goto" then
      local chain = {}
      for i = 1, #blocks do chain[i] = blocks[i] end
      gotos[#gotos + 1] = {s, chain}
    elseif tag == "Label" or tag == "Break" then
      return
    else
      refuse(ctx, s)
    end
  end

  if fn.vararg then refuse(ctx, fn, "'...' in the parameter list", "name the parameters") end
  if fn.method then
    fail(ctx, fn.line, "a method (function a:%s) cannot be a gpu.jit function", fn.name)
  end
  scopes[1] = {}
  ctx.params = {}
  for i, p in ipairs(fn.params) do ctx.params[i] = declare(p, fn.line, "param") end
  block(fn.body)
  for _, g in ipairs(gotos) do
    local s, chain = g[1], g[2]
    for i = #chain, 1, -1 do
      local l = chain[i].labels[s.label]
      if l then s.target = l; break end
    end
    if not s.target then fail(ctx, s.line, "no visible label '%s' for goto", s.label) end
  end
  ctx.has_labels = #ctx.labels > 0
  nil_reads(ctx, fn.body)
end

------------------------------------------------------------------------------------
-- infer: types

local folders = {
  ["+"] = function(a, b) return a + b end, ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end, ["/"] = function(a, b) return a / b end,
  ["//"] = function(a, b) return a // b end, ["%"] = function(a, b) return a % b end,
  ["^"] = function(a, b) return a ^ b end, ["&"] = function(a, b) return a & b end,
  ["|"] = function(a, b) return a | b end, ["~"] = function(a, b) return a ~ b end,
  ["<<"] = function(a, b) return a << b end, [">>"] = function(a, b) return a >> b end,
}
local arith = {["+"] = true, ["-"] = true, ["*"] = true, ["//"] = true, ["%"] = true}
local bitwise = {["&"] = true, ["|"] = true, ["~"] = true, ["<<"] = true, [">>"] = true}
local order = {["<"] = true, ["<="] = true, [">"] = true, [">="] = true}

local function const_type(v)
  if math.type(v) == "integer" then return "wint" end
  if type(v) == "number" then return "wfloat" end
  return "bool"
end
M.const_type = const_type

-- What two numbers are compared as: their common type, or "mixed" for an integer and a
-- float, which Lua 5.4 compares exactly (lvm.c's LTintfloat ..., luaV_equalobj), not as two
-- doubles: (1 << 53) + 1 == 2^53 is false (emit.lua's jit::lt_if ...). A weak integer (a
-- literal ...) with a float16 is float16, rounded first as NumPy 2 converts it and as the
-- arithmetic takes it: x == 2049 for x = 2048, as x - 2049 == 0
local function cmp_type(lt, rt)
  if (lt == "wint" and rt == "float16") or (rt == "wint" and lt == "float16") then return "float16" end
  if types.integer(lt) ~= types.integer(rt) then return "mixed" end
  return types.concrete(types.promote(lt, rt))
end

-- A type for messages, and with its article.
local function tname(t) return types.name(t) end
local function a(t)
  local n = types.name(t)
  return (n:find("^[aeiou]") and "an " or "a ") .. n
end

function M.infer(ctx)
  local changed, final
  local typeof

  -- The arrays the function writes (stores into, or gives an atomic or a device function
  -- that writes it): ctx.writes[i] for parameter i, ctx.writes_free[obj] for an array read
  -- from outside; a local that holds an array holds those it was given (v.origins: the
  -- parameters' indices and the outside arrays). jit.lua refuses an expanded view there.
  ctx.writes, ctx.writes_free = {}, {}
  -- ctx.effects: whether a call of it does more than compute a value (stores, atomics,
  -- random draws, gpu.printf, or calls that do): emit.lua orders operands around such calls
  ctx.effects = false
  local function origins(v)
    if not v.origins then v.origins = {} end
    return v.origins
  end
  local function hold(v, e)   -- local v given the value of e
    while e and e.tag == "Paren" do e = e.expr end
    if not e or e.tag ~= "Name" then return end
    local into = origins(v)
    if e.var then for k in pairs(origins(e.var)) do into[k] = true end
    elseif e.free and e.free.kind == "array" then into[e.free] = true end
  end
  local function writes(e)    -- the array e is written
    while e and e.tag == "Paren" do e = e.expr end
    if not e or e.tag ~= "Name" then return end
    local from = e.var and origins(e.var) or (e.free and e.free.kind == "array" and {[e.free] = true}) or {}
    for k in pairs(from) do
      if type(k) == "number" then ctx.writes[k] = true else ctx.writes_free[k.obj] = true end
    end
  end

  -- A local that expression e reads and that a later assignment widened before v (not v
  -- itself): why v, given e, is widened too (local j = i, then i = 1.5)
  local function widened_by(e, v)
    if type(e) ~= "table" then return nil end
    if e.tag == "Name" then return e.var ~= v and e.var and e.var.widened and e.var or nil end
    local found = widened_by(e.expr, v) or widened_by(e.obj, v) or widened_by(e.key, v)
                  or widened_by(e.left, v) or widened_by(e.right, v)
    for _, arg in ipairs(e.args or {}) do found = found or widened_by(arg, v) end
    return found
  end

  -- local v given type t at line by expression e (nil where there is none)
  local function set(v, t, line, e)
    if t == nil then return end
    if type(t) == "table" and t.local_array and v.ty ~= nil and v.ty ~= t then
      fail(ctx, line, "local '%s' holds %s: it cannot be assigned again", v.name, a(v.ty))
    end
    if t == "str" or t == "dtype" or t == "void" or t == "shape" or t == "ns" then
      fail(ctx, line, "local '%s' cannot hold %s", v.name,
           t == "void" and "a call that returns nothing" or a(t))
    end
    local u = types.unify(v.ty, t)
    if u == nil then
      fail(ctx, line, "local '%s' is given %s here, and %s at line %d: a local holds one kind of value",
           v.name, a(t), a(v.ty), v.typed_line or v.line)
    end
    if u ~= v.ty then
      if v.ty == nil then v.typed_line = line
      elseif types.integer(v.ty) and not types.integer(u) and not v.widened then
        v.widened = {from = v.ty, to = t, line = line, via = widened_by(e, v)}   -- (for integer()'s message)
      end
      v.ty = u
      changed = true
    end
  end

  local function number(e, t, what)
    if t ~= nil and not types.number(t) then
      fail(ctx, e.line, "%s needs a number, got %s", what, a(t))
    end
    return t
  end

  -- a real number: complex ones are refused, saying why
  local function real(e, t, what, why)
    number(e, t, what)
    if types.complex(t) then
      fail(ctx, e.line, "%s on %s: %s", what, a(t), why or "complex numbers are not ordered")
    end
    return t
  end

  -- Why e is not an integer where a local it reads was one when first given a value: a
  -- later assignment widened it (a local has the widest type it is given, everywhere), at
  -- a line the message names, or "". A local widened by reading one widened so (local j =
  -- i; i = 1.5) names that one and its lines.
  local function widened(e)
    while e.tag == "Paren" do e = e.expr end
    if e.tag == "Name" then return e.var and e.var.widened and e.var end
    if e.tag == "Unop" and (e.op == "-" or e.op == "~") then return widened(e.expr) end
    if e.tag == "Binop" and arith[e.op] then return widened(e.left) or widened(e.right) end
  end
  local function why(v)
    local w = v.widened
    if w.via then
      return ("%s '%s' is %s because %s"):format(v.kind == "param" and "parameter" or "local", v.name,
                                                 a(v.ty), why(w.via))
    end
    if v.kind == "param" then
      return ("parameter '%s' is %s and is given %s at line %d, which makes it %s everywhere")
             :format(v.name, a(w.from), a(w.to), w.line, a(v.ty))
    end
    return ("local '%s' is given %s at line %d and %s at line %d, which makes it %s everywhere")
           :format(v.name, a(w.from), v.typed_line or v.line, a(w.to), w.line, a(v.ty))
  end
  local function widened_note(e)
    local v = widened(e)
    return v and ": " .. why(v) or ""
  end
  ctx.widened_note = widened_note

  local function integer(e, t, what)
    if t ~= nil and not types.integer(t) then
      if types.float(t) then
        fail(ctx, e.line, "%s must be an integer, got %s%s (convert it with math.floor: // of a "
             .. "float is a float, as in Lua)", what, a(t), widened_note(e))
      end
      fail(ctx, e.line, "%s must be an integer, got %s%s", what, a(t), widened_note(e))
    end
    return t
  end

  local function condition(e)
    local t = typeof(e)
    if t ~= nil and t ~= "bool" then
      fail(ctx, e.line, "a condition must be a boolean, got %s (in Lua every number is true, "
           .. "0 too: compare it, e.g. x ~= 0)", a(t))
    end
  end

  -- Index chains: a[i][j] is a(i, j); a.shape[d]; a.size
  local function chain_of(e)
    local keys, base = {}, e
    while base.tag == "Index" and not base.dot and not base.intr and not base.ns do
      table.insert(keys, 1, base.key)
      base = base.obj
    end
    return base, keys
  end

  local function index_type(e)
    local base, keys = chain_of(e)
    local bt = typeof(base)
    if bt == nil then return nil end
    e.chain = {base = base, keys = keys}
    if bt == "shape" then
      if #keys ~= 1 then fail(ctx, e.line, "%s.shape takes one index", base.obj.name or "a") end
      integer(keys[1], typeof(keys[1]), "a dimension")
      e.chain.shape = true
      return "int64"
    end
    if type(bt) ~= "table" then
      fail(ctx, e.line, "indexing %s is not supported (only arrays)", a(bt))
    end
    local ndim = #keys
    if bt.array then
      if ndim > 3 then fail(ctx, e.line, "a[i][j][k] is the most indices a device array takes here") end
    elseif ndim ~= 1 and ndim ~= #bt.dims then
      fail(ctx, e.line, "this %s takes 1 or %d indices, got %d", tname(bt), #bt.dims, ndim)
    end
    for _, k in ipairs(keys) do integer(k, typeof(k), "an array index") end
    e.chain.arr = bt
    return types.element(bt.array or bt.local_array)
  end

  local function field_type(e)
    local ot = typeof(e.obj)
    if ot == nil then return nil end
    local k = e.key.name
    if types.complex(ot) then
      -- z.real, z.imag (NumPy's names), z.re, z.im (gpu.complex's on the host)
      if k == "real" or k == "re" then e.part = "re"; return types.real_of(ot) end
      if k == "imag" or k == "im" then e.part = "im"; return types.real_of(ot) end
      fail(ctx, e.line, "field '%s' of %s is not available (real and imag are)", k, a(ot))
    end
    if type(ot) == "table" then
      if k == "size" or k == "ndim" then return "int64" end
      if k == "shape" then return "shape" end
      fail(ctx, e.line, "field '%s' of an array is not available in a gpu.jit function "
           .. "(size, ndim and shape are)", k)
    end
    fail(ctx, e.line, "field '%s' of %s is not supported", k, a(ot))
  end

  local function binop_type(e)
    local op = e.op
    if op == "and" or op == "or" then
      if op == "or" then
        local function bare(x) while x.tag == "Paren" do x = x.expr end return x end
        -- (a or b) or c is a or (b or c) (the first true one, each tried once, in order):
        -- turned so, c1 and x or c2 and y or z chooses among numbers as c and x or y does
        while bare(e.left).tag == "Binop" and bare(e.left).op == "or" do
          local l = bare(e.left)
          e.left, e.right = l.left, {tag = "Binop", op = "or", left = l.right, right = e.right, line = l.line}
        end
        if bare(e.left).tag == "Binop" and bare(e.left).op == "and" then e.left = bare(e.left) end
      end
      if op == "or" and e.left.tag == "Binop" and e.left.op == "and" then
        -- c and x or y: a choice when x is a number (numbers are always true)
        local c, x = e.left.left, e.left.right
        local xt = typeof(x)
        if xt ~= nil and xt ~= "bool" then
          condition(c)
          local yt = number(e.right, typeof(e.right), "the value after 'or' in 'c and x or y'")
          number(x, xt, "the value after 'and'")
          e.choice = true
          local u = types.unify(xt, yt)
          return u
        end
      end
      local lt, rt = typeof(e.left), typeof(e.right)
      for _, p in ipairs({{e.left, lt}, {e.right, rt}}) do
        if p[2] ~= nil and p[2] ~= "bool" then
          fail(ctx, p[1].line, "'%s' on %s: in Lua a number is always true; compare it, or "
               .. "write 'c and x or y' to choose a value", op, a(p[2]))
        end
      end
      if lt == nil or rt == nil then return nil end
      return "bool"
    end
    local lt, rt = typeof(e.left), typeof(e.right)
    if op == "==" or op == "~=" then
      if lt == nil or rt == nil then return nil end
      if lt == "bool" and rt == "bool" then e.cmp = "bool"; return "bool" end
      if types.complex(lt) or types.complex(rt) then
        if types.number(lt) and types.number(rt) then
          e.cmp = types.promote(lt, rt)
          return "bool"
        end
      elseif types.numeric(lt) and types.numeric(rt) then
        e.cmp = cmp_type(lt, rt)
        return "bool"
      end
      fail(ctx, e.line, "comparing %s with %s with '%s' is not supported", a(lt), a(rt), op)
    end
    number(e.left, lt, ("'%s'"):format(op))
    number(e.right, rt, ("'%s'"):format(op))
    if lt == nil or rt == nil then return nil end
    if types.complex(lt) or types.complex(rt) then
      local ct = types.complex(lt) and lt or rt
      if order[op] then
        fail(ctx, e.line, "'%s' on %s: complex numbers are not ordered (compare z.real, z.imag or "
             .. "gpu.abs(z))", op, a(ct))
      end
      if op == "//" or op == "%" then
        fail(ctx, e.line, "'%s' on %s: complex numbers have no floor division or remainder "
             .. "(NumPy refuses them too)", op, a(ct))
      end
    end
    if e.left.const ~= nil and e.right.const ~= nil and folders[op] then
      local ok, v = pcall(folders[op], e.left.const, e.right.const)
      if not ok then fail(ctx, e.line, "%s", (tostring(v):gsub("^.-:%-?%d+: ", ""))) end
      e.const = v
      return const_type(v)
    end
    if (op == "//" or op == "%") and math.type(e.right.const) == "integer" and e.right.const == 0
       and types.integer(lt) then
      -- Lua's error for a divisor known here (a literal, a <const> local, an upvalue, 1 - 1)
      fail(ctx, e.line, op == "//" and "attempt to divide by zero" or "attempt to perform 'n%%0'")
    end
    if order[op] then
      e.cmp = cmp_type(lt, rt)
      return "bool"
    end
    if bitwise[op] then
      integer(e.left, lt, ("the operand of '%s'"):format(op))
      integer(e.right, rt, ("the operand of '%s'"):format(op))
      return (lt == "wint" and rt == "wint") and "wint" or "int64"
    end
    if op == "/" or op == "^" then return types.floated(types.promote(lt, rt)) end
    if arith[op] then return types.promote(lt, rt) end
    fail(ctx, e.line, "operator '%s' is not supported in a gpu.jit function", op)
  end

  local function unop_type(e)
    local op, t = e.op, typeof(e.expr)
    if op == "not" then
      if t ~= nil and t ~= "bool" then
        fail(ctx, e.line, "'not' on %s: in Lua a number is always true (not x is false); "
             .. "compare it instead", a(t))
      end
      return t and "bool"
    elseif op == "#" then
      if t ~= nil and (type(t) ~= "table") then fail(ctx, e.line, "'#' takes an array, got %s", a(t)) end
      return t and "int64"
    elseif op == "-" then
      number(e, t, "unary '-'")
      if e.expr.const ~= nil then e.const = -e.expr.const; return const_type(e.const) end
      return t
    else   -- "~"
      integer(e, t, "the operand of '~'")
      if e.expr.const ~= nil then e.const = ~e.expr.const; return "wint" end
      return t
    end
  end

  -- Lua passes every value of a call that ends an argument list: f(a, gpu.grid(2)) is
  -- f(a, x, y). A copy of that call stands for each of its values (.pick: which one);
  -- gpu.grid and gpu.gridsize, the calls of several values, have no effect, so each copy
  -- may evaluate its call again. A call elsewhere in the list gives its first value only.
  -- Values past what the callee takes are dropped, as Lua drops them (intrinsics.drop_spread):
  -- the copies after the first are marked .spread.
  local function spread(e)
    local last = e.args[#e.args]
    if not last or last.tag ~= "Call" or last.pick or not last.fn.intr then return end
    typeof(last)
    local n = last.nvalues or 1
    if n < 2 then return end
    for k = 1, n do
      local c = {}
      for key, v in pairs(last) do c[key] = v end
      c.pick, c.spread = k, k > 1 or nil
      e.args[#e.args + (k == 1 and 0 or 1)] = c
    end
  end

  local function call_type(e)
    local fn = e.fn
    spread(e)
    if fn.intr then
      local spec = intrinsics.get(fn.intr)
      if not spec.call then fail(ctx, e.line, "%s is not a function", fn.intr) end
      e.intr = fn.intr
      local effect = intrinsics.effect(fn.intr)
      if effect then ctx.effects = true end
      if effect == "writes" then writes(e.args[1]) end
      return spec.call(ctx, e, typeof, final)
    end
    local d = fn.free
    if d and d.kind == "jit" then
      intrinsics.drop_spread(e, d.nparams)
      local argtypes = {}
      for i, arg in ipairs(e.args) do
        local t = typeof(arg)
        if t == nil then return nil end
        if t == "str" or t == "dtype" or t == "shape" or t == "void" then
          fail(ctx, arg.line, "argument %d of %s is %s: device functions take numbers, booleans "
               .. "and arrays", i, fn.name, a(t))
        end
        argtypes[i] = t
      end
      local callee = ctx.device(d.obj, argtypes, e.line, fn.name, ctx)
      e.callee = callee
      for j in pairs(callee.writes) do writes(e.args[j]) end
      for obj in pairs(callee.writes_free) do ctx.writes_free[obj] = true end
      if callee.effects then ctx.effects = true end
      return callee.ret or "void"   -- the callee is typed to the end: no value is none
    end
    -- a(i, j): an array called is an array indexed
    if not (d and (d.kind == "value" or d.kind == "jit")) then
      local ft = typeof(fn)
      if type(ft) == "table" then
        e.chain = {base = fn, keys = e.args, arr = ft}
        local ndim = #e.args
        if ndim < 1 or (ft.array and ndim > 3) or (ft.local_array and ndim ~= 1 and ndim ~= #ft.dims) then
          fail(ctx, e.line, "%s takes %s indices, got %d", a(ft),
               ft.array and "1 to 3" or ("1 or " .. #ft.dims), ndim)
        end
        for _, k in ipairs(e.args) do integer(k, typeof(k), "an array index") end
        return types.element(ft.array or ft.local_array)
      end
      if ft == nil then return nil end
    end
    local what = fn.tag == "Name" and ("'" .. fn.name .. "'") or "this value"
    if d and d.kind == "value" then
      fail(ctx, e.line, "calling %s, %s: a gpu.jit function calls gpu.jit functions, gpu.* and math.*",
           what, a(d.ty))
    end
    fail(ctx, e.line, "calling %s is not supported: a gpu.jit function calls gpu.jit functions, "
         .. "gpu.* and math.*", what)
  end

  typeof = function(e)
    local tag, t = e.tag, nil
    if tag == "Number" then
      e.const = e.value
      t = const_type(e.value)
    elseif tag == "True" or tag == "False" then
      t = "bool"
    elseif tag == "String" then
      t = "str"
    elseif tag == "Name" then
      if e.var then
        t = e.var.ty
        if t == nil and final then
          fail(ctx, e.line, "local '%s' is used before it has a value", e.name)
        end
      elseif e.intr then
        t = intrinsics.value_type(ctx, e, e.intr)
      elseif e.ns then
        fail(ctx, e.line, "%s is a namespace, not a value", e.ns)
      else
        local d = e.free
        if d.kind == "value" then e.const = d.value; t = d.ty
        elseif d.kind == "array" then t = types.array(d.dtype)
        else fail(ctx, e.line, "'%s' is a gpu.jit function: call it", e.name) end
      end
    elseif tag == "Index" then
      if e.intr then t = intrinsics.value_type(ctx, e, e.intr)
      elseif e.ns then fail(ctx, e.line, "%s is a namespace, not a value", e.ns)
      elseif e.dot then t = field_type(e)
      else t = index_type(e) end
    elseif tag == "Call" then
      t = call_type(e)
      if e.pick and e.types then t = e.types[e.pick] end
    elseif tag == "Paren" then
      t = typeof(e.expr)
      e.const = e.expr.const
    elseif tag == "Binop" then
      t = binop_type(e)
    elseif tag == "Unop" then
      t = unop_type(e)
    elseif tag == "Table" then
      fail(ctx, e.line, "a table constructor ({...}) is not supported in a gpu.jit function "
           .. "(only as the shape of gpu.shared.array and gpu.local_array)")
    else
      refuse(ctx, e)
    end
    e.ty = t
    if final and t == nil then fail(ctx, e.line, "this expression has no type (is a local used before it has a value?)") end
    return t
  end

  -- The types of an expression list adjusted to n values (a last call may give several).
  local function values(list, n, line)
    local out, lines = {}, {}
    for i, e in ipairs(list) do
      local t = typeof(e)
      if i == #list and e.tag == "Call" and (e.nvalues or 1) > 1 then
        for k = 1, e.nvalues do out[#out + 1] = e.types and e.types[k] or t; lines[#out] = e end
      else
        out[#out + 1] = t
        lines[#out] = e
      end
    end
    if #out < n then
      fail(ctx, line, "%d name%s but %d value%s: a gpu.jit function has no nil", n, n == 1 and "" or "s",
           #out, #out == 1 and "" or "s")
    end
    return out
  end

  local function store(target, t, line, e)
    if target.tag == "Name" then
      set(target.var, t, line, e)
      return
    end
    local et = typeof(target)
    if et == nil or t == nil then return end
    if target.chain then writes(target.chain.base); ctx.effects = true end
    if target.chain and target.chain.shape then fail(ctx, line, "a shape cannot be assigned") end
    if not target.chain then fail(ctx, line, "this field cannot be assigned") end
    if (et == "bool") ~= (t == "bool") or not (t == "bool" or types.number(t)) then
      fail(ctx, line, "storing %s in %s", a(t), a(target.chain.arr))
    end
    if types.complex(t) and not types.complex(et) then
      fail(ctx, line, "storing %s in %s would drop its imaginary part: store z.real, or use a "
           .. "complex array", a(t), a(target.chain.arr))
    end
  end

  local block
  local function stat(s)
    local tag = s.tag
    if tag == "Local" then
      if #s.exprs == 0 then return end
      local ts = values(s.exprs, 0, s.line)
      for i, v in ipairs(s.vars) do
        if i <= #ts then   -- (a name past the values has none yet, as in `local y`)
          set(v, ts[i], s.line, s.exprs[i])
          hold(v, s.exprs[i])
        end
      end
    elseif tag == "Assign" then
      local ts = values(s.exprs, #s.targets, s.line)
      for i, target in ipairs(s.targets) do
        store(target, ts[i], s.line, s.exprs[i])
        if target.tag == "Name" and target.var then hold(target.var, s.exprs[i]) end
      end
    elseif tag == "CallStat" then
      typeof(s.call)
    elseif tag == "Do" then
      block(s.body)
    elseif tag == "While" then
      condition(s.cond)
      block(s.body)
    elseif tag == "Repeat" then
      block(s.body)
      condition(s.cond)
    elseif tag == "If" then
      for i, c in ipairs(s.conds) do condition(c); block(s.blocks[i]) end
      if s.orelse then block(s.orelse) end
    elseif tag == "Fornum" then
      local loop = "a numeric 'for' counts with real numbers"
      local a = real(s.start, typeof(s.start), "a 'for' initial value", loop)
      local b = real(s.limit, typeof(s.limit), "a 'for' limit", loop)
      local c = s.step and real(s.step, typeof(s.step), "a 'for' step", loop) or "wint"
      if s.step and s.step.const == 0 then fail(ctx, s.line, "'for' step is zero") end
      local given = {args = {s.start, s.limit, s.step}}   -- (what widens the counter)
      if a and b and c then
        if types.integer(a) and types.integer(c) then
          s.kind = "int"
          set(s.v, (a == "wint" and c == "wint" and b == "wint") and "wint" or "int64", s.line, given)
        else
          s.kind = "float"
          local t = types.promote(types.promote(types.floated(a), types.floated(b)), types.floated(c))
          -- a float16 counter would stop at 2048 (2048 + 1 rounds back): count in float32
          set(s.v, t == "float16" and "float32" or t, s.line, given)
        end
      end
      block(s.body)
    elseif tag == "Return" then
      local e = s.exprs[1]
      -- (return gpu.grid(2) returns two values, as return x, y does)
      if #s.exprs > 1 or (e and e.tag == "Call" and typeof(e) and (e.nvalues or 1) > 1) then
        fail(ctx, s.line, "a gpu.jit function returns at most one value")
      end
      if e then
        if ctx.kernel then
          fail(ctx, s.line, "a kernel returns nothing (this function returns a value: call it "
               .. "from a gpu.jit kernel as a device function)")
        end
        local t = typeof(e)
        if t ~= nil then
          if not (t == "bool" or types.number(t)) then
            fail(ctx, s.line, "a device function returns a number or a boolean, not %s", a(t))
          end
          local u = types.unify(ctx.ret, t)
          if u == nil then
            fail(ctx, s.line, "this function returns %s here and %s elsewhere", a(t), a(ctx.ret))
          end
          if u ~= ctx.ret then ctx.ret = u; changed = true end
        end
        ctx.returns_value = true
      end
    end
  end
  block = function(b) for _, s in ipairs(b) do stat(s) end end

  for i, v in ipairs(ctx.params) do
    v.ty = ctx.param_types[i]
    v.param_type = ctx.param_types[i]
    origins(v)[i] = true
  end
  for _ = 1, 100 do
    changed = false
    block(ctx.fn.body)
    if not changed then break end
  end
  final = true
  block(ctx.fn.body)
  if ctx.returns_value and not ctx.kernel then ends_with_value(ctx) end
  for _, v in ipairs(ctx.vars) do
    if v.ty == nil and v.kind ~= "param" then
      -- declared and never given a value: only an error if it is read (typeof says so)
      v.ty = "int64"
      v.unused = true
    end
  end
end

return M

-- einsum.lua: gpu.einsum, NumPy's Einstein summation, made of the module's views, sums and
-- products, and gpu.vdot on it. An index repeated in one operand becomes a diagonal
-- (gpu.take), indices no other operand nor the output needs are summed at once, then the
-- operands are contracted two at a time, the pair chosen greedily so that intermediates stay
-- small (NumPy's optimize="greedy"): a pair sharing a summed index is one (batched)
-- gpu.matmul of transposed and reshaped operands (cuBLAS on the GPU). Loaded at the first
-- call of one (lua/gpu.lua).
local gpu = ...

local is_array, described = gpu._is_array, gpu._described

local KIND = {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name] = d.kind end
-- NumPy's same_kind casting between kinds, as for every out= of gpuhost
local KIND_RANK = {b = 1, u = 2, i = 3, f = 4, c = 5}

-- Labels: a letter stands for itself (a string); the dims an ellipsis stands for are the
-- integers 1..E, right-aligned across the operands as broadcasting aligns dims.
local function named(l)
  return type(l) == "string" and ("index '%s'"):format(l) or ("dim %d of the ellipsis ('...')"):format(l)
end

local function set_of(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end

local function product(sizes, list)
  local n = 1
  for _, l in ipairs(list) do n = n * sizes[l] end
  return n
end

local function shape_of(sizes, ...)
  local shape = {}
  for _, list in ipairs({...}) do
    for _, l in ipairs(list) do shape[#shape + 1] = sizes[l] end
  end
  return shape
end

local function as(x, dt) return x.dtype == dt and x or x:astype(dt) end

------------------------------------------------------------------------------------
-- the subscripts

-- One term: its letters before and after the ellipsis, and whether it has one
local function read_term(s, where)
  local before, after, ellipsis, i = {}, {}, false, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c:match("^[A-Za-z]$") then
      table.insert(ellipsis and after or before, c)
      i = i + 1
    elseif s:sub(i, i + 2) == "..." then
      if ellipsis then error(("gpu.einsum: more than one ellipsis ('...') in %s"):format(where)) end
      ellipsis, i = true, i + 3
    elseif c == "." then
      error(("gpu.einsum: a '.' that is not part of an ellipsis ('...') in %s"):format(where))
    else
      error(("gpu.einsum: invalid subscript '%s' in %s: subscripts are letters"):format(c, where))
    end
  end
  return before, after, ellipsis
end

-- The input terms (one per operand) and the output term (nil when implicit)
local function split(subscripts, n)
  if type(subscripts) ~= "string" then
    error(("gpu.einsum: the subscripts must be a string, got %s"):format(described(subscripts)))
  end
  local s = subscripts:gsub("%s", "")
  local lhs, rhs = s, nil
  local arrow = s:find("->", 1, true)
  if arrow then lhs, rhs = s:sub(1, arrow - 1), s:sub(arrow + 2) end
  if lhs:find("[-<>]") or (rhs and rhs:find("[-<>]")) then
    error(("gpu.einsum: '%s' has a '-' or '>' that is not one '->' before the output"):format(subscripts))
  end
  local terms = {}
  for t in (lhs .. ","):gmatch("([^,]*),") do terms[#terms + 1] = t end
  if #terms ~= n then
    error(("gpu.einsum: the subscripts '%s' name %d operand%s, but %d %s given"):format(
      subscripts, #terms, #terms == 1 and "" or "s", n, n == 1 and "is" or "are"))
  end
  return terms, rhs
end

-- Each operand's labels, a dim each, and E, the most dims an ellipsis stands for
local function input_labels(terms, xs)
  local parts, E = {}, 0
  for k, t in ipairs(terms) do
    local before, after, ellipsis = read_term(t, ("the subscripts of operand %d ('%s')"):format(k, t))
    local nl, nd = #before + #after, xs[k].ndim
    if nd < nl or (nd > nl and not ellipsis) then
      error(("gpu.einsum: operand %d has %d dimension%s but its subscripts '%s' name %d%s"):format(
        k, nd, nd == 1 and "" or "s", t, nl, nd > nl and " and no ellipsis ('...') stands for the others" or ""))
    end
    parts[k] = {before, nd - nl, after}
    E = math.max(E, nd - nl)
  end
  local labels = {}
  for k, p in ipairs(parts) do
    local ls = {table.unpack(p[1])}
    for j = E - p[2] + 1, E do ls[#ls + 1] = j end
    table.move(p[3], 1, #p[3], #ls + 1, ls)
    labels[k] = ls
  end
  return labels, E
end

-- Implicit: the ellipsis' dims, then the letters met once, in alphabetical order (capitals first)
local function implicit_output(labels, E)
  local count, once, out = {}, {}, {}
  for _, ls in ipairs(labels) do
    for _, l in ipairs(ls) do count[l] = (count[l] or 0) + 1 end
  end
  for l, c in pairs(count) do
    if type(l) == "string" and c == 1 then once[#once + 1] = l end
  end
  table.sort(once)
  for j = 1, E do out[j] = j end
  table.move(once, 1, #once, E + 1, out)
  return out
end

local function output_labels(rhs, labels, E)
  if rhs == nil then return implicit_output(labels, E) end
  local before, after, ellipsis = read_term(rhs, ("the output's subscripts ('%s')"):format(rhs))
  if E > 0 and not ellipsis then
    error("gpu.einsum: an ellipsis ('...') stands for dims of the operands, " ..
      "but the output's subscripts have none to put them")
  end
  local known, out = {}, {}
  for _, ls in ipairs(labels) do
    for _, l in ipairs(ls) do known[l] = true end
  end
  for _, c in ipairs(before) do out[#out + 1] = c end
  for j = 1, ellipsis and E or 0 do out[#out + 1] = j end
  for _, c in ipairs(after) do out[#out + 1] = c end
  local seen = {}
  for _, l in ipairs(out) do
    if seen[l] then error(("gpu.einsum: the output's subscripts name '%s' more than once"):format(l)) end
    if not known[l] then error(("gpu.einsum: the output's subscript '%s' is in no operand's subscripts"):format(l)) end
    seen[l] = true
  end
  return out
end

-- Each label's size: equal wherever it is, except that a size of 1 broadcasts (not within
-- one operand, where a repeated index takes a diagonal)
local function label_sizes(xs, labels)
  local size, from = {}, {}
  for k, ls in ipairs(labels) do
    local shape, mine = xs[k].shape, {}
    for d, l in ipairs(ls) do
      local n = shape[d]
      if mine[l] and mine[l] ~= n then
        error(("gpu.einsum: %s is repeated in operand %d with sizes %d and %d: a diagonal needs them equal"):format(
          named(l), k, mine[l], n))
      end
      mine[l] = n
      if size[l] == nil or size[l] == 1 then
        size[l], from[l] = n, k
      elseif n ~= 1 and n ~= size[l] then
        error(("gpu.einsum: %s has size %d in operand %d but %d in operand %d (only a size of 1 broadcasts)"):format(
          named(l), size[l], from[l], n, k))
      end
    end
  end
  return size
end

------------------------------------------------------------------------------------
-- one operand: {x = array, ls = its labels, a dim each}

-- x with its dims in the order of the labels `order`
local function arrange(op, order)
  local at, used, perm, moved = {}, {}, {}, false
  for d, l in ipairs(op.ls) do
    at[l] = at[l] or {}
    table.insert(at[l], d)
  end
  for i, l in ipairs(order) do
    used[l] = (used[l] or 0) + 1
    perm[i] = at[l][used[l]]
    moved = moved or perm[i] ~= i
  end
  return moved and op.x:transpose(perm) or op.x
end

-- The diagonal over label l, repeated in op: its k dims moved last and flattened together,
-- every (1 + n + ... + n^(k-1))-th element of them taken; l becomes the last dim
local function take_diagonal(op, l)
  local rest, order, shape, n, k = {}, {}, {}, 0, 0
  for d, m in ipairs(op.ls) do
    if m == l then n, k = op.x.shape[d], k + 1
    else rest[#rest + 1], order[#order + 1], shape[#shape + 1] = m, m, op.x.shape[d] end
  end
  local step, flat = 0, 1
  for _ = 1, k do
    order[#order + 1] = l
    step, flat = step * n + 1, flat * n
  end
  rest[#rest + 1] = l
  if op.x.size == 0 then
    shape[#shape + 1] = n
    return {x = gpu.empty(shape, op.x.dtype), ls = rest, fresh = true}
  end
  shape[#shape + 1] = flat
  local y = arrange(op, order):reshape(shape)
  return {x = gpu.take(y, gpu.arange(n, "int64") * step + 1, -1), ls = rest, fresh = true}
end

local function diagonals(op)
  local seen = {}
  for _, l in ipairs(op.ls) do
    if seen[l] then return diagonals(take_diagonal(op, l)) end
    seen[l] = true
  end
  return op
end

-- A dim of size 1 where the label is larger elsewhere is dropped: this operand is the same
-- along the whole of it
local function unbroadcast(op, sizes)
  local x, ls = op.x, {table.unpack(op.ls)}
  for d = #ls, 1, -1 do
    if x.shape[d] == 1 and sizes[ls[d]] ~= 1 then
      x = x:select(d, 1)
      table.remove(ls, d)
    end
  end
  return {x = x, ls = ls, fresh = op.fresh}
end

-- op with the dims of labels not in `needed` summed over (in dt: a sum of int32 is int64)
local function sum_out(op, needed, sizes, dt)
  local dims, ls = {}, {}
  for d, l in ipairs(op.ls) do
    if needed[l] then ls[#ls + 1] = l else dims[#dims + 1] = d end
  end
  if #dims == 0 then return op end
  local s = gpu.sum(op.x, dims, {keepdim = true}):reshape(shape_of(sizes, ls))
  return {x = as(s, dt), ls = ls, fresh = true}
end

------------------------------------------------------------------------------------
-- two operands

-- No summed index: one broadcast multiplication, dims (batch, a's, b's)
local function broadcast_product(A, B, batch, afree, bfree, sizes)
  local sa, sb = shape_of(sizes, batch, afree), shape_of(sizes, batch)
  for _ = 1, #bfree do sa[#sa + 1] = 1 end
  for _ = 1, #afree do sb[#sb + 1] = 1 end
  for _, l in ipairs(bfree) do sb[#sb + 1] = sizes[l] end
  local order_a, order_b = {table.unpack(batch)}, {table.unpack(batch)}
  table.move(afree, 1, #afree, #order_a + 1, order_a)
  table.move(bfree, 1, #bfree, #order_b + 1, order_b)
  return arrange(A, order_a):reshape(sa) * arrange(B, order_b):reshape(sb)
end

-- Integers and bool, which gemm has not: a broadcast product summed over k, k taken in
-- slices so that a product holds about 2^24 elements at most (not nb * m * k * n at once)
local SLICE = 1 << 24
local function summed_product(a, b, nb, m, k, n, dt)
  local a4, b4 = a:reshape(nb, m, k, 1), b:reshape(nb, 1, k, n)
  local step = math.max(1, SLICE // math.max(1, nb * m * n))
  local r = nil
  for first = 1, k, step do
    local len = math.min(step, k - first + 1)
    local part = gpu.sum(a4:narrow(3, first, len) * b4:narrow(3, first, len), 3)
    r = r and r + part or part   -- int64 (uint64) sums: wrapping as dt's would
  end
  return r and as(r, dt) or gpu.zeros({nb, m, n}, dt)
end

-- Summed indices: (nb, m, k) times (nb, k, n), by gpu.matmul for floats
local function matrix_product(A, B, g, sizes, dt)
  local nb, m = product(sizes, g.batch), product(sizes, g.afree)
  local k, n = product(sizes, g.summed), product(sizes, g.bfree)
  local order_a, order_b = {table.unpack(g.batch)}, {table.unpack(g.batch)}
  for _, l in ipairs(g.afree) do order_a[#order_a + 1] = l end
  for _, l in ipairs(g.summed) do order_a[#order_a + 1], order_b[#order_b + 1] = l, l end
  for _, l in ipairs(g.bfree) do order_b[#order_b + 1] = l end
  local a, b = arrange(A, order_a), arrange(B, order_b)
  local r
  if KIND[dt] == "f" or KIND[dt] == "c" then
    if nb == 1 then r = gpu.matmul(a:reshape(m, k), b:reshape(k, n))
    else r = gpu.matmul(a:reshape(nb, m, k), b:reshape(nb, k, n)) end
  else
    r = summed_product(a, b, nb, m, k, n, dt)
  end
  return r:reshape(shape_of(sizes, g.batch, g.afree, g.bfree))
end

-- The labels of A and B by role: in both and needed after (batch), in both and not (summed),
-- in one of them only
local function roles(A, B, needed)
  local ina, inb = set_of(A.ls), set_of(B.ls)
  local g = {batch = {}, summed = {}, afree = {}, bfree = {}}
  for _, l in ipairs(A.ls) do
    if not inb[l] then table.insert(g.afree, l)
    else table.insert(needed[l] and g.batch or g.summed, l) end
  end
  for _, l in ipairs(B.ls) do
    if not ina[l] then table.insert(g.bfree, l) end
  end
  return g
end

local function contract(A, B, needed, sizes, dt)
  -- an index neither needed after nor in the other operand is summed first
  local both, inb = {}, set_of(B.ls)
  for l in pairs(needed) do both[l] = true end
  for _, l in ipairs(A.ls) do both[l] = both[l] or inb[l] end
  A, B = sum_out(A, both, sizes, dt), sum_out(B, both, sizes, dt)
  local g = roles(A, B, needed)
  local ls = {table.unpack(g.batch)}
  table.move(g.afree, 1, #g.afree, #ls + 1, ls)
  table.move(g.bfree, 1, #g.bfree, #ls + 1, ls)
  if #g.summed == 0 then
    return {x = broadcast_product(A, B, g.batch, g.afree, g.bfree, sizes), ls = ls, fresh = true}
  end
  return {x = matrix_product(A, B, g, sizes, dt), ls = ls, fresh = true}
end

-- The labels that the output or an operand other than i and j has
local function needed_besides(ops, i, j, out)
  local needed = set_of(out)
  for k, op in ipairs(ops) do
    if k ~= i and k ~= j then
      for _, l in ipairs(op.ls) do needed[l] = true end
    end
  end
  return needed
end

-- The pair to contract next: among pairs sharing a label (any pair when none does), the one
-- whose result grows least over its operands (NumPy's greedy cost), the first on a tie
local function next_pair(ops, out, sizes)
  local best
  for i = 1, #ops - 1 do
    for j = i + 1, #ops do
      local needed, shared, kept = needed_besides(ops, i, j, out), false, {}
      local inj = set_of(ops[j].ls)
      for _, l in ipairs(ops[i].ls) do
        shared = shared or inj[l]
        if needed[l] then kept[l] = true end
      end
      for _, l in ipairs(ops[j].ls) do if needed[l] then kept[l] = true end end
      local size = 1
      for l in pairs(kept) do size = size * sizes[l] end
      local cost = size - ops[i].x.size - ops[j].x.size
      local key = {shared and 0 or 1, cost}
      if not best or key[1] < best[1] or (key[1] == best[1] and key[2] < best[2]) then
        best = {key[1], key[2], i, j, needed}
      end
    end
  end
  return best[3], best[4], best[5]
end

------------------------------------------------------------------------------------
-- gpu.einsum

-- The operands and the options table (a last table that is not an array)
local function arguments(subscripts, ...)
  local n = select("#", ...)
  local last = n > 0 and select(n, ...) or nil
  local opts = type(last) == "table" and last[1] == nil and last or nil   -- {1, 2}: a bad operand
  -- a nil where the options go is none; one where an operand the subscripts name goes is that
  -- operand (gpu.einsum("ij,jk", a, nil) names operand 2)
  local lhs = type(subscripts) == "string" and (subscripts:match("^(.-)%->") or subscripts) or ""
  local named = select(2, lhs:gsub(",", ",")) + 1
  if opts or (n > 0 and last == nil and n - 1 >= named) then n = n - 1 end
  if n == 0 then error("gpu.einsum: no operands given after the subscripts") end
  local xs = {}
  for k = 1, n do
    local x = select(k, ...)
    if not is_array(x) and type(x) ~= "number" then
      error(("gpu.einsum: operand %d must be a device array or a number, got %s"):format(k, described(x)))
    end
    if type(x) ~= "number" and gpu._arg.freed(x) then
      error(("gpu.einsum: operand %d is a freed array"):format(k))
    end
    xs[k] = x
  end
  return xs, gpu._arg.options(opts, "einsum", "out")
end

local function into(out, r, fresh)
  if not is_array(out) then error(("gpu.einsum: out must be a device array, got %s"):format(described(out))) end
  local so, sr = out.shape, r.shape
  local same = #so == #sr
  for d = 1, #so do same = same and so[d] == sr[d] end
  if not same then
    error(("gpu.einsum: out has shape {%s} but the result has shape {%s}"):format(
      table.concat(so, ", "), table.concat(sr, ", ")))
  end
  if KIND_RANK[KIND[out.dtype]] < KIND_RANK[KIND[r.dtype]] or (KIND[out.dtype] == "u" and KIND[r.dtype] == "i") then
    error(("gpu.einsum: out is %s, and the result (%s) cannot be cast to it"):format(out.dtype, r.dtype))
  end
  -- a view of an operand may overlap out: copied first
  return out:copy_(fresh and r or r:copy())
end

function gpu.einsum(subscripts, ...)
  local xs, opts = arguments(subscripts, ...)
  local terms, rhs = split(subscripts, #xs)
  local dt = gpu.result_type(table.unpack(xs))
  for k, x in ipairs(xs) do
    if type(x) == "number" then
      local ok, v = pcall(gpu.full, {}, x, dt)
      if not ok then error(("gpu.einsum operand %d: %s"):format(k, gpu._arg.unwrapped(v)), 2) end
      xs[k] = v
    end
  end
  local labels, E = input_labels(terms, xs)
  local out = output_labels(rhs, labels, E)
  gpu._arg.dims(#out, "einsum", 3)
  local sizes = label_sizes(xs, labels)
  local ops = {}
  for k, x in ipairs(xs) do
    local op = {x = as(x, dt), ls = labels[k], fresh = x.dtype ~= dt}
    ops[k] = unbroadcast(diagonals(op), sizes)
  end
  for k = 1, #ops do ops[k] = sum_out(ops[k], needed_besides(ops, k, k, out), sizes, dt) end
  while #ops > 1 do
    local i, j, needed = next_pair(ops, out, sizes)
    local r = contract(ops[i], ops[j], needed, sizes, dt)
    table.remove(ops, j)
    table.remove(ops, i)
    ops[#ops + 1] = r
  end
  local op = sum_out(ops[1], set_of(out), sizes, dt)
  local r = arrange(op, out)
  if opts.out ~= nil then
    if gpu._is_array(opts.out) then gpu._arg.writeable(opts.out, "einsum", "out") end
    return into(opts.out, r, op.fresh)
  end
  -- no work done: a view of the operand, as NumPy's (never the operand itself)
  return op.fresh and r or r:reshape(r.shape)
end

-- gpu.vdot(a, b): NumPy's vdot: the sum of conj(a) * b over both flattened (as many elements)
function gpu.vdot(a, b)
  for k = 1, 2 do   -- (each: ipairs stopped at a nil b)
    local x = k == 1 and a or b
    if not is_array(x) then
      error(("gpu.vdot: argument %d must be a device array, got %s"):format(k, described(x)))
    end
  end
  if a.size ~= b.size then
    error(("gpu.vdot: a has %d elements and b %d: they must have as many"):format(a.size, b.size))
  end
  if KIND[a.dtype] == "c" then a = gpu.conj(a) end
  return gpu.einsum("i,i->", a:reshape(a.size), b:reshape(b.size))
end

-- their arrays on the current device, checked first (an operation inside named itself)
local OPERANDS = setmetatable({"subscripts"}, {__index = function(_, k) return ("operand %d"):format(k - 1) end})
gpu.einsum = gpu._api(gpu._arg.on_device("einsum", gpu.einsum, OPERANDS))
gpu.vdot = gpu._api(gpu._arg.on_device("vdot", gpu.vdot))

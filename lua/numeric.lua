-- numeric.lua: NumPy's numerical helpers made of the module's own operations, views, scans
-- and sorts: differences (gradient, ediff1d, unwrap, nancumsum), histograms of several
-- dimensions, polynomials on coefficient arrays, windows, and small constructors and
-- queries of shapes. Loaded at the first call of one (lua/gpu.lua). Dimensions and indices
-- are 1-based, negative ones counting from the end, as everywhere in gpuhost.
local gpu = ...

local is_array, described = gpu._is_array, gpu._described

local KIND = {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name] = d.kind end

local show, integer, count, dim_of = gpu._arg.shown, gpu._arg.integer, gpu._arg.count, gpu._arg.dim_of
-- a device array (argument 1, unless `what` names it)
local function device_array(a, api, what) return gpu._arg.array(a, api, what or "argument 1") end

local function options(opts, api, at, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" or is_array(opts) then
    error(("gpu.%s: argument %d must be a table of options, got %s"):format(api, at, described(opts)), 3)
  end
  return gpu._arg.options(opts, api, known)
end

-- A shape of ndim ones but size n at dimension d: how a 1-D array lines up along d
local function along(n, d, ndim)
  local s = {}
  for k = 1, ndim do s[k] = k == d and n or 1 end
  return s
end

------------------------------------------------------------------------------------------
-- Differences and running sums

-- gpu.gradient's spacing for one dimension of size n: a number, or the differences of
-- coordinates (a 1-D array or a table of n), a number again when they are all one (as NumPy does)
local function spacing_of(h, n, api)
  if type(h) == "number" then return h end
  if type(h) == "table" and not is_array(h) then h = gpu.array(h, "float64") end
  if not is_array(h) or h.ndim ~= 1 then
    error(("gpu.%s: a spacing must be a number or a 1-D device array of coordinates, got %s"):format(
      api, is_array(h) and h.ndim .. "-D array" or described(h)), 3)
  end
  if h.size ~= n then
    error(("gpu.%s: coordinates of %d elements for a dimension of %d"):format(api, h.size, n), 3)
  end
  if KIND[h.dtype] ~= "f" then h = h:astype("float64") end
  local dx = gpu.diff(h)
  if dx.size > 0 and gpu.all(dx:eq(dx:item(1))) then return dx:item(1) end
  return dx
end

-- The gradient of f along d (size n >= edge + 1) into out: central differences inside,
-- one-sided ones (first or second order) at the ends, as NumPy's formulas
local function gradient_along(f, out, d, dx, edge)
  local n, nd = f.shape[d], f.ndim
  local function at(i, len) return f:narrow(d, i, len or n - i + 1) end
  local uniform = type(dx) == "number"
  if uniform then
    out:narrow(d, 2, n - 2):copy_((at(3) - at(1, n - 2)) / (2.0 * dx))
  else
    local dx1, dx2 = dx:narrow(1, 1, n - 2), dx:narrow(1, 2, n - 2)
    local a = (-dx2 / (dx1 * (dx1 + dx2))):reshape(along(n - 2, d, nd))
    local b = ((dx2 - dx1) / (dx1 * dx2)):reshape(along(n - 2, d, nd))
    local c = (dx1 / (dx2 * (dx1 + dx2))):reshape(along(n - 2, d, nd))
    out:narrow(d, 2, n - 2):copy_(a * at(1, n - 2) + b * at(2, n - 2) + c * at(3))
  end
  local first = uniform and dx or dx:item(1)
  local last = uniform and dx or dx:item(n - 1)
  if edge == 1 then
    out:narrow(d, 1, 1):copy_((at(2, 1) - at(1, 1)) / first)
    out:narrow(d, n, 1):copy_((at(n, 1) - at(n - 1, 1)) / last)
    return
  end
  local a, b, c
  if uniform then
    a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
  else
    local h1, h2 = first, dx:item(2)
    a, b, c = -(2.0 * h1 + h2) / (h1 * (h1 + h2)), (h1 + h2) / (h1 * h2), -h1 / (h2 * (h1 + h2))
  end
  out:narrow(d, 1, 1):copy_(at(1, 1) * a + at(2, 1) * b + at(3, 1) * c)
  if uniform then
    a, b, c = 0.5 / dx, -2.0 / dx, 1.5 / dx
  else
    local h1, h2 = dx:item(n - 2), last
    a, b, c = h2 / (h1 * (h1 + h2)), -(h2 + h1) / (h1 * h2), (2.0 * h2 + h1) / (h2 * (h1 + h2))
  end
  out:narrow(d, n, 1):copy_(at(n - 2, 1) * a + at(n - 1, 1) * b + at(n, 1) * c)
end

-- gpu.gradient(f [, spacing...] [, {dim =, edge_order =}]): NumPy's gradient, one array a
-- dimension (those of dim: a number or a table; all by default), as many results
function gpu.gradient(f, ...)
  device_array(f, "gradient", "f")
  local args = table.pack(...)
  -- a nil in the options' place is none, and the table before it the options: a wrapper's
  -- f(x, h, opts) called as f(x, {dim = 1}) (the options were read as coordinates)
  if args.n > 0 and args[args.n] == nil then args.n = args.n - 1 end
  local opts = {}
  local last = args[args.n]
  if args.n > 0 and type(last) == "table" and not is_array(last) and #last == 0 then   -- options, not coordinates
    opts = gpu._arg.options(args[args.n], "gradient", "dim edge_order")
    args.n = args.n - 1
  end
  if f.dtype == "bool" then error("gpu.gradient: f is bool: NumPy cannot subtract booleans", 2) end
  if KIND[f.dtype] ~= "f" and KIND[f.dtype] ~= "c" then f = f:astype("float64") end
  local dims = opts.dim or {}
  if type(dims) ~= "table" then dims = {dims} end
  gpu._arg.list(dims, "gradient", "dim")   -- ({1, nil, 2} was {1})
  if opts.dim == nil then for k = 1, f.ndim do dims[k] = k end end
  for i, d in ipairs(dims) do dims[i] = dim_of(d, f.ndim, "gradient") end
  local edge = opts.edge_order or 1
  if edge ~= 1 and edge ~= 2 then error(("gpu.gradient: edge_order must be 1 or 2, got %s"):format(gpu._arg.choice(edge)), 2) end
  if args.n > 1 and args.n ~= #dims or args.n == 1 and type(args[1]) ~= "number" and #dims ~= 1 then
    error(("gpu.gradient: %d spacings for %d dimensions (give one, or one a dimension)"):format(args.n, #dims), 2)
  end
  local out = {}
  for i, d in ipairs(dims) do
    local n = f.shape[d]
    if n < edge + 1 then
      error(("gpu.gradient: dimension %d has %d elements: edge_order %d needs at least %d"):format(d, n, edge, edge + 1), 2)
    end
    local dx = spacing_of(args.n == 0 and 1.0 or args[args.n == 1 and 1 or i], n, "gradient")
    out[i] = gpu.empty(f.shape, f.dtype)
    gradient_along(f, out[i], d, dx, edge)
  end
  return table.unpack(out, 1, #dims)
end

-- A number, a table or an array as a 1-D array of dtype dt (ediff1d's ends)
-- f(...)'s array, or its error as api's about `what` (not gpu.full's argument 2), at level 4
local function made(api, what, ok, v)
  if ok then return v end
  error(("gpu.%s: %s: %s"):format(api, what, gpu._arg.unwrapped(v)), 4)
end
local function values_of(v, dt, api, what)
  if v == nil then return nil end
  if type(v) == "number" then return made(api, what, pcall(gpu.full, 1, v, dt)) end
  if type(v) == "table" and not is_array(v) then return made(api, what, pcall(gpu.array, #v > 0 and v or {}, dt)) end
  if not is_array(v) then error(("gpu.%s: %s must be a number, a table or a device array, got %s"):format(api, what, described(v)), 3) end
  if gpu.result_type(v.dtype, dt) ~= dt and KIND[v.dtype] ~= KIND[dt] then
    error(("gpu.%s: %s is %s: it cannot be cast safely to the input's %s"):format(api, what, v.dtype, dt), 3)
  end
  return v:reshape(-1):astype(dt)
end

-- gpu.ediff1d(a [, to_end [, to_begin]]): the differences of a flattened, with to_begin
-- before them and to_end after (numbers, tables or arrays, in a's dtype), as NumPy's
function gpu.ediff1d(a, to_end, to_begin)
  device_array(a, "ediff1d", "a")
  if a.dtype == "bool" then error("gpu.ediff1d: a is bool: NumPy cannot subtract booleans", 2) end
  local flat = a:reshape(-1)
  local parts = {values_of(to_begin, a.dtype, "ediff1d", "to_begin")}
  parts[#parts + 1] = flat.size > 1 and gpu.diff(flat) or gpu.empty(0, a.dtype)
  parts[#parts + 1] = values_of(to_end, a.dtype, "ediff1d", "to_end")
  return #parts == 1 and parts[1] or gpu.concatenate(parts)
end

-- gpu.unwrap(p [, {discont =, dim =, period =}]): p with jumps of more than discont
-- (period / 2 by default) along dim (the last) shifted by multiples of period (2π), as
-- NumPy's: each difference taken into [-period/2, period/2), the corrections summed
function gpu.unwrap(p, opts)
  device_array(p, "unwrap", "p")
  opts = options(opts, "unwrap", 2, "discont dim period")
  if KIND[p.dtype] == "c" or p.dtype == "bool" then error(("gpu.unwrap: p must be real numbers, got %s"):format(p.dtype), 2) end
  if p.ndim == 0 then error("gpu.unwrap: a 0-D array has no dimension to unwrap", 2) end
  local period = opts.period or 2 * math.pi
  if type(period) ~= "number" then error(("gpu.unwrap: period must be a number, got %s"):format(type(period)), 2) end
  local discont = opts.discont or period / 2
  local d = dim_of(opts.dim or -1, p.ndim, "unwrap")
  local dd = gpu.diff(p, 1, d)
  local dt = gpu.result_type(dd, period)
  local high, ambiguous = period / 2, true
  if KIND[dt] ~= "f" then high, ambiguous = period // 2, period % 2 == 0 end
  local mod = (dd - -high) % period + -high
  if ambiguous then mod = gpu.where(gpu.logical_and(mod:eq(-high), dd:gt(0)), high, mod) end
  local correct = gpu.where(gpu.abs(dd):lt(discont), 0, mod - dd)
  local up = p:astype(dt)
  local n = p.shape[d]
  if n > 1 then up:narrow(d, 2, n - 1):copy_(p:narrow(d, 2, n - 1) + gpu.cumsum(correct, d)) end
  return up
end

-- gpu.nancumsum(a [, dim] [, opts]), gpu.nancumprod: cumsum and cumprod with NaNs read as
-- 0 and 1, as NumPy's (integers and bools have none); the scan's errors name the function
-- called ('gpu.cumsum: unknown option' was said of gpu.nancumsum's option)
local function nan_scan(api, from, identity)
  local scan = gpu[from]
  return function(a, ...)
    device_array(a, api, "a")
    if KIND[a.dtype] == "f" or KIND[a.dtype] == "c" then a = gpu.where(gpu.isnan(a), identity, a) end
    return gpu._arg.renamed(from, api, nil, pcall(scan, a, ...))
  end
end
gpu.nancumsum = nan_scan("nancumsum", "cumsum", 0)
gpu.nancumprod = nan_scan("nancumprod", "cumprod", 1)

------------------------------------------------------------------------------------------
-- Histograms

-- lo and hi of a histogram's range: given ({lo, hi}, or nil), or the data's least and
-- greatest (0 and 1 when empty), widened by 0.5 each way when equal, as NumPy's
local function range_of(x, range, api, what)
  local lo, hi
  if range ~= nil then
    if type(range) ~= "table" or is_array(range) or type(range[1]) ~= "number" or type(range[2]) ~= "number" then
      error(("gpu.%s: %s must be a table {lo, hi} of numbers"):format(api, what), 3)
    end
    lo, hi = range[1] + 0.0, range[2] + 0.0
    if lo > hi then error(("gpu.%s: %s's lo %s is above its hi %s"):format(api, what, show(lo), show(hi)), 3) end
  elseif x.size == 0 then
    lo, hi = 0.0, 1.0
  else
    lo, hi = gpu._arg.extent(x)
  end
  for _, v in ipairs({lo, hi}) do
    if v ~= v or v == math.huge or v == -math.huge then
      error(("gpu.%s: the range [%s, %s] is not finite: give a range"):format(api, show(lo), show(hi)), 3)
    end
  end
  if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  return lo, hi
end

-- bins equal bins' edges over x's range, in dtype et; or bins itself, a 1-D array of
-- increasing edges
local function edges_of(x, bins, range, et, api, what)
  if is_array(bins) then
    if bins.ndim ~= 1 or bins.size < 2 then error(("gpu.%s: bin edges must be a 1-D array of at least 2"):format(api), 3) end
    if gpu.any(gpu.diff(bins):lt(0)) then   -- (two edges too: {1, 0} counted nothing)
      error(("gpu.%s: bin edges must increase monotonically"):format(api), 3)
    end
    return bins
  end
  local n = count(bins, api, "bins")
  if n == 0 then error(("gpu.%s: bins must be positive"):format(api), 3) end
  gpu._arg.bins(n, api, 4)
  local lo, hi = range_of(x, range, api, what)
  return gpu._arg.distinct_edges(gpu.linspace(lo, hi, n + 1, {dtype = et}), lo, hi, n, et, api)
end

local function real(a, api, what)
  device_array(a, api, what)
  if KIND[a.dtype] == "c" then error(("gpu.%s: %s is complex: it has no order"):format(api, what), 3) end
  return a.dtype == "bool" and a:astype("uint8") or a
end

-- gpu.histogram_bin_edges(a [, bins [, range]]): the edges gpu.histogram(a, bins,
-- {range = range}) gives (float16 and float32 for such data, else float64), as NumPy's
function gpu.histogram_bin_edges(a, bins, range)
  a = real(a, "histogram_bin_edges", "a")
  local et = (a.dtype == "float32" or a.dtype == "float16") and a.dtype or "float64"
  if et == "float16" and type(range) == "table" and type(range[1]) == "number" and type(range[2]) == "number"
     and math.max(-range[1], range[2]) > 65504 then et = "float32" end
  return edges_of(a, bins or 10, range, et, "histogram_bin_edges", "range")
end

-- The 0-based bin of each of x's values among edges (n + 1 of them), as NumPy's
-- histogramdd: searchsorted right, the last edge in the last bin; -1 and n outside
local function bin_index(x, edges)
  local n = edges.size - 1
  local i = gpu.searchsorted(edges, x, {side = "right"}) - 2   -- it counts from 1
  return gpu.where(x:eq(edges:item(n + 1)), n - 1, i)
end

-- gpu.histogramdd(sample, bins [, range] [, {density =, weights =}]): counts (float64, one
-- dimension a coordinate) of the points of sample (an N x D array, or a table of D 1-D
-- arrays) in the grid of bins (a number, or one a coordinate: a number or an array of
-- edges) over range (one {lo, hi} a coordinate), and a table of the D edge arrays
-- (float64), as NumPy's: a bincount of the points' combined bin indices (the sums of their
-- weights); density: divided by the total and each bin's volume
function gpu.histogramdd(sample, bins, range, opts)
  if opts == nil and type(range) == "table" and (range.density ~= nil or range.weights ~= nil) then range, opts = nil, range end
  opts = gpu._arg.options(opts, "histogramdd", "density weights")
  local density = gpu._arg.flag(opts, "density", "histogramdd")
  local cols = {}
  if is_array(sample) then
    real(sample, "histogramdd", "sample")
    if sample.ndim ~= 2 then error(("gpu.histogramdd: sample must be N x D, got %d-D"):format(sample.ndim), 2) end
    for k = 1, sample.shape[2] do cols[k] = sample:select(2, k) end
  elseif type(sample) == "table" and #sample > 0 then
    gpu._arg.array_list(sample, "histogramdd", "sample", 1, "options go after it")
    for k = 1, #sample do
      local c = sample[k]
      cols[k] = real(c, "histogramdd", ("sample[%d]"):format(k))
      if c.ndim ~= 1 or c.size ~= sample[1].size then
        error("gpu.histogramdd: the coordinates must be 1-D arrays of one length", 2)
      end
    end
  else
    error(("gpu.histogramdd: sample must be a device array or a table of them, got %s"):format(described(sample)), 2)
  end
  local dims = gpu._arg.dims(#cols, "histogramdd", 3)   -- (a dim a coordinate)
  bins = bins or 10
  if type(bins) ~= "table" then local b = bins; bins = {} for k = 1, dims do bins[k] = b end end
  gpu._arg.array_list(bins, "histogramdd", "bins", 1, "options go after it")
  if #bins ~= dims then error(("gpu.histogramdd: %d bins for %d coordinates"):format(#bins, dims), 2) end
  if range ~= nil and (type(range) ~= "table" or #range ~= dims) then
    error(("gpu.histogramdd: range must be a table of %d {lo, hi} pairs"):format(dims), 2)
  end
  if range ~= nil then gpu._arg.list(range, "histogramdd", "range") end
  local cells = 1   -- the counts' (2^30 bins a coordinate made 2^30 edges each first)
  for k = 1, dims do
    local b = bins[k]
    local n = is_array(b) and b.size - 1 or type(b) == "number" and b >= 1 and b < 2 ^ 62 and math.tointeger(b)
    if n and n > 0 then cells = gpu._arg.elements(gpu._arg.times(cells, n, "histogramdd", "bins", 3), "histogramdd", 3) end
  end
  local edges, flat, shape, total = {}, nil, {}, 1
  for k = dims, 1, -1 do   -- the last coordinate varies fastest, as in C order
    local x = cols[k]:astype("float64")
    edges[k] = edges_of(x, bins[k], range and range[k], "float64", "histogramdd", "range[" .. k .. "]"):astype("float64")
    local n = edges[k].size - 1
    local i = bin_index(x, edges[k])
    local inside = gpu.logical_and(i:ge(0), i:lt(n))
    if flat then inside = gpu.logical_and(inside, flat:ge(0)) end   -- outside in any coordinate: outside
    flat = flat and gpu.where(inside, flat + i * total, -1) or gpu.where(inside, i, -1)
    shape[k], total = n, total * n
  end
  local kept = flat:ge(0)
  local w = opts.weights
  if w ~= nil then
    if not is_array(w) or w.ndim ~= 1 or w.size ~= cols[1].size then
      error(("gpu.histogramdd: weights must be a 1-D device array of the %d points' weights"):format(cols[1].size), 2)
    end
    w = gpu.extract(kept, w)
  end
  local counts = gpu.bincount(gpu.extract(kept, flat), {minlength = total, weights = w}):astype("float64"):reshape(shape)
  if density then   -- over each coordinate's bin widths, then the total, as NumPy's
    local total_count = gpu.sum(counts)
    for k = 1, dims do
      local view = {}
      for j = 1, dims do view[j] = j == k and shape[k] or 1 end
      counts = counts / gpu.diff(edges[k]):reshape(view)
    end
    counts = counts / total_count
  end
  return counts, edges
end

-- gpu.histogram2d(x, y [, bins [, range]] [, opts]): gpu.histogramdd({x, y}, bins, range,
-- opts): the counts (float64, x along dimension 1) and the edges of x and of y, as NumPy's
function gpu.histogram2d(x, y, bins, range, opts)
  real(x, "histogram2d", "x"); real(y, "histogram2d", "y")
  if type(bins) == "table" and not is_array(bins) and #bins ~= 2 then
    error(("gpu.histogram2d: bins must be a number, an array or a pair of them (x's, y's), got a table of %d"):format(#bins), 2)
  end
  if x.ndim ~= 1 or y.ndim ~= 1 or x.size ~= y.size then
    error("gpu.histogram2d: x and y must be 1-D arrays of one length", 2)
  end
  if opts == nil and type(range) == "table" and (range.density ~= nil or range.weights ~= nil) then range, opts = nil, range end
  if opts ~= nil and type(opts) ~= "table" then error("gpu.histogram2d: argument 5 must be a table of options", 2) end
  local w = opts and opts.weights
  if w ~= nil and not (is_array(w) and w.ndim == 1 and w.size == x.size) then
    error(("gpu.histogram2d: weights must be a 1-D device array of the %d points' weights"):format(x.size), 2)
  end
  opts = gpu._arg.options(opts, "histogram2d", "density weights")
  local ok, h, e = pcall(gpu.histogramdd, {x, y}, bins, range, opts)
  if not ok then   -- (its words named histogramdd)
    error(type(h) == "string" and gpu._arg.unwrapped(h):gsub("^gpu%.histogramdd:", "gpu.histogram2d:") or h, 2)
  end
  return h, e[1], e[2]
end

------------------------------------------------------------------------------------------
-- Polynomials: 1-D coefficient arrays, the highest power first, as NumPy's poly functions

local function poly(p, api, what)
  if type(p) == "table" and not is_array(p) then p = gpu._arg.list_array(p) end
  if type(p) == "number" then p = gpu.full(1, p, math.type(p) == "integer" and "int64" or "float64") end
  device_array(p, api, what)
  if p.ndim ~= 1 then error(("gpu.%s: %s must be 1-D coefficients, got %d-D"):format(api, what, p.ndim), 3) end
  return p
end

-- a and b with zeros before the shorter, so that their powers line up
local function aligned(a, b)
  local n = math.max(a.size, b.size)
  if a.size < n then a = gpu.concatenate({gpu.zeros(n - a.size, a.dtype), a}) end
  if b.size < n then b = gpu.concatenate({gpu.zeros(n - b.size, b.dtype), b}) end
  return a, b
end

-- gpu.polyadd(a, b), gpu.polysub(a, b): sum and difference; gpu.polymul(a, b): product (a
-- convolution)
function gpu.polyadd(a, b)
  a, b = aligned(poly(a, "polyadd", "a"), poly(b, "polyadd", "b"))
  return a + b
end
function gpu.polysub(a, b)
  a, b = aligned(poly(a, "polysub", "a"), poly(b, "polysub", "b"))
  return a - b
end
-- p without its leading zeros (one zero when all are), as NumPy's poly1d reads it
local function trimmed(p)
  local nz = p:ne(0)
  if p.size == 0 or not gpu.any(nz) then return gpu.zeros(1, p.dtype) end
  return p[{{gpu.argmax(nz), -1}}]
end
function gpu.polymul(a, b)   -- as NumPy's, through poly1d: leading zeros dropped first
  return gpu.convolve(trimmed(poly(a, "polymul", "a")), trimmed(poly(b, "polymul", "b")))
end

-- gpu.polyder(p [, m]): the m-th derivative (1 by default), each one p[i] times its power
-- (an int64 array, so the dtype is NumPy's: float32 coefficients give float64)
function gpu.polyder(p, m)
  p = poly(p, "polyder", "p")
  m = count(m or 1, "polyder", "m")
  for _ = 1, m do
    local n = p.size - 1
    if n <= 0 then return gpu.empty(0, gpu.result_type(p, "int64")) end
    p = p:narrow(1, 1, n) * gpu.arange(n, 0, -1, "int64")
  end
  return m == 0 and p:copy() or p
end

-- gpu.polyint(p [, m [, k]]): the m-th antiderivative (1 by default) with integration
-- constants k (a number for all, or a table of m; zeros by default), as NumPy's (float64)
function gpu.polyint(p, m, k)
  p = poly(p, "polyint", "p")
  m = count(m or 1, "polyint", "m")
  if type(k) == "number" then local v = k; k = {} for i = 1, math.max(m, 1) do k[i] = v end end
  k = k or {}
  if type(k) ~= "table" or is_array(k) then error("gpu.polyint: k must be a number or a table of numbers", 2) end
  if #k == 0 then for i = 1, m do k[i] = 0.0 end end
  if #k == 1 and m > 1 then for i = 2, m do k[i] = k[1] end end
  if #k < m then error(("gpu.polyint: %d constants for %d integrations"):format(#k, m), 2) end
  if m == 0 then return p:copy() end
  for i = 1, m do
    local n = p.size
    local c = gpu.full(1, k[i], KIND[p.dtype] == "c" and "complex128" or "float64")
    p = gpu.concatenate({p / gpu.arange(n, 0, -1, "int64"), c})
  end
  return p
end

-- Rounds x to the nearest float32, for host arithmetic that gives float32's bits
local function single(x) return (string.unpack("<f", string.pack("<f", x))) end

-- gpu.polydiv(u, v): quotient and remainder of u by v, as NumPy's: long division (on the
-- host: each step needs the last; float32 and float16 keep their dtype, rounded as NumPy's
-- each step),
-- leading remainder terms within 1e-8 of 0 dropped
function gpu.polydiv(u, v)
  u, v = poly(u, "polydiv", "u"), poly(v, "polydiv", "v")
  if KIND[u.dtype] == "c" or KIND[v.dtype] == "c" then error("gpu.polydiv: complex coefficients are not supported", 2) end
  if u.size == 0 or v.size == 0 then error("gpu.polydiv: u and v must have coefficients", 2) end
  local dt = gpu.result_type(u, v, 0.0)
  local r, d = u:astype("float64"):totable(), v:astype("float64"):totable()
  local round = dt == "float32" and single or function(x) return x end
  if dt == "float16" then   -- rounded each step too, through a host array's element
    local h = gpu.host.array({0}, "float16")
    round = function(x) h[1] = x; return h[1] end
  end
  if d[1] == 0 then error("gpu.polydiv: v's leading coefficient is 0", 2) end
  local m, n = #r - 1, #d - 1
  local scale = 1.0 / d[1]   -- a float64 scalar in NumPy, as is scale * r[k]; d * v is float32 again
  local q = {}
  for i = 1, math.max(m - n + 1, 1) do q[i] = 0.0 end
  for k = 1, m - n + 1 do
    local f = round(scale * r[k])
    q[k] = f
    for j = 0, n do r[k + j] = round(r[k + j] - round(f * d[j + 1])) end
  end
  while #r > 1 and math.abs(r[1]) <= 1e-8 do table.remove(r, 1) end
  return gpu.array(q, dt), gpu.array(r, dt)
end

------------------------------------------------------------------------------------------
-- Windows (float64, as NumPy's)

local function window_size(M, api)
  M = integer(M, api, "M")
  if M < 1 then return nil end
  gpu._arg.elements(M, api, 4)
  return M
end

-- n = 1 - M, 3 - M, ..., M - 1 over M - 1: the window's abscissa from -1 to 1
local function abscissa(M) return gpu.arange(1 - M, M, 2, "float64") / (M - 1) end

-- gpu.bartlett(M), blackman, hamming, hanning: NumPy's windows of M points (empty for M
-- < 1, a 1 for M = 1)
local function window(api, of)
  return function(M)
    M = window_size(M, api)
    if not M then return gpu.empty(0, "float64") end
    if M == 1 then return gpu.ones(1, "float64") end
    return of(abscissa(M))
  end
end
gpu.bartlett = window("bartlett", function(x) return gpu.where(x:le(0), 1 + x, 1 - x) end)
gpu.blackman = window("blackman", function(x)
  return 0.42 + 0.5 * gpu.cos(math.pi * x) + 0.08 * gpu.cos(2.0 * math.pi * x)
end)
gpu.hamming = window("hamming", function(x) return 0.54 + 0.46 * gpu.cos(math.pi * x) end)
gpu.hanning = window("hanning", function(x) return 0.5 + 0.5 * gpu.cos(math.pi * x) end)

-- The modified Bessel function I0 by its power series, sum of ((x/2)^k / k!)^2: terms all
-- positive, so no cancellation (a few ulp), for the few numbers a window needs
local function i0(x)
  if x ~= x or x == math.huge or x == -math.huge then return x * x end   -- the series would not end
  local q, term, sum, k = x * x / 4, 1.0, 1.0, 0
  repeat
    k = k + 1
    term = term * q / (k * k)
    sum = sum + term
  until term <= sum * 1e-17
  return sum
end

-- gpu.kaiser(M, beta): NumPy's Kaiser window, I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) /
-- I0(beta): the points by gpu.i0 on the device (a table of M host values took minutes for
-- M = 2^31), I0(beta) on the host
function gpu.kaiser(M, beta)
  M = window_size(M, "kaiser")
  if type(beta) ~= "number" then error(("gpu.kaiser: beta must be a number, got %s"):format(type(beta)), 2) end
  if not M then return gpu.empty(0, "float64") end
  if M == 1 then return gpu.ones(1, "float64") end
  local alpha = (M - 1) / 2.0
  local t = (gpu.arange(M, "float64") - alpha) / alpha
  return gpu.i0(gpu.sqrt(1 - t * t) * beta) / i0(beta + 0.0)
end

------------------------------------------------------------------------------------------
-- Constructors and index helpers

-- gpu.tri(N [, M [, k]] [, dtype]): N x M (M = N) ones at and below diagonal k, zeros
-- above (float32 by default, as gpu.eye)
function gpu.tri(N, M, k, dtype)
  local at = type(M) == "string" and 2 or type(k) == "string" and 3 or 4
  if type(M) == "string" then M, k, dtype = nil, nil, M elseif type(k) == "string" then k, dtype = nil, k end
  if dtype ~= nil then gpu._arg.dtype(dtype, "tri", at) end
  N = count(N, "tri", "N")
  M = M == nil and N or count(M, "tri", "M")
  k = integer(k or 0, "tri", "k")
  gpu._arg.elements(gpu._arg.times(N, M, "tri", "columns", 3), "tri", 3)
  gpu._arg.reach({N, M}, "tri", 3)   -- (tri(0, 2^62) said arange's words)
  if N == 0 or M == 0 then return gpu.zeros({N, M}, dtype or "float32") end   -- (no arange of 2^40)
  local rows = gpu.arange(N, "int64"):unsqueeze(2)
  local cols = gpu.arange(M, "int64"):unsqueeze(1)
  return (cols - rows):le(k):astype(dtype or "float32")
end

-- gpu.diag_indices(n [, ndim]): ndim (2) int64 arrays 1, ..., n: the main diagonal of an
-- ndim-D array of sides n; gpu.diag_indices_from(a): that of a (all sides equal)
function gpu.diag_indices(n, ndim)
  n = gpu._arg.elements(count(n, "diag_indices", "n"), "diag_indices", 3)
  ndim = count(ndim or 2, "diag_indices", "ndim")
  local idx, out = gpu.arange(1, n + 1, "int64"), {}
  for k = 1, ndim do out[k] = k == 1 and idx or idx:copy() end
  return table.unpack(out, 1, ndim)
end

function gpu.diag_indices_from(a)
  device_array(a, "diag_indices_from", "a")
  if a.ndim < 2 then error(("gpu.diag_indices_from: a must be at least 2-D, got %d-D"):format(a.ndim), 2) end
  local s = a.shape
  for k = 2, #s do
    if s[k] ~= s[1] then error(("gpu.diag_indices_from: all of a's dimensions must be of one size, got {%s}"):format(table.concat(s, ", ")), 2) end
  end
  return gpu.diag_indices(s[1], #s)
end

-- gpu.tril_indices_from(a [, k]), gpu.triu_indices_from: gpu.tril_indices for matrix a's shape
local function triangle_from(api, of)
  return function(a, k)
    device_array(a, api, "a")
    if a.ndim ~= 2 then error(("gpu.%s: a must be 2-D, got %d-D"):format(api, a.ndim), 2) end
    return gpu._arg.renamed(of, api, nil, pcall(gpu[of], a.shape[1], k or 0, a.shape[2]))
  end
end
gpu.tril_indices_from = triangle_from("tril_indices_from", "tril_indices")
gpu.triu_indices_from = triangle_from("triu_indices_from", "triu_indices")

-- fill_diagonal's val as an array of a's dtype, as a[{...}] = v stores it: an array cast,
-- a Lua value checked (where, given val as it came, refused 2.0 into int32 or 5 into bool)
local function diagonal_values(val, dtype)
  if is_array(val) then return val.dtype == dtype and val or val:astype(dtype) end
  local ok, v
  if type(val) == "table" then ok, v = pcall(gpu.array, val, dtype)
  elseif type(val) == "number" or type(val) == "boolean" then ok, v = pcall(gpu.full, {}, val, dtype)
  else
    error(("gpu.fill_diagonal: val must be a number, a boolean, a table or a device array, got %s"):format(described(val)), 3)
  end
  if not ok then error(("gpu.fill_diagonal: val: %s"):format(gpu._arg.unwrapped(v)), 3) end
  return v
end

-- gpu.fill_diagonal(a, val [, wrap]): writes val (a number, boolean, table or 1-D array,
-- its values repeated) on a's main diagonal in place, as NumPy's: the flat positions 0,
-- step, 2 step, ... (step = 1 + the sum of the running products of the sides), for a tall
-- matrix also past the first square when wrap
function gpu.fill_diagonal(a, val, wrap)
  gpu._arg.writeable(device_array(a, "fill_diagonal", "a"), "fill_diagonal", "a")
  if a.ndim < 2 then error(("gpu.fill_diagonal: a must be at least 2-D, got %d-D"):format(a.ndim), 2) end
  if wrap ~= nil and type(wrap) ~= "boolean" then   -- (0 and "false" wrapped, as Lua's truth has them)
    error(("gpu.fill_diagonal: wrap must be a boolean, got %s"):format(gpu._described(wrap)), 2)
  end
  local s, step, stop = a.shape, nil, a.size
  if a.ndim == 2 then
    step = s[2] + 1
    if not wrap then stop = math.min(a.size, s[2] * s[2]) end
  else
    local run = 1
    step = 1
    for k = 1, #s do
      if s[k] ~= s[1] then error(("gpu.fill_diagonal: all of a's dimensions must be of one size, got {%s}"):format(table.concat(s, ", ")), 2) end
      if k < #s then run = run * s[k]; step = step + run end
    end
  end
  if a.size == 0 then return end
  local idx = gpu.arange(a.size, "int64")
  local mask = gpu.logical_and((idx % step):eq(0), idx:lt(stop)):reshape(s)
  val = diagonal_values(val, a.dtype)
  if val.ndim > 0 then
    if val.size == 0 then return end
    val = gpu.take(val, (idx // step) % val.size + 1):reshape(s)
  end
  gpu.where(mask, val, a, {out = a})
end

-- gpu.ix_(x1, ..., xn): open meshes, as NumPy's: xk (a 1-D array or a table; a bool one
-- gives its nonzero 1-based indices) as a view of n dimensions along dimension k
function gpu.ix_(...)
  local xs = table.pack(...)
  local out = {}
  for k = 1, xs.n do
    local x = xs[k]
    if type(x) == "table" and not is_array(x) then   -- (gpu.array's words, as ix_'s)
      local ok, r = pcall(gpu._arg.list_array, x)
      if not ok then error(("gpu.ix_: argument %d: %s"):format(k, gpu._arg.unwrapped(r)), 2) end
      x = r
    end
    if not is_array(x) then error(("gpu.ix_: argument %d must be a 1-D device array or a table, got %s"):format(k, described(x)), 2) end
    if x.ndim ~= 1 then error(("gpu.ix_: argument %d must be 1-D, got %d-D"):format(k, x.ndim), 2) end
    if x.dtype == "bool" then x = gpu.nonzero(x) end
    out[k] = x:reshape(along(x.size, k, gpu._arg.dims(xs.n, "ix_", 3)))
  end
  return table.unpack(out, 1, xs.n)
end

-- How deep the lists of gpu.block nest (the same at every leaf, as NumPy requires)
local function depth_of(t, at)
  if is_array(t) or type(t) == "number" then return 0 end
  if type(t) ~= "table" or #t == 0 then
    error(("gpu.block: %s must be an array, a number or a non-empty table of them, got %s"):format(at,
      type(t) == "table" and "an empty table" or described(t)), 4)
  end
  gpu._arg.array_list(t, "block", at, 4)
  local d = depth_of(t[1], at .. "[1]")
  for i = 2, #t do
    if depth_of(t[i], at .. "[" .. i .. "]") ~= d then
      error(("gpu.block: %s[%d] is nested %s deeply than %s[1]: lists must nest evenly"):format(at, i,
        depth_of(t[i], at) < d and "less" or "more", at), 4)
    end
  end
  return d + 1
end

local function leaf_ndim(t)
  if is_array(t) then return t.ndim end
  if type(t) == "number" then return 0 end
  local n = 0
  for _, v in ipairs(t) do n = math.max(n, leaf_ndim(v)) end
  return n
end

-- The block of t at nesting level `level` (1 outermost) of depth, arrays of ndim dimensions
local function assemble(t, level, depth, ndim)
  if type(t) == "number" then t = gpu.full({}, t, gpu.result_type(t)) end
  if is_array(t) then
    local s = t.shape
    while #s < ndim do table.insert(s, 1, 1) end
    return t:reshape(s)
  end
  local parts = {}
  for i, v in ipairs(t) do parts[i] = assemble(v, level + 1, depth, ndim) end
  return gpu.concatenate(parts, ndim - (depth - level))
end

-- gpu.block(nested): an array assembled from nested tables of arrays, as NumPy's block:
-- the innermost tables join along the last dimension, the next along the one before, ...
function gpu.block(nested)
  local depth = depth_of(nested, "argument 1")
  local ndim = math.max(depth, leaf_ndim(nested))
  local out = gpu._arg.renamed("concatenate", "block", nil, pcall(assemble, nested, 1, depth, ndim))
  return depth == 0 and out:copy() or out
end

------------------------------------------------------------------------------------------
-- Shapes and memory

local function shape_text(s) return "{" .. table.concat(s, ", ") .. "}" end

-- gpu.broadcast_shapes(s1, ...): the shape (a table) that shapes (tables or numbers)
-- broadcast to, as NumPy's
function gpu.broadcast_shapes(...)
  local shapes, nd = table.pack(...), 0
  for i = 1, shapes.n do
    local s = shapes[i]
    if type(s) == "number" then s = {s} end
    if type(s) ~= "table" or is_array(s) then error(("gpu.broadcast_shapes: argument %d must be a shape (a table or a number), got %s"):format(i, described(s)), 2) end
    gpu._arg.list(s, "broadcast_shapes", ("argument %d"):format(i))
    local sizes = {}   -- (a copy: the caller's table is left as it was)
    for k, v in ipairs(s) do sizes[k] = count(v, "broadcast_shapes", "a size") end
    shapes[i], nd = sizes, math.max(nd, #sizes)
  end
  local out = {}
  for k = 1, nd do out[k] = 1 end
  for i = 1, shapes.n do
    local s = shapes[i]
    for k = 1, #s do
      local at, v = nd - #s + k, s[k]
      if out[at] == 1 then out[at] = v
      elseif v ~= 1 and v ~= out[at] then
        error(("gpu.broadcast_shapes: shape %d %s does not broadcast with the others (dimension %d: %d against %d)"):format(
          i, shape_text(s), at, v, out[at]), 2)
      end
    end
  end
  local reach = 1.0   -- as gpu.broadcast_to refuses it (in float64: a product of integers would wrap)
  for k = 1, nd do reach = reach * math.max(out[k], 1) end
  if reach > 2 ^ 48 then   -- (NumPy: "broadcast dimensions too large"; it gave {2^62, 2^62})
    error(("gpu.broadcast_shapes: the broadcast shape %s is too large: more elements than an array holds (2^48)")
          :format(shape_text(out)), 2)
  end
  return out
end

local SIZE = {}
for _, d in ipairs(gpu._dtypes) do SIZE[d.name] = d.size end

-- The memory a's elements lie in: its owner and its first and past-last element offsets in it
local function extent(a)
  local lo, hi = a.offset, a.offset
  local shape, strides = a.shape, a.strides
  for k = 1, #shape do
    local reach = (shape[k] - 1) * strides[k]
    if reach < 0 then lo = lo + reach else hi = hi + reach end
  end
  return a.base or a, lo, hi + 1
end

-- The offsets of a's elements in its owner (an int64 array of a's shape)
local function offsets(a)
  local at = gpu.full({}, a.offset, "int64")
  for k = 1, a.ndim do at = at + gpu.arange(a.shape[k], "int64"):reshape(along(a.shape[k], k, a.ndim)) * a.strides[k] end
  return at
end

local function overlap(api, a, b)
  device_array(a, api, "a"); device_array(b, api, "b")
  if a.size == 0 or b.size == 0 then return false end
  local oa, la, ha = extent(a)
  local ob, lb, hb = extent(b)
  if not rawequal(oa, ob) then return false end
  return la < hb and lb < ha
end

-- gpu.may_share_memory(a, b): whether the memory spans of a and b overlap (as NumPy's, by
-- bounds); gpu.shares_memory(a, b): whether an element of each lies in one place (exact:
-- the elements' offsets in their owner compared, on the device)
function gpu.may_share_memory(a, b) return overlap("may_share_memory", a, b) end

function gpu.shares_memory(a, b)
  if not overlap("shares_memory", a, b) then return false end
  if SIZE[a.dtype] ~= SIZE[b.dtype] then return true end   -- views of one owner share its dtype
  return gpu.any(gpu.isin(offsets(a), offsets(b)))
end

-- gpu.transpose(a [, dims]): a view with the dimensions reversed, or dimension dims[k] at
-- k; gpu.reshape(a, shape [, order]): a:reshape(shape, order)
function gpu.transpose(a, dims)
  device_array(a, "transpose", "a")
  if dims == nil then
    dims = {}
    for k = 1, a.ndim do dims[k] = a.ndim + 1 - k end
  end
  if type(dims) ~= "table" or #dims ~= a.ndim then
    error(("gpu.transpose: dims must be a table of %d dimensions"):format(a.ndim), 2)
  end
  gpu._arg.list(dims, "transpose", "dims")
  local p, seen = {}, {}
  for k, d in ipairs(dims) do
    p[k] = dim_of(d, a.ndim, "transpose")
    if seen[p[k]] then error(("gpu.transpose: dimension %d appears twice"):format(p[k]), 2) end
    seen[p[k]] = true
  end
  if a.ndim < 2 then return a[{}] end
  return a:transpose(p)
end

function gpu.reshape(a, shape, order)
  device_array(a, "reshape", "a")
  return a:reshape(shape, order)
end

-- gpu.ndim(a), gpu.shape(a), gpu.size(a [, dim]) of an array or a number (0-D)
local function sized(a, api)
  if type(a) == "number" then return {} end
  return device_array(a, api, "a").shape
end
function gpu.ndim(a) return #sized(a, "ndim") end
function gpu.shape(a) return sized(a, "shape") end
function gpu.size(a, dim)
  local s = sized(a, "size")
  if dim ~= nil then return s[dim_of(dim, #s, "size")] end
  local n = 1
  for _, v in ipairs(s) do n = n * v end
  return n
end

-- gpu.asarray(x [, dtype]): x itself when a device array of dtype (or none given), else
-- gpu.array(x, dtype) (a table, a host array) or a 0-D array of a number
function gpu.asarray(x, dtype)
  if dtype ~= nil then dtype = gpu._arg.dtype(dtype, "asarray", 2) end   -- (a:astype named itself: 'astype')
  if is_array(x) then
    local _ = x.size   -- a freed array raises here, not in whatever is given it
    return (dtype == nil or x.dtype == dtype) and x or x:astype(dtype)
  end
  if type(x) == "number" or type(x) == "boolean" then return gpu.full({}, x, dtype or gpu.result_type(x)) end
  return gpu.array(x, dtype)
end

local NAMES = {"gradient", "ediff1d", "unwrap", "nancumsum", "nancumprod", "histogram_bin_edges", "histogram2d",
               "histogramdd", "polyadd", "polysub", "polymul", "polyder", "polyint", "polydiv", "bartlett",
               "blackman", "hamming", "hanning", "kaiser", "tri", "diag_indices", "diag_indices_from",
               "tril_indices_from", "triu_indices_from", "fill_diagonal", "ix_", "block", "broadcast_shapes",
               "may_share_memory", "shares_memory", "transpose", "reshape", "ndim", "shape", "size", "asarray"}
for _, name in ipairs(NAMES) do gpu[name] = gpu._api(gpu[name]) end

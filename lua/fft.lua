-- fft.lua: numpy.fft's helpers around the transforms (host/fft.c): the sample frequencies
-- (fftfreq, rfftfreq, computed in float64 as NumPy's, then made the dtype asked for) and
-- the shifts of the zero frequency to the middle and back (fftshift, ifftshift: gpu.roll).
-- Loaded at the first call of one (lua/gpu.lua). Dims are 1-based, negative from the end.
local gpu = ...
local fft = gpu.fft
local is_array, described, shown = gpu._is_array, gpu._described, gpu._arg.shown

-- n and d of fftfreq and rfftfreq: NumPy raises for n = 0 and d = 0 (a division by zero); an
-- n of more values than an array holds is refused here (it was arange's error, not naming
-- the function)
local function window(api, n, d)
  if math.type(n) == "float" and n == math.floor(n) then n = math.tointeger(n) or n end
  if math.type(n) ~= "integer" or n < 1 then
    error(("gpu.fft.%s: n must be a positive integer, got %s"):format(api, shown(n)), 3)
  end
  gpu._arg.elements(api == "fftfreq" and n or n // 2 + 1, "fft." .. api, 4)
  if d == nil then d = 1.0 end
  if type(d) ~= "number" or d == 0 or d ~= d then
    error(("gpu.fft.%s: d (the sample spacing) must be a nonzero number, got %s"):format(api, shown(d)), 3)
  end
  return n, 1.0 / (n * d)   -- NumPy multiplies by this, so the values are its bit for bit
end

-- The dtype option: a float dtype, as the frequencies are real (int64 made 0.25 a 0, bool
-- any nonzero a 1; NumPy's and CuPy's are float64, never complex)
local floats = {float16 = true, float32 = true, float64 = true}
local function dtype_of(api, opts)
  if opts ~= nil and type(opts) ~= "table" then
    error(("gpu.fft.%s: an options table ({dtype =}) expected as argument 3, got %s"):format(api, described(opts)), 3)
  end
  local dtype = opts and gpu._arg.dtype_option(gpu._arg.options(opts, "fft." .. api, "dtype"), "fft." .. api, "float32", 3)
                or "float32"
  if not floats[dtype] then
    error(("gpu.fft.%s: option dtype must be float16, float32 or float64 (the frequencies are real), got %s")
          :format(api, dtype), 3)
  end
  return dtype
end

local function made(y, dtype) return dtype == "float64" and y or y:astype(dtype) end

-- gpu.fft.fftfreq(n [, d] [, {dtype =}]): 0, 1, ..., -(n // 2), ..., -1 over n * d
function fft.fftfreq(n, d, opts)
  if type(d) == "table" and opts == nil then d, opts = nil, d end
  local val
  n, val = window("fftfreq", n, d)
  local dtype = dtype_of("fftfreq", opts)
  local k = gpu.concatenate({gpu.arange(0, (n - 1) // 2 + 1, "float64"), gpu.arange(-(n // 2), 0, "float64")})
  return made(k * val, dtype)
end

-- gpu.fft.rfftfreq(n [, d] [, {dtype =}]): 0, 1, ..., n // 2 over n * d
function fft.rfftfreq(n, d, opts)
  if type(d) == "table" and opts == nil then d, opts = nil, d end
  local val
  n, val = window("rfftfreq", n, d)
  local dtype = dtype_of("rfftfreq", opts)
  return made(gpu.arange(0, n // 2 + 1, "float64") * val, dtype)
end

-- The dims of a shift (nil: every one) as 1-based numbers; a table a list, read raw ({axes =
-- 1} was no dim: an unshifted copy). A dim given again is shifted again (gpu.roll adds the
-- shifts), as NumPy's
local function dims_of(api, dims, ndim)
  if dims == nil then
    local all = {}
    for d = 1, ndim do all[d] = d end
    return all
  end
  local list, out = type(dims) == "table" and gpu._arg.list(dims, "fft." .. api, "dims") or {dims}, {}
  for i = 1, rawlen(list) do
    local d = rawget(list, i)
    if math.type(d) == "float" and d == math.floor(d) then d = math.tointeger(d) or d end
    if math.type(d) ~= "integer" then   -- ("1" was 'dim string is out of range')
      error(("gpu.fft.%s: dim must be an integer, got %s"):format(api, shown(d)), 3)
    end
    if d == 0 or d > ndim or d < -ndim then
      error(("gpu.fft.%s: dim %d is out of range for %d-D arrays"):format(api, d, ndim), 3)
    end
    out[i] = d < 0 and ndim + 1 + d or d
  end
  return out
end

-- x rolled along dims by half their length: down (fftshift: n // 2) or up (ifftshift:
-- -(n // 2)), so that ifftshift undoes fftshift also for odd lengths
local function shift(api, x, dims, sign)
  if not is_array(x) then error(("gpu.fft.%s: x must be a device array, got %s"):format(api, described(x)), 3) end
  gpu._arg.here("fft." .. api, {x, "an array"})   -- as the transforms refuse it; gpu.roll's copy failed
  dims = dims_of(api, dims, x.ndim)
  if #dims == 0 then return x:copy() end
  local by = {}
  for i, d in ipairs(dims) do by[i] = sign * (x.shape[d] // 2) end
  return gpu.roll(x, by, dims)
end

-- gpu.fft.fftshift(x [, dims]), gpu.fft.ifftshift(x [, dims])
function fft.fftshift(x, dims) return shift("fftshift", x, dims, 1) end
function fft.ifftshift(x, dims) return shift("ifftshift", x, dims, -1) end

for _, name in ipairs({"fftfreq", "rfftfreq", "fftshift", "ifftshift"}) do fft[name] = gpu._api(fft[name]) end

-- ndimage_interp_sweep.lua: gpu.ndimage's resampling (zoom, grid-mode zoom, shift, affine
-- of a full and a diagonal matrix, rotate, map_coordinates) over every mode, orders 0-5,
-- 1-4 dims, prefilter on and off, cval, input and output dtypes, float32 coordinates,
-- NaN/huge/edge coordinates, views and size-1 dims; each result's bytes (or its error)
-- written in a row to the file arg[1], so that two builds' files compare byte for byte
-- (cmp) after a change meant to leave the numbers as they were. arg[2] picks a part:
-- fast (orders 0 and 1), high (orders 2-5), dtypes, big (the bench's calls on 40 x 37),
-- floor (orders 0 and 1 at coordinates about 2^30, 2^31 and half-integers, float64 and
-- float32), all (the default; 1882 cases).
-- Run: build/gpuhost scripts/check/ndimage_interp_sweep.lua /tmp/a.bin [part] (the CPU
-- backend will do; on a GPU it checks that build's kernels)
local nd = gpu.ndimage
local out = assert(io.open(assert(arg and arg[1], "usage: ndimage_interp_sweep.lua OUT [part]"), "wb"))
local part = arg[2] or "all"
local count = 0
local function data(shape, dt)
  local n = 1
  for _, v in ipairs(shape) do n = n * v end
  local t = {}
  for i = 0, n - 1 do
    if dt == "uint8" then t[i + 1] = (i * 37 + 11) % 256
    else t[i + 1] = ((i * 7) % 11) - 3 * math.sin(i) end
  end
  return gpu.array(t, "float64"):reshape(shape):astype(dt)
end
local function case(name, f)
  count = count + 1
  local ok, r = pcall(f)
  out:write(name, "\n")
  if ok then
    local b = r:tobytes()
    out:write(r.dtype, " ", table.concat(r.shape, "x"), " ", #b, "\n", b, "\n")
  else
    out:write("ERR ", tostring(r), "\n")
  end
end
local SHAPES = {{13}, {7, 6}, {5, 4, 6}}
local MODES = {"constant", "grid-constant", "nearest", "reflect", "grid-mirror", "mirror", "grid-wrap", "wrap"}
local function coords_for(shape, ct)
  local n = #shape
  local t = {}
  for d = 1, n do
    local row = {}
    for k = 1, 20 do
      local v = -3.3 + (shape[d] + 6) * ((k * 0.618 + d * 0.31) % 1.0)
      if k == 7 and d == 1 then v = 0 / 0 end
      if k == 9 then v = 1e17 * (d % 2 == 0 and -1 or 1) end
      if k == 11 then v = shape[d] - 1 end
      if k == 12 then v = -0.0 end
      if k == 13 then v = -1 + 1e-17 end
      if k == 14 then v = shape[d] - 0.5 end
      row[k] = v
    end
    t[d] = row
  end
  return gpu.array(t, "float64"):reshape({n, 4, 5}):astype(ct or "float64")
end
local function transforms(a, opts, tag)
  local n = a.ndim
  local sh = {0.3, -1.7, 2.25}
  local s = {}
  for d = 1, n do s[d] = sh[d] end
  case(tag .. " zoom", function() return nd.zoom(a, 1.7, opts) end)
  local o2 = {}
  for k, v in pairs(opts) do o2[k] = v end
  o2.grid_mode = true
  case(tag .. " zoom-grid", function() return nd.zoom(a, ({0.6, 1.4, 2.1})[n], o2) end)
  case(tag .. " shift", function() return nd.shift(a, s, opts) end)
  local m, off = {}, {}
  for d = 1, n do
    m[d] = {}
    for e = 1, n do m[d][e] = (d == e and 0.9 or 0.17 * (d - e)) end
    off[d] = -0.6 + 0.45 * d
  end
  local o3 = {}
  for k, v in pairs(opts) do o3[k] = v end
  o3.offset = off
  case(tag .. " affine", function() return nd.affine_transform(a, m, o3) end)
  local diag = {}
  for d = 1, n do diag[d] = 0.8 + 0.3 * d end
  case(tag .. " affine-diag", function() return nd.affine_transform(a, diag, o3) end)
  if n >= 2 then
    case(tag .. " rotate", function() return nd.rotate(a, 33, opts) end)
    local o4 = {}
    for k, v in pairs(opts) do o4[k] = v end
    o4.dims, o4.reshape = {1, n}, false
    case(tag .. " rotate-dims", function() return nd.rotate(a, -71.5, o4) end)
  end
  case(tag .. " map", function() return nd.map_coordinates(a, coords_for(a.shape), opts) end)
end

if part == "all" or part == "fast" then   -- orders 0 and 1: every mode, kind, ndim (float32)
  for _, shape in ipairs(SHAPES) do
    local a = data(shape, "float32")
    for _, mode in ipairs(MODES) do
      for order = 0, 1 do
        transforms(a, {order = order, mode = mode, cval = 1.25}, ("f32 %dD o%d %s"):format(#shape, order, mode))
      end
    end
  end
end
if part == "all" or part == "high" then   -- orders 2..5, prefilter on and off
  for _, shape in ipairs(SHAPES) do
    local a = data(shape, "float32")
    for _, mode in ipairs(MODES) do
      for order = 2, 5 do
        transforms(a, {order = order, mode = mode, cval = -2.5}, ("f32 %dD o%d %s"):format(#shape, order, mode))
      end
      transforms(a, {order = 3, mode = mode, prefilter = false}, ("f32 %dD o3 %s nopre"):format(#shape, mode))
    end
  end
end
if part == "all" or part == "dtypes" then   -- other dtypes in and out, float32 coordinates, odd cases
  for _, dt in ipairs({"float64", "uint8", "complex64", "int16"}) do
    for _, mode in ipairs({"constant", "reflect", "grid-constant"}) do
      for _, order in ipairs({0, 1, 3}) do
        local a = data({7, 6}, dt == "complex64" and "float32" or dt)
        if dt == "complex64" then a = a:astype("complex64") end
        transforms(a, {order = order, mode = mode, cval = 3.7}, ("%s 2D o%d %s"):format(dt, order, mode))
      end
    end
  end
  for _, odt in ipairs({"uint8", "int16", "float64", "bool", "int64"}) do
    for _, order in ipairs({0, 1, 3}) do
      local a = data({7, 6}, "float32") * 20
      case(("f32->%s zoom o%d"):format(odt, order), function() return nd.zoom(a, 1.3, {order = order, output = odt, mode = "mirror"}) end)
      case(("f32->%s map o%d"):format(odt, order), function() return nd.map_coordinates(a, coords_for(a.shape), {order = order, output = odt, mode = "nearest"}) end)
    end
  end
  for _, shape in ipairs(SHAPES) do
    local a = data(shape, "float32")
    for _, mode in ipairs({"constant", "wrap", "nearest"}) do
      for _, order in ipairs({0, 1, 3}) do
        case(("f32coords %dD o%d %s"):format(#shape, order, mode), function()
          return nd.map_coordinates(a, coords_for(shape, "float32"), {order = order, mode = mode}) end)
      end
    end
  end
  -- an affine of another output ndim, size-1 dims, a reversed view, 4-D (the generic kernel)
  local a = data({7, 6}, "float32")
  for _, order in ipairs({0, 1, 3}) do
    case(("affine 2->3 o%d"):format(order), function()
      return nd.affine_transform(a, {{0.5, 0.9, -0.3, 0.2}, {0.2, -0.4, 1.1, -0.7}}, {order = order, output_shape = {3, 4, 2, 3}, offset = {0.5, 1}}) end)
    case(("size1 o%d"):format(order), function() return nd.zoom(data({1, 6}, "float32"), {3, 1.5}, {order = order, mode = "mirror"}) end)
    case(("size1b o%d"):format(order), function() return nd.shift(data({6, 1}, "float32"), {0.4, 0.7}, {order = order, mode = "wrap"}) end)
    case(("flip o%d"):format(order), function() return nd.zoom(gpu.flip(a, 2), 1.5, {order = order}) end)
    case(("transposed o%d"):format(order), function() return nd.rotate(a:transpose(), 20, {order = order, mode = "reflect"}) end)
    for _, mode in ipairs({"constant", "reflect", "grid-constant"}) do
      local b = data({3, 4, 2, 3}, "float32")
      case(("4D o%d %s"):format(order, mode), function() return nd.zoom(b, 1.4, {order = order, mode = mode}) end)
      case(("4D map o%d %s"):format(order, mode), function()
        local c = gpu.array({0.5, 1.7, -0.4, 2.9, 1, 2.5, 0.1, 3.5, 1.5, 1.6, 0.2, 2.7}, "float64"):reshape({4, 3})
        return nd.map_coordinates(b, c, {order = order, mode = mode}) end)
    end
  end
end
if part == "all" or part == "big" then   -- the bench's calls on a 40 x 37 image, every mode
  local a = data({40, 37}, "float32")
  local t = {}
  for d = 1, 2 do
    for i = 0, 39 do for j = 0, 36 do t[#t + 1] = (d == 1 and i or j) + 4 * (((i * 37 + j) * 0.754877666 + d * 0.569840291) % 1.0) - 2 end end
  end
  local co = gpu.array(t, "float64"):reshape({2, 40, 37}):astype("float32")
  for _, mode in ipairs(MODES) do
    for order = 0, 3 do
      local o = {order = order, mode = mode, cval = 0.5}
      case(("big zoom o%d %s"):format(order, mode), function() return nd.zoom(a, 1.5, o) end)
      case(("big rotate o%d %s"):format(order, mode), function() return nd.rotate(a, 30, o) end)
      case(("big map o%d %s"):format(order, mode), function() return nd.map_coordinates(a, co, o) end)
      case(("big shift o%d %s"):format(order, mode), function() return nd.shift(a, {0.5, -1.25}, o) end)
    end
  end
end
if part == "all" or part == "floor" then   -- orders 0 and 1 at coordinates about the kernels' floor's limits
  local xs = {-2 ^ 31 - 0.5, -2 ^ 31, -2 ^ 30 - 0.5, -2 ^ 30, -2 ^ 30 + 0.25, -1e9 - 0.5, -2.5, -1.5, -0.5,
              -0.49999999999999994, -1e-300, -0.0, 0.0, 5e-324, 0.5, 1.5, 2.5, 11.5, 12, 12.5, 13.5,
              2 ^ 30 - 0.75, 2 ^ 30 - 0.5, 2 ^ 30, 2 ^ 30 + 0.5, 2 ^ 31 - 1, 2 ^ 31, 2 ^ 31 + 0.5,
              2 ^ 40 + 0.25, 2 ^ 52 + 1, 2 ^ 53 - 1}
  local a1, a2 = data({13}, "float32"), data({7, 6}, "float32")
  local t2 = {{}, {}}
  for i, x in ipairs(xs) do t2[1][i], t2[2][i] = x, 2.5 - (i % 5) end
  for _, ct in ipairs({"float64", "float32"}) do
    local c1 = gpu.array({xs}, "float64"):astype(ct)
    local c2 = gpu.array(t2, "float64"):astype(ct)
    for _, mode in ipairs(MODES) do
      for order = 0, 1 do
        local o = {order = order, mode = mode, cval = -0.75}
        case(("floor %s 1D o%d %s"):format(ct, order, mode), function() return nd.map_coordinates(a1, c1, o) end)
        case(("floor %s 2D o%d %s"):format(ct, order, mode), function() return nd.map_coordinates(a2, c2, o) end)
      end
    end
  end
  for _, mode in ipairs(MODES) do
    for order = 0, 1 do
      for _, s in ipairs({-2 ^ 30 + 3.25, 2 ^ 30 - 0.5, -1.5e9, -2.5, 0.5}) do
        local o = {order = order, mode = mode, cval = -0.75}
        case(("floor shift %g o%d %s"):format(s, order, mode), function() return nd.shift(a2, {s, -s}, o) end)
      end
    end
  end
end
out:close()
print(part, count, "cases")

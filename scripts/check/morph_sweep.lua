-- morph_sweep.lua: gpu.ndimage's binary and grey morphology over structures (tables and
-- arrays), iterations (0: until unchanged), masks, border values, origins, modes, dims,
-- odd shapes, views and dtypes, each result's bytes (or error message) written in a row to
-- the file arg[1], so that two builds' files compare byte for byte (cmp).
-- Run: build/gpuhost scripts/check/morph_sweep.lua /tmp/a.bin (the CPU backend will do)
local nd = gpu.ndimage
local f = assert(io.open(assert(arg and arg[1], "usage: morph_sweep.lua OUT"), "wb"))
local function out(name, ok, r)
  if not ok then f:write(name, " error ", tostring(r), "\n"); return end
  f:write(name, " ", r.dtype, " ", table.concat(r.shape, "x"), "\n", r:tobytes(), "\n")
end
local function run(name, fn, ...) out(name, pcall(fn, ...)) end
gpu.random.seed(11)
local shapes = {{1}, {22}, {1, 1}, {5, 3}, {33, 65}, {4, 1, 22}, {6, 5, 7}}
-- structures of each rank: as nested tables and as device arrays
local bstructs = {
  [1] = {{1, 1, 1}, {1, 0, 1}, {0, 1}, {1, 1, 0, 1}},
  [2] = {{{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, {{1, 0}, {0, 1}},
         {{1, 0, 1}, {0, 0, 0}, {1, 0, 1}}, {{1}, {1}, {1}, {0}, {1}}, {{true, false}, {true, true}}},
  [3] = {{{{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}, {{1, 0, 1}, {0, 1, 0}, {1, 1, 1}}}, {{{1}}, {{1}}}},
}
local function shapestr(s) return table.concat(s, "x") end
for _, shape in ipairs(shapes) do
  local nd_ = #shape
  local x = gpu.random.uniform(0, 1, shape):gt(0.4)
  local mask = gpu.random.uniform(0, 1, shape):gt(0.3)
  local views = {{"", x}}
  if nd_ >= 2 then views[2] = {"T", x:transpose()} end
  if shape[nd_] >= 3 then
    local idx = {}
    for d = 1, nd_ - 1 do idx[d] = {} end
    idx[nd_] = {1, shape[nd_], 2}
    views[#views + 1] = {"step", x[idx]}
  end
  views[#views + 1] = {"u8", gpu.floor(gpu.random.uniform(0, 3, shape, "float64")):astype("uint8")}
  local structs = {{"default", nil}}
  for i, s in ipairs(bstructs[nd_] or {}) do
    structs[#structs + 1] = {"t" .. i, s}
    local ok, a = pcall(gpu.array, s, "float64")   -- (a table of booleans: a bool array)
    structs[#structs + 1] = {"a" .. i, ok and a or gpu.array(s, "bool")}
  end
  structs[#structs + 1] = {"gen2", nd.generate_binary_structure(nd_, nd_)}
  for _, v in ipairs(views) do
    for _, st in ipairs(structs) do
      for _, it in ipairs({1, 2, 0}) do
        for _, bv in ipairs({0, 1}) do
          for _, m in ipairs({false, true}) do
            for _, org in ipairs({0, -1}) do
              local key = ("%s %s %s it%d bv%d m%s o%d"):format(shapestr(shape), v[1], st[1], it, bv, tostring(m), org)
              local o = {structure = st[2], iterations = it, border_value = bv, mask = m and mask or nil,
                         origin = org ~= 0 and org or nil}
              run(key .. " ero", nd.binary_erosion, v[2], o)
              run(key .. " dil", nd.binary_dilation, v[2], o)
              if org == 0 then
                run(key .. " open", nd.binary_opening, v[2], o)
                run(key .. " close", nd.binary_closing, v[2], o)
              end
            end
          end
        end
      end
    end
  end
  run(shapestr(shape) .. " positional", nd.binary_erosion, x, bstructs[nd_] and bstructs[nd_][1])
  run(shapestr(shape) .. " out f32", nd.binary_dilation, x, {output = "float32"})
end
-- more taps than the kernels keep in shared memory (NDM_TAPS 512): every point checked
local long = {}
for k = 1, 601 do long[k] = (k % 7 == 0) and 0 or 1 end
local x1 = gpu.random.uniform(0, 1, {700}):gt(0.1)
for _, bv in ipairs({0, 1}) do
  run("long ero bv" .. bv, nd.binary_erosion, x1, long, {border_value = bv})
  run("long dil bv" .. bv, nd.binary_dilation, x1:logical_not(), long, {border_value = bv, iterations = 2})
end
local g1 = gpu.random.uniform(-5, 5, {700})
for _, m in ipairs({"reflect", "constant", "wrap"}) do
  run("long gdil " .. m, nd.grey_dilation, g1, {structure = long, mode = m})
  run("long gero " .. m, nd.grey_erosion, g1, {structure = long, mode = m, origin = 3})
end
-- argument errors (the messages too)
local x2 = gpu.random.uniform(0, 1, {5, 6}):gt(0.5)
run("err ragged", nd.binary_erosion, x2, {{1, 1}, {1}})
run("err ndim", nd.binary_erosion, x2, {1, 1, 1})
run("err empty", nd.binary_erosion, x2, {})
run("err str", nd.grey_dilation, x2:astype("float32"), {structure = {{1, "a"}, {1, 1}}})
run("err extra", nd.grey_dilation, x2:astype("float32"), {structure = {{1, 2}, {1, 1}, x = 1}})
run("err deep", nd.grey_dilation, gpu.zeros({2}), {structure = {{{{{{{{{1}}}}}}}}}})
-- grey with structure / footprint / size in every dtype
local gstructs = {
  [1] = {{0, 1, 0.5}, {2, -1}},
  [2] = {{{0, 1, 0}, {1, 2, 1}, {0, 1, 0}}, {{0.5, -1}, {3, 0}}, {{1, 2, 3, 4, 5}}},
  [3] = {{{{0, 1}, {1, 2}}, {{1, 0}, {2, 1}}}},
}
local modes = {"reflect", "mirror", "nearest", "wrap", "constant"}
for _, dt in ipairs({"float32", "float64", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"}) do
  for _, shape in ipairs({{1}, {22}, {1, 1}, {5, 3}, {33, 65}, {4, 1, 22}}) do
    local nd_ = #shape
    local base = gpu.floor(gpu.random.uniform(-3, 200, shape, "float64"))
    local okc, a = pcall(function() return base:astype(dt) end)
    if okc then
      local views = {{"", a}}
      if nd_ >= 2 then views[2] = {"T", a:transpose()} end
      if dt:sub(1, 5) == "float" and a.size >= 3 then
        local y = base:copy():reshape(-1)
        y[{2}] = 0 / 0; y[{3}] = -0.0
        views[#views + 1] = {"nan", y:reshape(shape):astype(dt)}
      end
      for _, v in ipairs(views) do
        for _, m in ipairs(modes) do
          local key = ("%s %s %s %s"):format(dt, shapestr(shape), v[1], m)
          for i, s in ipairs(gstructs[nd_] or {}) do
            for _, org in ipairs({0, 1}) do
              local o = {structure = s, mode = m, cval = 7.5, origin = org ~= 0 and org or nil}
              run(key .. " gero s" .. i .. " o" .. org, nd.grey_erosion, v[2], o)
              run(key .. " gdil s" .. i .. " o" .. org, nd.grey_dilation, v[2], o)
              o.structure = gpu.array(s, "float64")
              run(key .. " gdil a" .. i .. " o" .. org, nd.grey_dilation, v[2], o)
              o.structure = s
              -- a footprint of the structure's shape, its first element false
              local fpa = gpu.array(s, "float64"):ne(1e9)
              fpa:reshape(-1)[{1}] = false
              o.footprint = fpa
              run(key .. " gero fp s" .. i .. " o" .. org, nd.grey_erosion, v[2], o)
              o.output = "float64"
              run(key .. " gdil fp out s" .. i .. " o" .. org, nd.grey_dilation, v[2], o)
            end
          end
          run(key .. " gero size3", nd.grey_erosion, v[2], 3, {mode = m, cval = 2})
          run(key .. " gdil size2", nd.grey_dilation, v[2], 2, {mode = m, cval = 2})
          local fp = gpu.random.uniform(0, 1, (function() local t = {} for d = 1, nd_ do t[d] = 3 end return t end)()):gt(0.3)
          run(key .. " gdil footprint", nd.grey_dilation, v[2], {footprint = fp, mode = m})
          run(key .. " gero footprint", nd.grey_erosion, v[2], {footprint = fp, mode = m})
        end
      end
    end
  end
end
f:close()

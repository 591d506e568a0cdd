-- mandelbrot_jit.lua: numba's Mandelbrot kernel (a device function of a complex number,
-- called for each pixel of a 2-D grid) with gpu.jit, on complex128. Prints a small picture
-- in ASCII, the escape counts' checksum and the time of the kernel on a larger grid.
--   build/gpuhost scripts/mandelbrot_jit.lua [width of the timed grid, default 4096]

-- the iterations before z = z^2 + c leaves the circle of radius 2 (max_iters if never)
local mandel = gpu.jit(function(x, y, max_iters)
  local c = gpu.complex(x, y)
  local z = 0                                 -- widened to a complex128 by z * z + c
  for i = 0, max_iters - 1 do
    z = z * z + c
    if z.real * z.real + z.imag * z.imag >= 4 then return i end
  end
  return max_iters
end)

local create_fractal = gpu.jit(function(min_x, max_x, min_y, max_y, image, iters)
  local height, width = image.shape[1], image.shape[2]
  local pixel_size_x = (max_x - min_x) / width
  local pixel_size_y = (max_y - min_y) / height
  local x, y = gpu.grid(2)                    -- 1-based
  if x <= width and y <= height then
    image[y][x] = mandel(min_x + (x - 1) * pixel_size_x, min_y + (y - 1) * pixel_size_y, iters)
  end
end)

local function render(width, height, iters)
  local image = gpu.zeros({height, width}, "uint8")
  local block = {32, 8}
  local grid = {(width + 31) // 32, (height + 7) // 8}
  create_fractal[grid, block](-2.0, 1.0, -1.0, 1.0, image, iters)
  return image
end

-- a picture of 72 x 24 characters
local shades = " .:-=+*#%@"
local small = render(72, 24, 20)
for _, row in ipairs(small:totable()) do
  local line = {}
  for x, n in ipairs(row) do line[x] = shades:sub(n * 9 // 20 + 1, n * 9 // 20 + 1) end
  print(table.concat(line))
end
print(("checksum (72 x 24, 20 iterations): %d"):format(small:astype("int64"):sum()))

-- the kernel on width x width/2 pixels, 20 iterations (numba's example: 1536 x 1024)
local width = math.tointeger(tonumber(arg and arg[1] or "") or 4096)
local image = render(width, width // 2, 20)   -- compiled and warm
gpu.synchronize()
local t = gpu.clock()
image = render(width, width // 2, 20)
gpu.synchronize()
print(("create_fractal %d x %d: %.2f ms, checksum %d"):format(width, width // 2, (gpu.clock() - t) * 1e3,
                                                             image:astype("int64"):sum()))

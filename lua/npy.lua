-- npy.lua: gpu.save and gpu.load, NumPy's .npy files (host/npy.c reads and writes them),
-- and gpu.savez and gpu.loadz, .npz files of several (host/npz.c, through libzip).
local gpu = ...

local function is_device(a) return getmetatable(a) == gpu._meta.array end
local function is_host(a) return getmetatable(a) == gpu._meta.hostarray end

-- A contiguous host array holding a's elements in C order, or nil. (a:tohost() packs a
-- view, on the array's own device; a:contiguous() first ran on the current one.)
local function host_contiguous(a)
  if is_device(a) then return a:tohost() end
  if is_host(a) then return a:is_contiguous() and a or a:contiguous() end
end

-- path, a file name; a zero byte in it would cut it short where the system reads it, so it
-- is refused (an error for the caller of gpu.<fname>)
local function check_path(path, fname)
  if type(path) ~= "string" then
    error(("bad argument #1 to '%s' (file name expected, got %s)"):format(fname, type(path)), 3)
  end
  if path:find("\0", 1, true) then
    error(("bad argument #1 to '%s' (file name holds a zero byte)"):format(fname), 3)
  end
end

-- gpu.save(path, a): a device or host array, in C order (views are written as the array
-- they show); written whole or not at all
function gpu.save(path, a)
  check_path(path, "save")
  local h = host_contiguous(a)
  if not h then error(("bad argument #2 to 'save' (array expected, got %s)"):format(type(a)), 2) end
  local ok, err = pcall(gpu._npy_write, path, h)
  if not ok then error(err, 2) end
end

-- gpu.load(path [, {device = true}]): a host array (a device array with device = true)
function gpu.load(path, opts)
  check_path(path, "load")
  if opts ~= nil and type(opts) ~= "table" then
    error(("bad argument #2 to 'load' (options table expected, got %s)"):format(type(opts)), 2)
  end
  local ok, h, fortran = pcall(gpu._npy_read, path)
  if not ok then error(h, 2) end
  if fortran then h = h:transpose() end   -- the file held the transpose's bytes
  if opts and opts.device then return gpu.array(h) end
  return h
end

-- gpu.savez(path, arrays): arrays a table of named arrays ({x = a, y = b}: x.npy, y.npy in
-- the archive) and of arrays in a list ({a, b}: arr_0.npy, arr_1.npy, as numpy.savez names
-- positional ones); stored uncompressed, as numpy.savez does
function gpu.savez(path, arrays)
  check_path(path, "savez")
  if type(arrays) ~= "table" then
    error(("bad argument #2 to 'savez' (table of arrays expected, got %s)"):format(type(arrays)), 2)
  end
  local hosts = {}
  for k, a in pairs(arrays) do
    local name = math.type(k) == "integer" and k >= 1 and ("arr_%d"):format(k - 1) or k
    if type(name) ~= "string" or name == "" or name:find("[/\\\0]") then
      local shown = type(name) == "string" and name:find("\0", 1, true) and ("%q"):format(name)
                    or tostring(k)
      error(("bad argument #2 to 'savez' (%s is not a member name)"):format(shown), 2)
    end
    if hosts[name] then   -- a key arr_0 and a list's first array: numpy.savez refuses it too
      error(("bad argument #2 to 'savez' (key %s is also the name of the list's entry %d)")
            :format(name, tonumber(name:match("^arr_(%d+)$")) + 1), 2)
    end
    local h = host_contiguous(a)
    if not h then
      error(("bad argument #2 to 'savez' (%s is a %s, not an array)"):format(name, type(a)), 2)
    end
    hosts[name] = h
  end
  local ok, err = pcall(gpu._npz_write, path, hosts)
  if not ok then error(err, 2) end
end

-- gpu.loadz(path [, {device = true}]): {name = host array (device array), ...}
function gpu.loadz(path, opts)
  check_path(path, "loadz")
  if opts ~= nil and type(opts) ~= "table" then
    error(("bad argument #2 to 'loadz' (options table expected, got %s)"):format(type(opts)), 2)
  end
  local ok, t = pcall(gpu._npz_read, path)
  if not ok then error(t, 2) end
  if opts and opts.device then
    for k, h in pairs(t) do t[k] = gpu.array(h) end
  end
  return t
end

-- errors at the caller's line, also those of an array's methods called here
for _, name in ipairs({"save", "load", "savez", "loadz"}) do gpu[name] = gpu._api(gpu[name]) end

-- NumPy's files: gpu.save/gpu.load (.npy) and gpu.savez/gpu.loadz (.npz, through libzip),
-- round trips for every dtype, what NumPy writes read bit for bit and what gpuhost writes
-- read by NumPy bit for bit (#numpy: where python3 has numpy), and every bad file.
local S = require("spec.support")

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  assert(os.execute("mkdir -p " .. d))
  return d
end

local function files_in(d)
  local t = {}
  for name in io.popen("ls -A " .. d):lines() do t[#t + 1] = name end
  table.sort(t)
  return t
end

-- a host array of dtype dt with some values, including a negative, an extreme and a 0
local function sample(dt)
  local v = ({bool = {true, false, true, true, false, false},
              float32 = {1.5, -2.25, 3e38, 0, 1 / 3, -0.0},
              float64 = {1.5, -2.25, 1e308, 0, 1 / 3, 2^-1074}})[dt]
  if not v then
    local info
    for _, d in ipairs(gpu._dtypes) do if d.name == dt then info = d end end
    local bits = info.size * 8
    local hi = bits >= 64 and math.maxinteger or (1 << (bits - (info.kind == "i" and 1 or 0))) - 1
    local lo = info.kind == "i" and (bits >= 64 and math.mininteger or -(1 << (bits - 1))) or 0
    v = {0, 1, hi, lo, 7, 42}
  end
  return gpu.host.array({{v[1], v[2], v[3]}, {v[4], v[5], v[6]}}, dt)
end

local function same_bytes(a, b)
  return a.dtype == b.dtype and table.concat(a.shape, ",") == table.concat(b.shape, ",") and
         a:contiguous():bytes() == b:contiguous():bytes()
end

local function write(path, bytes) local f = assert(io.open(path, "wb")); f:write(bytes); f:close() end

-- a .npy file's bytes: the magic, version major.minor (1.0 unless given), the header's
-- length and text as given (no padding added), then data
local function npy_bytes(text, data, major, minor)
  major = major or 1
  return "\x93NUMPY" .. string.char(major, minor or 0) ..
         string.pack(major == 1 and "<I2" or "<I4", #text) .. text .. (data or "")
end

local CRC = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do c = c & 1 == 1 and 0xEDB88320 ~ (c >> 1) or c >> 1 end
  CRC[i] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = CRC[(c ~ s:byte(i)) & 0xFF] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end

-- a zip archive's bytes, of members {name =, data =} (stored; crc = to give a wrong one) or
-- {name =, deflated =, size =, crc =} (what gzip_member gives)
local function zip(members)
  local body, central, at = {}, {}, 0
  for _, m in ipairs(members) do
    local method, bytes = m.deflated and 8 or 0, m.deflated or m.data
    local size, crc = m.size or #bytes, m.crc or crc32(m.data)
    local head = string.pack("<I4I2I2I2I2I2I4I4I4I2I2", 0x04034b50, 20, 0, method, 0, 0x21,
                             crc, #bytes, size, #m.name, 0) .. m.name
    central[#central + 1] = string.pack("<I4I2I2I2I2I2I2I4I4I4I2I2I2I2I2I4I4", 0x02014b50, 20,
      20, 0, method, 0, 0x21, crc, #bytes, size, #m.name, 0, 0, 0, 0, 0, at) .. m.name
    body[#body + 1] = head .. bytes
    at = at + #head + #bytes
  end
  local cd = table.concat(central)
  return table.concat(body) .. cd ..
         string.pack("<I4I2I2I2I2I4I4I2", 0x06054b50, 0, 0, #members, #members, #cd, at, 0)
end

-- a stored member name of a .npy of one int32, v
local function member(name, v)
  return {name = name, data = npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", string.pack("<i4", v))}
end

-- a deflated member (by gzip(1), without its 10-byte header and 8-byte trailer, which gives
-- the CRC and size) of the bytes prefix and then n zero bytes
local function gzip_member(d, name, prefix, n)
  write(d .. "/prefix", prefix)
  assert(os.execute(("(cat %s/prefix; head -c %d /dev/zero) | gzip -1 -n -c > %s/m.gz"):format(d, n, d)))
  local f = assert(io.open(d .. "/m.gz", "rb")); local gz = f:read("a"); f:close()
  local crc, size = string.unpack("<I4I4", gz, #gz - 7)
  return {name = name, deflated = gz:sub(11, -9), crc = crc, size = size}
end

describe("gpu.save and gpu.load", function()
  it("keep every dtype, shape and value, from device and host arrays", function()
    local d = tmpdir()
    for _, dt in ipairs(gpu.dtypes) do
      local h = sample(dt)
      gpu.save(d .. "/h.npy", h)
      assert.is_true(same_bytes(h, gpu.load(d .. "/h.npy")), dt)
      gpu.save(d .. "/d.npy", gpu.array(h))
      local back = gpu.load(d .. "/d.npy", {device = true})
      assert.are.equal("gpu.array", tostring(back):match("^gpu%.array"))
      assert.is_true(same_bytes(h, back:tohost()), dt)
    end
    os.execute("rm -rf " .. d)
  end)

  it("write views as the arrays they show, and 0-D and empty arrays", function()
    local d = tmpdir()
    local a = gpu.arange(12, "int32"):reshape({3, 4})
    gpu.save(d .. "/t.npy", a.T)
    assert.are.same({{0, 4, 8}, {1, 5, 9}, {2, 6, 10}, {3, 7, 11}}, gpu.load(d .. "/t.npy"):totable())
    gpu.save(d .. "/e.npy", gpu.zeros({0, 3}))
    assert.are.same({0, 3}, gpu.load(d .. "/e.npy").shape)
    os.execute("rm -rf " .. d)
  end)

  it("refuse bad files with a clear error, and leave nothing behind a failed write", function()
    local d = tmpdir()
    local function write(name, bytes) local f = assert(io.open(d .. "/" .. name, "wb")); f:write(bytes); f:close() end
    local good = d .. "/good.npy"
    gpu.save(good, gpu.arange(4, "int32"))
    local f = assert(io.open(good, "rb")); local bytes = f:read("a"); f:close()
    write("magic.npy", "NOTNUMPY" .. bytes:sub(9))
    write("short.npy", bytes:sub(1, 20))
    write("data.npy", bytes:sub(1, #bytes - 3))
    write("u4.npy", (bytes:gsub("<i4", "<U1")))
    write("shape.npy", (bytes:gsub("%(4,%)", "(9,)")))
    for _, case in ipairs({
      {"magic.npy", "is not a .npy file"},
      {"short.npy", "its header is truncated"},
      {"data.npy", "its shape says 16 bytes of data, the file holds 13"},
      {"u4.npy", "its dtype has no gpuhost dtype"},
      {"shape.npy", "its shape says 36 bytes of data, the file holds 16"},
      {"none.npy", "cannot open"},
    }) do
      assert.matches(case[2], S.errof(gpu.load, d .. "/" .. case[1]), 1, true)
    end
    assert.matches("cannot write '" .. d .. "/no/such/dir/x.npy'", S.errof(gpu.save, d .. "/no/such/dir/x.npy", gpu.zeros(2)), 1, true)
    os.execute("mkdir " .. d .. "/adir")
    assert.matches("Is a directory", S.errof(gpu.save, d .. "/adir", gpu.zeros(2)), 1, true)
    assert.are.same({"adir", "data.npy", "good.npy", "magic.npy", "shape.npy", "short.npy", "u4.npy"}, files_in(d))
    assert.matches("bad argument #2 to 'save' (array expected, got table)", S.errof(gpu.save, good, {1}), 1, true)
    assert.matches("bad argument #1 to 'load' (file name expected, got number)", S.errof(gpu.load, 3), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("read a descr as the README says: kind and size, a type code or a gpuhost dtype's name, not NumPy's other names", function()
    local d = tmpdir()
    local function descr(t)
      write(d .. "/d.npy", npy_bytes(("{'descr': '%s', 'fortran_order': False, 'shape': (0,)}"):format(t)))
      local ok, h = pcall(gpu.load, d .. "/d.npy")
      return ok and h.dtype or h
    end
    for t, want in pairs({["<f8"] = "float64", ["<i08"] = "int64", f8 = "float64", d = "float64", [">h"] = "int16",
                          float64 = "float64", bool = "bool", complex64 = "complex64"}) do
      assert.are.equal(want, descr(t))
    end
    for _, t in ipairs({"double", "float", "int", "long", "longlong", "bool_"}) do
      assert.are.equal("cannot read '" .. d .. "/d.npy': its descr is not a type gpuhost reads", descr(t))
    end
    os.execute("rm -rf " .. d)
  end)

  it("refuse a header that ends inside its descr's quotes, reading nothing past it", function()
    local d = tmpdir()
    for i, text in ipairs({"{'shape': (1,), 'fortran_order': False, 'descr':'",
                           "{'shape': (1,), 'fortran_order': False, 'descr':'<",
                           "{'shape': (1,), 'fortran_order': False, 'descr':'<i"}) do
      write(d .. "/" .. i .. ".npy", npy_bytes(text, "\0\0\0\0"))
      assert.matches("cannot read '" .. d .. "/" .. i .. ".npy': its descr is not a type gpuhost reads",
                     S.errof(gpu.load, d .. "/" .. i .. ".npy"), 1, true)
    end
    os.execute("rm -rf " .. d)
  end)

  it("read the header and the data through one open file (a FIFO, fed once)", function()
    local d = tmpdir()
    gpu.save(d .. "/a.npy", gpu.arange(5, "int16"))
    assert(os.execute("mkfifo " .. d .. "/fifo"))
    assert(os.execute(("cat %s/a.npy > %s/fifo &"):format(d, d)))
    assert.are.same({0, 1, 2, 3, 4}, gpu.load(d .. "/fifo"):totable())
    write(d .. "/long.npy", npy_bytes("{'descr': '<i2', 'fortran_order': False, 'shape': (1,)}", "\1\0\2\0"))
    assert(os.execute(("cat %s/long.npy > %s/fifo &"):format(d, d)))
    assert.matches("its shape says 2 bytes of data, the file holds more",
                   S.errof(gpu.load, d .. "/fifo"), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("read a pipe whose header's shape is past its data or past memory: an error naming the file", function()
    local d = tmpdir()
    assert(os.execute("mkfifo " .. d .. "/fifo"))
    local function huge(n, data, descr)   -- a header of n float64s (or descr's), then data
      return npy_bytes(("{'descr': '%s', 'fortran_order': False, 'shape': (%d,)}"):format(descr or "<f8", n), data)
    end
    write(d .. "/short.npy", huge(1 << 32, ("\0"):rep(100)))   -- 32 GiB said, 100 bytes there
    assert(os.execute(("cat %s/short.npy > %s/fifo &"):format(d, d)))
    assert.are.equal("cannot read '" .. d .. "/fifo': its shape says 34359738368 bytes of data, the file holds 100",
                     S.errof(gpu.load, d .. "/fifo"))
    -- 2^39 bytes (512 GiB), past the first MiB read: refused where allocated (a machine that
    -- maps them reads the file's end; past 1 TiB ASan's allocator warns, failing the
    -- sanitizer run)
    write(d .. "/vast.npy", huge(1 << 35, ("\0"):rep(1100000), "<c16"))
    assert(os.execute(("cat %s/vast.npy > %s/fifo 2>/dev/null &"):format(d, d)))
    local e = S.errof(gpu.load, d .. "/fifo")
    local says = "cannot read '" .. d .. "/fifo': its shape says 549755813888 bytes of data, "
    assert.is_true(e:sub(1, #says + 27) == says .. "which cannot be allocated (" or e == says .. "the file holds 1100000", e)
    write(d .. "/mid.npy", huge(300000, string.pack("<d", 7):rep(300000)))   -- past the first MiB read
    assert(os.execute(("cat %s/mid.npy > %s/fifo &"):format(d, d)))
    local h = gpu.load(d .. "/fifo")
    assert.are.same({300000, 7, 7}, {h.size, h[1], h[300000]})
    os.execute("rm -rf " .. d)
  end)

  it("read a header as NumPy does: the last of a key given twice, any order, quotes and spacing", function()
    local d = tmpdir()
    for i, case in ipairs({
      {"{'descr': '<f4', 'descr': '<i4', 'fortran_order': False, 'shape': (1,), }"},
      {'{"shape": (1,), "fortran_order": False, "descr": "<i4"}'},
      {"{'descr':'<i4','fortran_order':False,'shape':(1,)}\n"},
      {"  {'descr': 'i4', # a comment\n 'fortran_order': False,\n 'shape': (+0x1,)}   \n"},
      {"{'descr': u'<i4', 'fortran_order': False, 'shape': (1,)}"},
      {"{'descr': '<' 'i4', 'fortran_order': False, 'shape': (0b1,)}"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1L,), }", major = 1},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (1L,), }", major = 2},
      {"{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", major = 3},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (), }", major = 3},
    }) do
      local path = d .. "/" .. i .. ".npy"
      write(path, npy_bytes(case[1], string.pack("<i4", 7), case.major))
      local a = gpu.load(path)
      assert.are.equal("int32", a.dtype, case[1])
      assert.are.equal(7, a[1], case[1])
    end
    os.execute("rm -rf " .. d)
  end)

  it("read a descr as np.dtype reads it: a type code, a dtype's name, a size with leading zeros", function()
    local d = tmpdir()
    for i, case in ipairs({
      {"d", "float64", "<d"}, {">d", "float64", ">d"}, {"float64", "float64", "<d"}, {"<e", "float16", "<H", 0x3C00},
      {"<i08", "int64", "<i8"}, {"<i008", "int64", "<i8"}, {"?", "bool", "B"}, {"b", "int8", "b"},
      {"B", "uint8", "B"}, {"h", "int16", "<h"}, {"H", "uint16", "<H"}, {"i", "int32", "<i4"}, {"I", "uint32", "<I4"},
      {"l", "int64", "<i8"}, {"L", "uint64", "<I8"}, {"q", "int64", "<i8"}, {"Q", "uint64", "<I8"},
      {"f", "float32", "<f"}, {"F", "complex64", "<ff"}, {"D", "complex128", "<dd"}, {">D", "complex128", ">dd"},
      {"bool", "bool", "B"}, {"uint16", "uint16", "<H"}, {"complex64", "complex64", "<ff"}, {"|u01", "uint8", "B"},
    }) do
      local path = d .. "/" .. i .. ".npy"
      write(path, npy_bytes(("{'descr': '%s', 'fortran_order': False, 'shape': (1,)}"):format(case[1]),
                            string.pack(case[3], case[4] or 1, 0)))   -- (0x3C00: a float16 1)
      local a = gpu.load(path)
      assert.are.equal(case[2], a.dtype, case[1])
      assert.are.equal(gpu.host.array({1}, case[2]):bytes(), a:bytes(), case[1])   -- swapped from ">"
    end
    for i, case in ipairs({{"<i0", "its descr is not a type gpuhost reads"}, {"<float64", "its descr is not a type gpuhost reads"},
                           {"g", "its dtype has no gpuhost dtype"}, {"c", "its descr is not a type gpuhost reads"}}) do
      local path = d .. "/bad" .. i .. ".npy"
      write(path, npy_bytes(("{'descr': '%s', 'fortran_order': False, 'shape': (1,)}"):format(case[1]), "\0\0\0\0"))
      assert.matches("cannot read '" .. path .. "': " .. case[2], S.errof(gpu.load, path), 1, true)
    end
    os.execute("rm -rf " .. d)
  end)

  it("refuse what NumPy refuses: other keys (one hidden in a string too), a misspelt bool, a shape not a tuple, other versions", function()
    local d = tmpdir()
    local data = string.pack("<i4i4", 7, 8)
    for i, case in ipairs({
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "its header has a key other than descr, fortran_order and shape: 'x'"},
      {"{'descr': '<i4', 'fortran_order': False, 'x': \"'shape': (2,)\", 'shape': (1,)}", "its header has a key other than descr, fortran_order and shape: 'x'"},
      {"{'descr': '<i4', 'fortran_order': Truee, 'shape': (2,)}", "its fortran_order is neither True nor False"},
      {"{'descr': '<i4', 'fortran_order': 1, 'shape': (2,)}", "its fortran_order is neither True nor False"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2)}", "its shape is not a tuple of sizes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': [2]}", "its shape is not a tuple of sizes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (02,)}", "its shape is not a tuple of sizes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2.0,)}", "its shape is not a tuple of sizes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (-2,)}", "its shape holds a negative size"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (4 // 2,)}", "its shape is not a tuple of sizes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2L,)}", "its shape is not a tuple of sizes", major = 3},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,)} x", "its header is not a Python dict"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,)}\0 junk", "its header holds a zero byte"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,)", "its header is not a Python dict"},
      {"{'descr': '<i4' 'fortran_order': False, 'shape': (2,)}", "its header is not a Python dict"},
      {"{'descr': '<i4', 'fortran_order': False}", "its header has no shape"},
      {"{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,)}", "its descr is not a simple type string"},
      {"{'descr': '<i4 ', 'fortran_order': False, 'shape': (2,)}", "its descr is not a type gpuhost reads"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", "its .npy version is 1.1: gpuhost reads 1.0, 2.0 and 3.0", minor = 1},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", "its .npy version is 4.0: gpuhost reads 1.0, 2.0 and 3.0", major = 4},
    }) do
      local path = d .. "/" .. i .. ".npy"
      write(path, npy_bytes(case[1], data, case.major, case.minor))
      assert.matches("cannot read '" .. path .. "': " .. case[2], S.errof(gpu.load, path), 1, true)
    end
    os.execute("rm -rf " .. d)
  end)

  it("load bool bytes other than 0 and 1 as true, which is 1 (and so do frombytes and copy_)", function()
    local d = tmpdir()
    write(d .. "/b.npy", npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}", "\1\2\0"))
    local h = gpu.load(d .. "/b.npy")
    assert.are.equal("\1\1\0", h:bytes())
    assert.are.same({1, 1, 0}, h:astype("int32"):totable())
    local a = gpu.load(d .. "/b.npy", {device = true})
    assert.are.equal(2, a:sum())
    assert.are.same({false, false, true}, gpu.logical_not(a):totable())
    assert.are.equal("\1\1\0", gpu.host.frombytes("\1\255\0", "bool"):bytes())
    assert.are.equal("\1\1\0", gpu.host.zeros(3, "bool"):copy_("\128\2\0"):bytes())
    assert.are.same({1, 1, 0}, gpu.zeros(3, "bool"):copy_("\1\2\0"):astype("int32"):totable())
    os.execute("rm -rf " .. d)
  end)

  it("refuse a path with a zero byte in it, which the system would cut short", function()
    local d = tmpdir()
    assert.matches("bad argument #1 to 'save' (file name holds a zero byte)",
                   S.errof(gpu.save, d .. "/x.npy\0.txt", gpu.zeros(2)), 1, true)
    gpu.save(d .. "/x.npy", gpu.zeros(2))
    assert.matches("bad argument #1 to 'load' (file name holds a zero byte)",
                   S.errof(gpu.load, d .. "/x.npy\0.txt"), 1, true)
    assert.are.same({"x.npy"}, files_in(d))
    os.execute("rm -rf " .. d)
  end)

  it("keep the mode of the file they replace; a new one gets 0666 less the umask", function()
    local d = tmpdir()
    local function mode(p) return io.popen("stat -c %a " .. p):read("l") end
    local umask = tonumber(io.popen("sh -c umask"):read("l"), 8)
    gpu.save(d .. "/new.npy", gpu.zeros(2))
    assert.are.equal(("%o"):format(0x1b6 & ~umask), mode(d .. "/new.npy"))
    write(d .. "/private.npy", "")
    assert(os.execute("chmod 600 " .. d .. "/private.npy"))
    gpu.save(d .. "/private.npy", gpu.zeros(2))
    assert.are.equal("600", mode(d .. "/private.npy"))
    assert(os.execute("chmod 640 " .. d .. "/private.npy"))
    gpu.save(d .. "/private.npy", gpu.zeros(3))
    assert.are.equal("640", mode(d .. "/private.npy"))
    assert.are.same({3}, gpu.load(d .. "/private.npy").shape)
    os.execute("rm -rf " .. d)
  end)

  it("write through a symbolic link into its file, and into a FIFO as it is, as numpy.save", function()
    local d = tmpdir()
    write(d .. "/target.npy", "old")
    assert(os.execute("ln -s target.npy " .. d .. "/link.npy && ln -s nowhere.npy " .. d .. "/dangling.npy"))
    gpu.save(d .. "/link.npy", gpu.arange(3))
    assert.are.same({0, 1, 2}, gpu.load(d .. "/target.npy"):totable())
    assert.are.equal("l", io.popen("ls -ld " .. d .. "/link.npy"):read("l"):sub(1, 1))   -- still a link
    gpu.save(d .. "/dangling.npy", gpu.arange(2))
    assert.are.same({0, 1}, gpu.load(d .. "/nowhere.npy"):totable())
    assert(os.execute("mkfifo " .. d .. "/fifo"))
    local reader = io.popen("cat " .. d .. "/fifo")
    gpu.save(d .. "/fifo", gpu.arange(2))   -- in place, not a file renamed over the FIFO
    assert.are.equal("\x93NUMPY", reader:read("a"):sub(1, 6))
    reader:close()
    assert.are.equal("p", io.popen("ls -ld " .. d .. "/fifo"):read("l"):sub(1, 1))
    -- a shape of more than 2^48 elements but a 0 size is refused as any other, naming the file
    write(d .. "/z.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 281474976710656, 4), }\n"))
    assert.matches("cannot read '" .. d .. "/z.npy': its shape is too large", S.errof(gpu.load, d .. "/z.npy"), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("say that a directory is one, and that a file cut short in its magic is truncated", function()
    local d = tmpdir()
    assert.matches("cannot read '" .. d .. "': it is a directory", S.errof(gpu.load, d), 1, true)
    assert.matches("cannot write '" .. d .. "/': Is a directory", S.errof(gpu.save, d .. "/", gpu.zeros(1)), 1, true)
    assert.are.same({}, files_in(d))   -- nothing written into it either
    write(d .. "/m.npy", "\x93NUMPY\1")
    assert.matches("cannot read '" .. d .. "/m.npy': it is truncated (it ends before its header)",
                   S.errof(gpu.load, d .. "/m.npy"), 1, true)
    write(d .. "/e.npy", "")
    assert.matches("cannot read '" .. d .. "/e.npy': it is empty", S.errof(gpu.load, d .. "/e.npy"), 1, true)
    os.execute("rm -rf " .. d)
  end)
end)

describe("gpu.savez and gpu.loadz #libzip", function()
  it("keep named arrays and name a list's as numpy.savez does", function()
    local d = tmpdir()
    gpu.savez(d .. "/z.npz", {x = gpu.arange(5), y = sample("int64"), gpu.zeros(2, "bool")})
    local t = gpu.loadz(d .. "/z.npz")
    assert.are.same({0, 1, 2, 3, 4}, t.x:totable())
    assert.is_true(same_bytes(sample("int64"), t.y))
    assert.are.same({false, false}, t.arr_0:totable())
    assert.are.equal("gpu.array", tostring(gpu.loadz(d .. "/z.npz", {device = true}).x):match("^gpu%.array"))
    assert.matches("cannot read '" .. d .. "/none.npz': No such file", S.errof(gpu.loadz, d .. "/none.npz"), 1, true)
    local f = assert(io.open(d .. "/text.npz", "w")); f:write("not a zip\n"); f:close()
    assert.matches("not a zip file", S.errof(gpu.loadz, d .. "/text.npz"), 1, true)
    assert.matches("(x is a number, not an array)", S.errof(gpu.savez, d .. "/b.npz", {x = 1}), 1, true)
    -- a name with '/' as numpy.savez writes it (sub/x.npy); none that unzip would put outside its folder
    gpu.savez(d .. "/b.npz", {["a/b"] = gpu.host.array({1, 2}, "int32"), [".."] = gpu.zeros(1), ["a\\b"] = gpu.zeros(2)})
    local z = gpu.loadz(d .. "/b.npz")
    assert.are.same({1, 2}, z["a/b"]:totable())
    assert.are.same({0}, z[".."]:totable())
    assert.are.same({0, 0}, z["a\\b"]:totable())
    for _, n in ipairs({"../b", "/b", "a/../b", "\\b", "a\\..\\b"}) do
      assert.matches("bad argument #2 to 'savez' (" .. n .. " is not a member name: a leading '/' or a '..' part would put it outside the folder it is extracted to)",
                     S.errof(gpu.savez, d .. "/b.npz", {[n] = gpu.zeros(1)}), 1, true)
    end
    assert.matches("(1.5 is not a member name)", S.errof(gpu.savez, d .. "/b.npz", {[1.5] = gpu.zeros(1)}), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("write an archive of no arrays as numpy.savez does, over a file there too", function()
    local d = tmpdir()
    write(d .. "/e.npz", "old")
    gpu.savez(d .. "/e.npz", {})
    assert.are.equal("PK\5\6" .. ("\0"):rep(18), assert(io.open(d .. "/e.npz", "rb")):read("a"))
    assert.are.same({}, gpu.loadz(d .. "/e.npz"))
    assert.matches("cannot write '" .. d .. "': Is a directory", S.errof(gpu.savez, d, {}), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("refuse a name that is both a key and a list's (arr_0), and a name with a zero byte", function()
    local d = tmpdir()
    assert.matches("bad argument #2 to 'savez' (key arr_0 is also the name of the list's entry 1)",
                   S.errof(gpu.savez, d .. "/b.npz", {gpu.arange(3), arr_0 = gpu.ones(5)}), 1, true)
    assert.matches([[bad argument #2 to 'savez' ("a\0b" is not a member name)]],
                   S.errof(gpu.savez, d .. "/b.npz", {["a\0b"] = gpu.zeros(1)}), 1, true)
    assert.matches("bad argument #1 to 'savez' (file name holds a zero byte)",
                   S.errof(gpu.savez, d .. "/b.npz\0.txt", {x = gpu.zeros(1)}), 1, true)
    assert.matches("bad argument #1 to 'loadz' (file name holds a zero byte)",
                   S.errof(gpu.loadz, d .. "/b.npz\0.txt"), 1, true)
    assert.are.same({}, files_in(d))
    os.execute("rm -rf " .. d)
  end)

  it("read a member's header first: a member larger than its shape (a zip bomb) is refused unread", function()
    local d = tmpdir()
    local text = "{'descr': '<i4', 'fortran_order': False, 'shape': (4,)}"
    local npy = npy_bytes(text, ("\0"):rep(16))
    -- 64 MiB of zeros deflated into some 300 KB, after a header that says 16 bytes
    write(d .. "/bomb.npz", zip({{name = "ok.npy", data = npy}, gzip_member(d, "x.npy", npy_bytes(text), 64 << 20)}))
    assert.matches("cannot read 'x.npy' in '" .. d .. "/bomb.npz': its shape says 16 bytes of data, the member holds 67108864",
                   S.errof(gpu.loadz, d .. "/bomb.npz"), 1, true)
    -- the same with a central directory that says the right size: 16 bytes read, then one more found
    local m = gzip_member(d, "x.npy", npy_bytes(text), 64 << 20)
    m.size = #npy
    write(d .. "/liar.npz", zip({m}))
    assert.matches("cannot read 'x.npy' in '" .. d .. "/liar.npz': its shape says 16 bytes of data, the member holds more",
                   S.errof(gpu.loadz, d .. "/liar.npz"), 1, true)
    -- a central directory that gives the member fewer bytes than its header has
    local m = gzip_member(d, "x.npy", npy, 0)
    m.size = 10
    write(d .. "/tiny.npz", zip({m}))
    assert.matches("cannot read 'x.npy' in '" .. d .. "/tiny.npz': the member holds 10 bytes, less than its "
                   .. #npy - 16 .. "-byte header", S.errof(gpu.loadz, d .. "/tiny.npz"), 1, true)
    write(d .. "/short.npz", zip({{name = "x.npy", data = npy:sub(1, -2)}}))
    assert.matches("its shape says 16 bytes of data, the member holds 15", S.errof(gpu.loadz, d .. "/short.npz"), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("say why a member cannot be read (a bad CRC), and that a directory is one", function()
    local d = tmpdir()
    local npy = npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1,)}", "\7\0\0\0")
    write(d .. "/good.npz", zip({{name = "x.npy", data = npy}}))
    assert.are.same({7}, gpu.loadz(d .. "/good.npz").x:totable())
    write(d .. "/crc.npz", zip({{name = "x.npy", data = npy, crc = crc32(npy) ~ 1}}))
    assert.matches("cannot read 'x.npy' in '" .. d .. "/crc.npz': CRC error", S.errof(gpu.loadz, d .. "/crc.npz"), 1, true)
    assert.matches("cannot read '" .. d .. "': it is a directory", S.errof(gpu.loadz, d), 1, true)
    assert.matches("cannot write '" .. d .. "': Is a directory", S.errof(gpu.savez, d, {x = gpu.zeros(1)}), 1, true)
    write(d .. "/bad.npz", zip({{name = "x.npy", data = npy:sub(1, 20)}}))
    assert.matches("cannot read 'x.npy' in '" .. d .. "/bad.npz': its header is truncated", S.errof(gpu.loadz, d .. "/bad.npz"), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("load every member as NumPy does: named without .npy, and a member that is not a .npy (whatever its name) as its bytes; refuse a name with a zero byte", function()
    local d = tmpdir()
    write(d .. "/k.npz", zip({member("noext", 1), member(".npy", 2), member("c.npy", 3), member("d.npy.npy", 4),
                              {name = "notes.txt", data = "hi"}, {name = "x.bin", data = "\x93NUM"},
                              {name = "t.npy", data = "hello"}}))
    for _, device in ipairs({false, true}) do
      local t = gpu.loadz(d .. "/k.npz", {device = device})
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = k end
      table.sort(keys)
      assert.are.same({"", "c", "d.npy", "noext", "notes.txt", "t", "x.bin"}, keys)
      assert.are.same({{1}, {2}, {3}, {4}}, {t.noext:totable(), t[""]:totable(), t.c:totable(), t["d.npy"]:totable()})
      assert.are.same({"hi", "\x93NUM"}, {t["notes.txt"], t["x.bin"]})
      assert.are.equal("hello", t.t)   -- named .npy, not one: its bytes, as NumPy's NpzFile gives
    end
    write(d .. "/z.npz", zip({member("c.npy", 3), member("a\0b.npy", 1)}))
    assert.matches("cannot read '" .. d .. [[/z.npz': "a\0b.npy" is not a member name (it holds a zero byte)]],
                   S.errof(gpu.loadz, d .. "/z.npz"), 1, true)
    -- the same before other bytes and after a zip64 end record, as large archives have
    local z = zip({member("c.npy", 3), member("nul\0", 1)})
    local at = #z - 22
    local cd_size, cd_at = string.unpack("<I4I4", z, at + 13)
    local z64 = string.pack("<I4I8I2I2I4I4I8I8I8I8", 0x06064b50, 44, 45, 45, 0, 0, 2, 2, cd_size, cd_at + 100)
    local loc = string.pack("<I4I4I8I4", 0x07064b50, 0, at + 100, 1)
    local eocd = string.pack("<I4I2I2I2I2I4I4I2", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    write(d .. "/z64.npz", ("#"):rep(100) .. z:sub(1, at) .. z64 .. loc .. eocd)
    assert.matches([["nul\0" is not a member name]], S.errof(gpu.loadz, d .. "/z64.npz"), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("refuse a forged archive whose many end records each lead to the whole file as a directory, reading it a few times at most", function()
    -- (each of some 2,900 records was read in full: a 10 MB file took 12 s, 30 MB 39 s)
    local d = tmpdir()
    local n, tail = 65536, {}
    local len = 0
    while len + 22 <= 65535 do
      tail[#tail + 1] = "PK\5\6" .. string.pack("<I2I2I2I2I4I4I2", 0, 0, 1, 1, n + len, 0, 0)
      len = len + 22
    end
    write(d .. "/forged.npz", "PK\1\2" .. ("\0"):rep(n - 4) .. table.concat(tail))
    assert.matches("/forged.npz': its end records lead to more central directory than the archive holds",
                   S.errof(gpu.loadz, d .. "/forged.npz"), 1, true)
    os.execute("rm -rf " .. d)
  end)

  it("give a key two members share as NumPy's NpzFile does: the member named the key, not the one named the key and .npy, in either order; the last of one name", function()
    local d = tmpdir()
    local hello = {name = "a", data = "hello"}
    write(d .. "/a1.npz", zip({hello, member("a.npy", 1)}))
    write(d .. "/a2.npz", zip({member("a.npy", 1), hello}))
    for _, f in ipairs({"/a1.npz", "/a2.npz"}) do
      assert.are.same({a = "hello"}, gpu.loadz(d .. f), f)
    end
    -- b.npy.npy's key is b.npy, which names b.npy; x.npy twice: the second
    write(d .. "/b.npz", zip({member("b.npy", 1), member("b.npy.npy", 2), member("x.npy", 3), member("x.npy", 4)}))
    local t = gpu.loadz(d .. "/b.npz")
    local keys = {}
    for k, v in pairs(t) do keys[#keys + 1] = k .. "=" .. v:totable()[1] end
    table.sort(keys)
    assert.are.same({"b.npy=1", "b=1", "x=4"}, keys)
    os.execute("rm -rf " .. d)
  end)

  it("refuse a name with a zero byte whatever end record leads to it: zip64's as Python's zipfile writes it past 65,535 members, zip64's with extensible data, one after a comment holding an end record's signature", function()
    local d = tmpdir()
    -- the archive of c.npy and name, its end record made zip64's (the 32-bit record's fields
    -- that are too large for it 0xFFFF...: only the count, only the offset, or all three, and
    -- ext after the zip64 record), or given a comment (the signature and 18 zero bytes)
    local function archive(name, form)
      local z = zip({member("c.npy", 3), member(name, 1)})
      local at = #z - 22
      local cd_size, cd_at = string.unpack("<I4I4", z, at + 13)
      if form == "comment" then return z:sub(1, -3) .. string.pack("<I2", 22) .. "PK\5\6" .. ("\0"):rep(18) end
      local ext = form == "ext" and ("\0"):rep(16) or ""
      local count = (form == "count" or form == "ext") and 0xFFFF or 2
      local size, off = form == "ext" and 0xFFFFFFFF or cd_size, (form == "off" or form == "ext") and 0xFFFFFFFF or cd_at
      return z:sub(1, at) .. string.pack("<I4I8I2I2I4I4I8I8I8I8", 0x06064b50, 44 + #ext, 45, 45, 0, 0, 2, 2, cd_size, cd_at) ..
             ext .. string.pack("<I4I4I8I4", 0x07064b50, 0, at, 1) ..
             string.pack("<I4I2I2I2I2I4I4I2", 0x06054b50, 0, 0, count, count, size, off, 0)
    end
    for _, form in ipairs({"count", "off", "ext", "comment"}) do
      write(d .. "/ok.npz", archive("nul1", form))   -- libzip reads each form
      local t = gpu.loadz(d .. "/ok.npz")
      assert.are.same({{3}, {1}}, {t.c:totable(), t.nul1:totable()}, form)
      write(d .. "/z.npz", archive("nul\0", form))
      assert.matches("cannot read '" .. d .. [[/z.npz': "nul\0" is not a member name (it holds a zero byte)]],
                     S.errof(gpu.loadz, d .. "/z.npz"), 1, true)
    end
    os.execute("rm -rf " .. d)
  end)

  it("load bool bytes other than 0 and 1 as true, which is 1", function()
    local d = tmpdir()
    local npy = npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}", "\1\2\0")
    write(d .. "/b.npz", zip({{name = "b.npy", data = npy}}))
    local b = gpu.loadz(d .. "/b.npz").b
    assert.are.equal("\1\1\0", b:bytes())
    assert.are.same({1, 1, 0}, b:astype("int32"):totable())
    os.execute("rm -rf " .. d)
  end)

  it("stream the archive into the file: its members are not copied in memory", function()
    -- in a child gpuhost, the peak resident size (VmHWM) a savez and a savez_compressed of a
    -- 32 MiB host array add: an archive made in memory (each member's bytes, the archive,
    -- and a copy of it) added three times the array
    local d = tmpdir()
    local out, status, err = S.run(S.gpuhost .. " -e " .. S.quote(([[
      local function peak()
        for l in io.lines("/proc/self/status") do
          local kb = l:match("^VmHWM:%%s*(%%d+)")
          if kb then return tonumber(kb) end
        end
      end
      local h = gpu.host.zeros(32 << 20, "uint8")
      h[7] = 5
      local before = peak()
      gpu.savez(%q, {x = h, y = gpu.host.array({1, 2})})
      gpu.savez_compressed(%q, {x = h})
      print((peak() - before) // 1024)]]):format(d .. "/s.npz", d .. "/c.npz")))
    assert.are.equal(0, status, err)
    assert.is_true(tonumber(out) < 16, "the peak grew by " .. out:gsub("\n", "") .. " MiB")
    local s, c = gpu.loadz(d .. "/s.npz"), gpu.loadz(d .. "/c.npz")
    assert.are.same({32 << 20}, s.x.shape)
    assert.are.same({0, 5, 0}, {s.x[6], s.x[7], s.x[8]})
    assert.are.same({1, 2}, s.y:totable())
    assert.are.equal(5, c.x[7])
    assert.are.same({"c.npz", "s.npz"}, files_in(d))   -- no temporary left
    os.execute("rm -rf " .. d)
  end)
end)

describe("gpu.save and gpu.savez, long names #libzip", function()
  it("write a file whose name is near the longest one (the temporary beside it gets a shorter one)", function()
    local d = tmpdir()
    local name = ("n"):rep(245)   -- with .npy, 249 bytes: under NAME_MAX, 255
    gpu.save(d .. "/" .. name .. ".npy", gpu.arange(3, "int8"))
    gpu.savez(d .. "/" .. name .. ".npz", {x = gpu.arange(2, "int8")})
    assert.are.same({0, 1, 2}, gpu.load(d .. "/" .. name .. ".npy"):totable())
    assert.are.same({0, 1}, gpu.loadz(d .. "/" .. name .. ".npz").x:totable())
    assert.are.same({name .. ".npy", name .. ".npz"}, files_in(d))   -- no temporary left
    os.execute("rm -rf " .. d)
  end)
end)

-- A real second user (as root, with setpriv): test.sh leaves these out where that cannot be.
describe("gpu.save and gpu.savez as another user #seconduid #libzip", function()
  local NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups "
  local function as_nobody(code, ...)
    return S.run(NOBODY .. "env GPU_BACKEND=" .. gpu.backend() .. " " .. S.gpuhost .. " -e " ..
                 S.quote(code:format(...)))
  end
  local function bytes(p) local f = assert(io.open(p, "rb")); local s = f:read("a"); f:close(); return s end
  local SAVE = [[local a = gpu.host.array({7, 7, 7}, "int8")
    print(select(2, pcall(gpu.save, %q, a)))
    print(select(2, pcall(gpu.savez, %q, {a})))]]   -- a line each, empty where it wrote

  it("refuse a file the user may not write, as io.open does, and leave it as it was", function()
    local d = tmpdir()
    assert(os.execute("chmod 777 " .. d))
    gpu.save(d .. "/ro.npy", gpu.arange(3))
    gpu.savez(d .. "/ro.npz", {gpu.arange(3)})
    assert(os.execute("chmod 444 " .. d .. "/ro.npy " .. d .. "/ro.npz"))
    local npy, npz = bytes(d .. "/ro.npy"), bytes(d .. "/ro.npz")
    local out, status, err = as_nobody(SAVE .. " print((select(2, io.open(%q, 'wb'))))",
                                       d .. "/ro.npy", d .. "/ro.npz", d .. "/ro.npy")
    assert.are.equal(0, status, err)
    assert.are.equal(("cannot write '%s/ro.npy': Permission denied\ncannot write '%s/ro.npz': Permission denied\n"
                      .. "%s/ro.npy: Permission denied\n"):format(d, d, d), out)
    assert.are.equal(npy, bytes(d .. "/ro.npy"))
    assert.are.equal(npz, bytes(d .. "/ro.npz"))
    assert.are.same({"ro.npy", "ro.npz"}, files_in(d))
    os.execute("rm -rf " .. d)
  end)

  it("write a file the user may write in place where the directory refuses a temporary or the rename", function()
    local d = tmpdir()   -- root's, 0755: nobody may not make a file in it
    assert(os.execute("mkdir -m 1777 " .. d .. "/sticky"))   -- another's file there cannot be renamed over
    for _, p in ipairs({"/w.npy", "/w.npz", "/sticky/s.npy", "/sticky/s.npz"}) do
      write(d .. p, "old")
      assert(os.execute("chmod 666 " .. d .. p))
    end
    local out, status, err = as_nobody(SAVE .. "\n" .. SAVE .. " print(select(2, pcall(gpu.save, %q, a)))",
                                       d .. "/w.npy", d .. "/w.npz", d .. "/sticky/s.npy", d .. "/sticky/s.npz",
                                       d .. "/new.npy")
    assert.are.equal(0, status, err)
    assert.are.equal(("\n\n\n\ncannot write '%s/new.npy': Permission denied\n"):format(d), out)
    for _, p in ipairs({"/w", "/sticky/s"}) do
      assert.are.same({7, 7, 7}, gpu.load(d .. p .. ".npy"):totable())
      assert.are.same({7, 7, 7}, gpu.loadz(d .. p .. ".npz").arr_0:totable())
    end
    assert.are.same({"sticky", "w.npy", "w.npz"}, files_in(d))
    assert.are.same({"s.npy", "s.npz"}, files_in(d .. "/sticky"))
    os.execute("rm -rf " .. d)
  end)

  -- (root's, as the second user's specs: a bind mount needs it) a file that is a mount point
  -- cannot be renamed over (EBUSY: a Docker -v file:file), and was refused
  it("write a file that is a mount point in place, as NumPy does", function()
    local d = tmpdir()
    write(d .. "/t.npy", "")
    write(d .. "/t.npz", "")
    write(d .. "/src", "old")
    if not os.execute("mount --bind " .. d .. "/src " .. d .. "/t.npy 2>/dev/null") then
      os.execute("rm -rf " .. d)
      return pending("no bind mounts here")
    end
    os.execute("mount --bind " .. d .. "/src " .. d .. "/t.npz")
    local ok1, e1 = pcall(gpu.save, d .. "/t.npy", gpu.arange(3, "int8"))
    local v = ok1 and gpu.load(d .. "/t.npy"):totable()
    local ok2, e2 = pcall(gpu.savez, d .. "/t.npz", {x = gpu.arange(2, "int8")})
    local z = ok2 and gpu.loadz(d .. "/t.npz").x:totable()
    os.execute("umount " .. d .. "/t.npy; umount " .. d .. "/t.npz")
    assert(ok1, e1)
    assert(ok2, e2)
    assert.are.same({0, 1, 2}, v)
    assert.are.same({0, 1}, z)
    assert.are.same({"src", "t.npy", "t.npz"}, files_in(d))   -- no temporary left
    os.execute("rm -rf " .. d)
  end)
end)

describe("NumPy #numpy #libzip", function()
  local function py(code) return S.run("python3 -c " .. S.quote(code)) end

  it("reads what gpuhost writes, and gpuhost what NumPy writes, bit for bit", function()
    local d = tmpdir()
    for _, dt in ipairs(gpu.dtypes) do
      local h = sample(dt)
      gpu.save(d .. "/" .. dt .. ".npy", h)
      local f = assert(io.open(d .. "/" .. dt .. ".raw", "wb")); f:write(h:bytes()); f:close()
    end
    local out, status, err = py(([[
import numpy as np, sys
d = %q
for dt in %q.split():
    a = np.load(d + "/" + dt + ".npy")
    raw = open(d + "/" + dt + ".raw", "rb").read()
    assert a.dtype == np.dtype(dt) and a.shape == (2, 3) and a.tobytes() == raw, dt
    np.save(d + "/np_" + dt + ".npy", a)
    np.save(d + "/npf_" + dt + ".npy", np.asfortranarray(a))
    np.save(d + "/npb_" + dt + ".npy", a.astype(a.dtype.newbyteorder(">")))
np.savez(d + "/np.npz", *[np.load(d + "/" + dt + ".npy") for dt in %q.split()])
print("ok")]]):format(d, table.concat(gpu.dtypes, " "), table.concat(gpu.dtypes, " ")))
    assert.are.equal(0, status, err)
    assert.are.equal("ok\n", out)
    local z = gpu.loadz(d .. "/np.npz")
    for i, dt in ipairs(gpu.dtypes) do
      local h = sample(dt)
      for _, prefix in ipairs({"np_", "npf_", "npb_"}) do
        assert.is_true(same_bytes(h, gpu.load(d .. "/" .. prefix .. dt .. ".npy")), prefix .. dt)
      end
      assert.is_true(same_bytes(h, z["arr_" .. (i - 1)]), "npz " .. dt)
    end
    gpu.savez(d .. "/g.npz", {a = sample("float64"), b = sample("uint16")})
    out, status, err = py(("import numpy as np; z = np.load(%q); print(z['a'][0, 1], z['b'].dtype, z['b'][0, 2])"):format(d .. "/g.npz"))
    assert.are.equal(0, status, err)
    assert.are.equal("-2.25 uint16 65535\n", out)
    os.execute("rm -rf " .. d)
  end)
end)

-- npy.lua: gpu.save and gpu.load, NumPy's .npy files (host/npy.c reads and writes them),
-- gpu.savez, savez_compressed and loadz, .npz files of several (host/npz.c, through
-- libzip), and NumPy's raw and text files: fromfile/tofile, frombuffer, fromstring,
-- tobytes, savetxt, loadtxt and genfromtxt (read and written here, on the host).
local gpu = ...

local trim = gpu._arg.trim
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
  gpu._arg.options(opts, "load", "device")
  local device = gpu._arg.flag(opts, "device", "load", false, 1)
  local ok, h, fortran = pcall(gpu._npy_read, path)
  if not ok then error(h, 2) end
  if fortran then h = h:transpose() end   -- the file held the transpose's bytes
  if device then return gpu.array(h) end
  return h
end

-- The arrays of gpu.savez's table, each a contiguous host array under its member name,
-- for the public function `fname` (savez or savez_compressed)
local function members(fname, arrays)
  if type(arrays) ~= "table" then
    error(("bad argument #2 to '%s' (table of arrays expected, got %s)"):format(fname, type(arrays)), 3)
  end
  local hosts = {}
  for k, a in pairs(arrays) do
    local name = math.type(k) == "integer" and k >= 1 and ("arr_%d"):format(k - 1) or k
    if type(name) ~= "string" or name == "" or name:find("\0", 1, true) then
      local shown = type(name) == "string" and name:find("\0", 1, true) and ("%q"):format(name)
                    or tostring(k)
      error(("bad argument #2 to '%s' (%s is not a member name)"):format(fname, shown), 3)
    end
    -- sub/x as numpy.savez writes it (sub/x.npy), but not one that unzip would put outside
    -- the folder it extracts to (numpy.savez writes ../x and /x too; .. is ...npy, inside)
    if name:find("^[/\\]") or ("/" .. name .. ".npy"):find("[/\\]%.%.[/\\]") then
      error(("bad argument #2 to '%s' (%s is not a member name: a leading '/' or a '..' part "
             .. "would put it outside the folder it is extracted to)"):format(fname, name), 3)
    end
    if hosts[name] then   -- a key arr_0 and a list's first array: numpy.savez refuses it too
      error(("bad argument #2 to '%s' (key %s is also the name of the list's entry %d)")
            :format(fname, name, tonumber(name:match("^arr_(%d+)$")) + 1), 3)
    end
    local h = host_contiguous(a)
    if not h then
      error(("bad argument #2 to '%s' (%s is a %s, not an array)"):format(fname, name, type(a)), 3)
    end
    hosts[name] = h
  end
  return hosts
end

-- gpu.savez(path, arrays): arrays a table of named arrays ({x = a, y = b}: x.npy, y.npy in
-- the archive) and of arrays in a list ({a, b}: arr_0.npy, arr_1.npy, as numpy.savez names
-- positional ones); stored uncompressed, as numpy.savez does
function gpu.savez(path, arrays)
  check_path(path, "savez")
  local ok, err = pcall(gpu._npz_write, path, members("savez", arrays))
  if not ok then error(err, 2) end
end

-- gpu.savez_compressed(path, arrays): the same, its members deflated
function gpu.savez_compressed(path, arrays)
  check_path(path, "savez_compressed")
  local ok, err = pcall(gpu._npz_write, path, members("savez_compressed", arrays), true)
  if not ok then error(err, 2) end
end

-- gpu.loadz(path [, {device = true}]): {name = host array (device array), ...}
function gpu.loadz(path, opts)
  check_path(path, "loadz")
  if opts ~= nil and type(opts) ~= "table" then
    error(("bad argument #2 to 'loadz' (options table expected, got %s)"):format(type(opts)), 2)
  end
  gpu._arg.options(opts, "loadz", "device")
  local device = gpu._arg.flag(opts, "device", "loadz", false, 1)
  local ok, t = pcall(gpu._npz_read, path)
  if not ok then error(t, 2) end
  if device then
    for k, h in pairs(t) do
      if type(h) ~= "string" then t[k] = gpu.array(h) end   -- (a member that is not a .npy: its bytes)
    end
  end
  return t
end

-- Raw bytes and text files (NumPy's tofile/fromfile, frombuffer, fromstring, savetxt,
-- loadtxt, genfromtxt). Readers give host arrays, as gpu.load does; the text is read and
-- written on the host, where the file is (a device array is copied there once).

local DTYPE = {}   -- name or alias ("half", "double") -> {name, size, kind}
for _, d in ipairs(gpu._dtypes) do
  DTYPE[d.name] = d
  for _, alias in ipairs(d.aliases) do DTYPE[alias] = d end
end

-- dtype argument #i of fname (default float64, as NumPy's)
local function check_dtype(dt, fname, i)
  if dt == nil then return DTYPE.float64 end
  if DTYPE[dt] then return DTYPE[dt] end
  if type(dt) ~= "string" then
    error(("bad argument #%d to '%s' (dtype expected, got %s)"):format(i, fname, type(dt)), 3)
  end
  error(("bad argument #%d to '%s' (unknown dtype '%s' (%s))")
        :format(i, fname, dt, table.concat(gpu.dtypes, ", ")), 3)
end

-- integer argument #i of fname, at least lo, or nil when v is nil
local function check_int(v, fname, i, what, lo)
  if v == nil then return nil end
  if math.type(v) == "float" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" or v < lo then
    error(("bad argument #%d to '%s' (%s expected, got %s)")
          :format(i, fname, what, type(v) == "number" and gpu._arg.shown(v) or type(v)), 3)
  end
  return v
end

local function check_opts(opts, fname, i, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(("bad argument #%d to '%s' (options table expected, got %s)"):format(i, fname, type(opts)), 3)
  end
  local names = {}
  for n in pairs(known) do names[#names + 1] = n end
  table.sort(names)
  return gpu._arg.options(opts, fname, table.concat(names, " "))
end

-- the whole of file path, or an error naming it
local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then error(("cannot read '%s': %s"):format(path, err:gsub("^.-: ", "")), 0) end
  local s, rerr = f:read("a")
  f:close()
  if not s then error(("cannot read '%s': %s"):format(path, rerr:gsub("^.-: ", "")), 0) end
  return s
end

local function write_file(path, s)
  local f, err = io.open(path, "wb")
  if not f then error(("cannot write '%s': %s"):format(path, err:gsub("^.-: ", "")), 0) end
  local ok, werr = f:write(s)
  local closed, cerr = f:close()
  if not ok or not closed then
    error(("cannot write '%s': %s"):format(path, tostring(werr or cerr):gsub("^.-: ", "")), 0)
  end
end

-- a host array of the bytes of s, count elements (-1: all) from byte offset; nil and why when
-- s is too short or not a whole number of elements
local function from_bytes(s, d, count, offset)
  local avail = #s - offset
  if offset > #s then return nil, ("offset %d is past its %d bytes"):format(offset, #s) end
  if count < 0 then
    if avail % d.size ~= 0 then
      return nil, ("its %d bytes after offset %d are not a whole number of %s elements (%d bytes each)")
                  :format(avail, offset, d.name, d.size)
    end
    count = avail // d.size
  elseif count > avail // d.size then   -- (count * d.size may pass 2^63)
    local need = count <= math.maxinteger // d.size and ("%d"):format(count * d.size)
                 or ("more than %d"):format(math.maxinteger)
    return nil, ("%d %s elements need %s bytes after offset %d, it has %d")
                :format(count, d.name, need, offset, avail)
  end
  return gpu.host.frombytes(s:sub(offset + 1, offset + count * d.size), d.name)
end

-- The integer of decimal text t ([+-]digits) for integer dtype d (or bool), exactly: a
-- uint64 past 2^63 as the Lua integer of its 64 bits. nil when t is no integer; nil and
-- "range" when it is one out of d's range.
local U10 = 1844674407370955161   -- (2^64 - 1) // 10
local function parse_integer(t, d)
  local sign, ds = t:match("^([+-]?)(%d+)$")
  if not ds then return nil end
  local u = 0   -- the magnitude, unsigned, in 64 bits
  for i = 1, #ds do
    local k = ds:byte(i) - 48
    if math.ult(U10, u) or (u == U10 and k > 5) then return nil, "range" end
    u = u * 10 + k
  end
  local neg = sign == "-" and u ~= 0
  if d.name == "bool" then return u ~= 0 end
  if d.name == "uint64" then
    if neg then return nil, "range" end
    return u
  end
  if d.name == "int64" then
    if (neg and math.ult(math.mininteger, u)) or (not neg and u < 0) then return nil, "range" end
    return neg and -u or u
  end
  if u < 0 then return nil, "range" end
  local v = neg and -u or u
  local bits = d.size * 8
  local lo, hi = 0, (1 << bits) - 1
  if d.kind == "i" then lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1 end
  if v < lo or v > hi then return nil, "range" end
  return v
end

-- a NaN with its sign bit clear, as Python's float("nan") (Lua's 0/0 has it set on x86)
local NAN = math.abs(0 / 0)

-- text t of a file or string as a message shows it: quoted, a control character or a
-- backslash escaped as Python's repr writes them (no raw newline inside a message); past
-- SHOWN bytes, its first SHOWN (back to a whole UTF-8 character) and "..." after the quote
local ESCAPES = {["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t", ["\\"] = "\\\\"}
local SHOWN = 60
local function quoted(t)
  local more = ""
  if #t > SHOWN then
    local cut = SHOWN
    while cut > 0 and t:find("^[\128-\191]", cut + 1) do cut = cut - 1 end
    t, more = t:sub(1, cut), ("... (%d bytes)"):format(#t)
  end
  return "'" .. t:gsub("[%c\\]", function(c) return ESCAPES[c] or ("\\x%02x"):format(c:byte()) end) .. "'" .. more
end

-- a number of dtype d from text t, or nil: floats as Python's float() reads them, integers
-- for integer dtypes (and bool), never Lua's hex or spaces inside
local function parse_number(t, d)
  t = trim(t)
  if d.kind == "f" then
    local sgn, word = t:match("^([+-]?)(%a+)$")
    if word then
      word = word:lower()
      if word == "nan" then return sgn == "-" and -NAN or NAN end
      if word == "inf" or word == "infinity" then return sgn == "-" and -math.huge or math.huge end
      return nil
    end
    -- digits, a point, digits (some of them), then an exponent or nothing: read in one pass
    -- ("^[+-]?%d+%.?%d*$" gave its digits back one at a time to the second %d*, rescanning
    -- a long run of them from each place)
    local int, point, frac, rest = t:match("^[+-]?(%d*)(%.?)(%d*)(.*)$")
    if not ((#int > 0 or (point == "." and #frac > 0)) and (rest == "" or rest:match("^[eE][+-]?%d+$"))) then
      return nil
    end
    local v = tonumber(t)
    if v == 0 then return t:sub(1, 1) == "-" and -0.0 or 0.0 end   -- (-0.0 + 0.0 is 0.0)
    return v + 0.0
  elseif d.kind == "c" then
    return nil
  end
  return parse_integer(t, d)
end

-- items of text s separated by sep (whitespace in sep: any run of whitespace), as numbers of
-- dtype d; count of them (-1: all). On failure: nil and why.
local function parse_items(s, d, count, sep)
  local items = {}
  if sep:match("^%s*$") then
    for w in s:gmatch("%S+") do items[#items + 1] = w end
  else
    local plain = trim(sep)
    local at = 1
    while true do
      local i, j = s:find(plain, at, true)
      items[#items + 1] = s:sub(at, i and i - 1 or -1)
      if not i then break end
      at = j + 1
    end
    -- a separator at the end (spaces after it too) ends the items, as NumPy's; so does none
    if items[#items]:match("^%s*$") then items[#items] = nil end
  end
  local n = count < 0 and #items or count
  if n > #items then return nil, ("%d items requested, it holds %d"):format(n, #items) end
  local vals = {}
  for i = 1, n do
    local v, why = parse_number(items[i], d)
    if v ~= v then v = NAN end   -- (NumPy's fromstring reads "-nan" as nan)
    if v == nil then
      return nil, ("item %d (%s) is %s"):format(i, quoted(items[i]), why and "out of range for " .. d.name or "not a " .. d.name .. " value")
    end
    vals[i] = v
  end
  return gpu.host.array(vals, d.name)
end

-- The arguments frombuffer and fromstring (fname) begin with: string s, dtype (its entry
-- in DTYPE) and count (-1, all, when nil)
local function string_args(fname, s, dtype, count)
  if type(s) ~= "string" then
    error(("bad argument #1 to '%s' (string expected, got %s)"):format(fname, type(s)), 3)
  end
  return check_dtype(dtype, fname, 2), check_int(count, fname, 3, "count of -1 or more", -1) or -1
end

-- gpu.frombuffer(s [, dtype [, count [, offset]]]): a host array of the bytes of string s
function gpu.frombuffer(s, dtype, count, offset)
  local d
  d, count = string_args("frombuffer", s, dtype, count)
  offset = check_int(offset, "frombuffer", 4, "non-negative offset", 0) or 0
  local h, why = from_bytes(s, d, count, offset)
  if not h then error(("bad argument #1 to 'frombuffer' (%s)"):format(why:gsub("^its", "the string's")), 2) end
  return h
end

-- gpu.fromstring(s, dtype, count, sep): text items (sep "" or nil: s's bytes, as frombuffer)
function gpu.fromstring(s, dtype, count, sep)
  local d
  d, count = string_args("fromstring", s, dtype, count)
  if sep ~= nil and type(sep) ~= "string" then
    error(("bad argument #4 to 'fromstring' (separator string expected, got %s)"):format(type(sep)), 2)
  end
  local h, why
  if sep == nil or sep == "" then h, why = from_bytes(s, d, count, 0)
  else h, why = parse_items(s, d, count, sep) end
  if not h then error(("bad argument #1 to 'fromstring' (%s)"):format(why:gsub("^its", "the string's")), 2) end
  return h
end

-- gpu.fromfile(path [, dtype [, count [, sep [, offset]]]])
function gpu.fromfile(path, dtype, count, sep, offset)
  check_path(path, "fromfile")
  local d = check_dtype(dtype, "fromfile", 2)
  count = check_int(count, "fromfile", 3, "count of -1 or more", -1) or -1
  if sep ~= nil and type(sep) ~= "string" then
    error(("bad argument #4 to 'fromfile' (separator string expected, got %s)"):format(type(sep)), 2)
  end
  offset = check_int(offset, "fromfile", 5, "non-negative offset", 0) or 0
  local text = sep ~= nil and sep ~= ""
  if text and offset ~= 0 then   -- NumPy's TypeError
    error("bad argument #5 to 'fromfile' (an offset is only for binary files, with sep \"\" or nil)", 2)
  end
  local s = read_file(path)
  local h, why
  if text then h, why = parse_items(s, d, count, sep)
  else h, why = from_bytes(s, d, count, offset) end
  if not h then error(("cannot read '%s': %s"):format(path, why), 2) end
  return h
end

-- a uint64 element (a Lua integer holding its 64 bits) in decimal: format.lua's
local function unsigned_text(v)
  if gpu._format_unsigned == nil then gpu._format_repr(0.0) end   -- (loads format.lua, which sets it)
  return gpu._format_unsigned(v)
end

-- NumPy's str() of one element (Python's, of a bool, an int, a float: the shortest digits
-- that read back the same). single: a float32's or float16's own shortest digits (savetxt's
-- "%s"); tofile makes a Python float of it first (0.1f: 0.10000000149011612), as NumPy 1.24
-- does.
local function element_text(v, dt, single)
  if type(v) == "boolean" then return v and "True" or "False" end
  if math.type(v) == "integer" then return dt == "uint64" and unsigned_text(v) or tostring(v) end
  return gpu._format_repr(v, single and (dt == "float32" or (dt == "float16" and "half")))
end

-- text s in a field of width w: left-justified with flag "-", else right (zero padding is
-- the caller's); widths past Lua's 99 too
local function padded(s, flags, w)
  if #s >= w then return s end
  if flags:find("-", 1, true) then return s .. (" "):rep(w - #s) end
  return (" "):rep(w - #s) .. s
end

-- Python's % of an integer conversion (d i u x X o) given its sign (neg) and the digits of
-- its magnitude (body): the precision's zeros, "-" (or the + and space flags), "#"'s 0x, 0X,
-- 0o, the 0 flag's zeros, the width
local function int_field(flags, w, prec, conv, neg, body)
  if prec and #body < prec then body = ("0"):rep(prec - #body) .. body end
  local head = neg and "-" or flags:find("+", 1, true) and "+" or flags:find(" ", 1, true) and " " or ""
  if flags:find("#", 1, true) and conv ~= "d" and conv ~= "i" and conv ~= "u" then
    head = head .. (conv == "o" and "0o" or conv == "x" and "0x" or "0X")
  end
  if flags:find("0", 1, true) and not flags:find("-", 1, true) and #head + #body < w then
    body = ("0"):rep(w - #head - #body) .. body
  end
  return padded(head .. body, flags, w)
end

-- Python's % of an integer conversion: negatives as "-" and the digits of the magnitude
-- ("-ff", not two's complement). v: a Lua integer (the bits of a uint64 element when unsigned)
local function int_percent(flags, w, prec, conv, v, unsigned)
  local neg = not unsigned and v < 0
  local mag = neg and -v or v   -- (-mininteger wraps to its own bits, 2^63 unsigned)
  local body
  if conv == "x" or conv == "X" or conv == "o" then body = ("%" .. (conv == "o" and "o" or "x")):format(mag)
  else body = (neg or unsigned) and unsigned_text(mag) or tostring(mag) end
  if conv == "X" then body = body:upper() end
  return int_field(flags, w, prec, conv, neg, body)
end

-- Python's % of one conversion spec: %d of a float truncates; %x %o %X of a float is an
-- error, as Python's; nan and inf print as words; %s is str() (element_text); a uint64
-- element (unsigned) at or above 2^63 as its unsigned value. Widths and precisions may pass
-- Lua's 99 (but %g's precision not). scalar: v is the NumPy scalar savetxt formats, not the
-- Python object tofile makes: a float32's own digits for %s, and a bool no integer for %x %X
-- %o %c (NumPy 2's np.bool has no __index__; tofile's Python bool is an int)
local function percent(spec, v, dt, scalar)
  local flags, w, prec, conv = spec:match("^%%([-+ #0]*)(%d*)%.?(%d*)(.)$")
  w = tonumber(w) or 0
  prec = spec:find(".", 1, true) and (tonumber(prec) or 0) or nil
  -- Python's words: a width past its Py_ssize_t (a float here), a precision past a C int;
  -- a width past a C int too, which Lua's string.rep cannot make (Python tries)
  if math.type(w) ~= "integer" or w > 2147483647 then error("width too big", 0) end
  if prec and (math.type(prec) ~= "integer" or prec > 2147483647) then error("precision too big", 0) end
  local unsigned = dt == "uint64"
  if conv == "s" or conv == "r" then
    local t = type(v) == "string" and v or element_text(v, dt, scalar)
    if prec then t = t:sub(1, prec) end
    return padded(t, flags, w)
  end
  if type(v) == "boolean" and scalar and conv:find("[xXoc]") then
    error(conv == "c" and "%c requires an int or a unicode character, not bool"
          or ("%%%s format: an integer is required, not bool"):format(conv), 0)
  end
  if type(v) == "boolean" then v = v and 1 or 0 end
  if math.type(v) == "float" and conv:find("[xXoc]") then
    error(("%%%s format: an integer is required, not float"):format(conv), 0)
  end
  if math.type(v) == "float" and (v ~= v or v == math.huge or v == -math.huge) then
    -- (a NaN is "nan" whatever its sign bit: Lua's 0 / 0 is "-nan" to tostring)
    if conv:find("[diu]") then error("cannot convert float " .. (v ~= v and "nan" or tostring(v)) .. " to integer", 0) end
    -- Python's: the sign flags, the zeros of a 0 flag, capitals for %E %F %G (NaN unsigned)
    local word = v ~= v and "nan" or "inf"
    if conv:find("%u") then word = word:upper() end
    local head = v == -math.huge and "-" or flags:find("+", 1, true) and "+" or flags:find(" ", 1, true) and " " or ""
    if flags:find("0", 1, true) and not flags:find("-", 1, true) and #head + #word < w then
      word = ("0"):rep(w - #head - #word) .. word
    end
    return padded(head .. word, flags, w)
  end
  if conv:find("[diu]") and math.type(v) == "float" then
    local t = v < 0 and math.ceil(v) or math.floor(v)
    v = math.tointeger(t) or t
    if math.type(v) == "float" then   -- past int64: Python's int of it, every digit exact
      return int_field(flags, w, prec, conv, v < 0, ("%.0f"):format(math.abs(v)))
    end
  end
  if conv:find("[diuxXo]") then return int_percent(flags, w, prec, conv, v, unsigned) end
  if conv == "c" then   -- Python's: the character of code v (UTF-8, as savetxt writes a path), no precision
    if v < 0 or v >= 0x110000 then error("%c arg not in range(0x110000)", 0) end
    local ch = utf8.char(v)
    return padded(ch, flags, w + #ch - 1)   -- (the width counts characters)
  end
  -- a uint64 past 2^63 as a float rounded once (v + 2^64 rounded v first)
  if unsigned and math.type(v) == "integer" and v < 0 then v = (v >> 11) * 2048.0 + (v & 0x7FF) end
  if prec and prec > 99 then   -- string.format stops at 99: the exact digits, built here
    if conv == "g" or conv == "G" then error(("precision %d of %%%s is past the most supported, 99"):format(prec, conv), 0) end
    local a, body = math.abs(v), nil
    if gpu._format_fixed == nil then gpu._format_repr(0.0) end   -- (loads format.lua, which sets them)
    if conv == "f" or conv == "F" then
      local ip, fp = gpu._format_fixed(a, prec)
      body = ip .. "." .. fp
    else
      local D, E = gpu._format_sci(a, prec)
      body = D:sub(1, 1) .. "." .. D:sub(2) .. ("%s%s%02d"):format(conv, E < 0 and "-" or "+", math.abs(E))
    end
    local head = (v < 0 or (v == 0 and 1 / v < 0)) and "-" or flags:find("+", 1, true) and "+"
                 or flags:find(" ", 1, true) and " " or ""
    if flags:find("0", 1, true) and not flags:find("-", 1, true) and #head + #body < w then
      body = ("0"):rep(w - #head - #body) .. body
    end
    return padded(head .. body, flags, w)
  end
  if conv == "F" then spec, conv = spec:sub(1, -2) .. "f", "f" end   -- Python's %F of a finite value (Lua has no %F)
  if w <= 99 then return spec:format(v) end
  local t = ("%" .. flags .. (prec and "." .. prec or "") .. conv):format(v)
  if flags:find("0", 1, true) and not flags:find("-", 1, true) and #t < w then
    local sgn, rest = t:match("^([-+ ]?)(.*)$")
    return sgn .. ("0"):rep(w - #t) .. rest
  end
  return padded(t, flags, w)
end

-- the conversions of a Python % format: {literal, spec, literal, spec, ..., literal}
local function conversions(fmt)
  local parts, at = {}, 1
  local lit = {}
  while true do
    local i = fmt:find("%", at, true)
    if not i then lit[#lit + 1] = fmt:sub(at); break end
    lit[#lit + 1] = fmt:sub(at, i - 1)
    if fmt:sub(i + 1, i + 1) == "%" then lit[#lit + 1] = "%"; at = i + 2
    else
      local j = select(2, fmt:find("^%%[-+ #0]*%d*%.?%d*[diouxXeEfFgGcrs]", i))
      if not j then return nil end
      parts[#parts + 1] = table.concat(lit); lit = {}
      parts[#parts + 1] = fmt:sub(i, j)
      at = j + 1
    end
  end
  parts[#parts + 1] = table.concat(lit)
  return parts
end

-- a:tofile(path [, sep [, fmt]]): the elements in C order, as raw bytes (sep "" or nil) or
-- as text separated by sep, each written with fmt (a Python % format; default '%s')
function gpu._tofile(a, path, sep, fmt)
  local h = host_contiguous(a)
  if not h then error(("bad argument #1 to 'tofile' (array expected, got %s)"):format(type(a)), 2) end
  check_path(path, "tofile")
  if sep ~= nil and type(sep) ~= "string" then
    error(("bad argument #2 to 'tofile' (separator string expected, got %s)"):format(type(sep)), 2)
  end
  if fmt ~= nil and type(fmt) ~= "string" then
    error(("bad argument #3 to 'tofile' (format string expected, got %s)"):format(type(fmt)), 2)
  end
  if sep == nil or sep == "" then return write_file(path, h:bytes()) end
  if h.dtype:find("^complex") then
    error("bad argument #1 to 'tofile' (complex arrays are written as bytes only, with sep \"\")", 2)
  end
  local parts = fmt and conversions(fmt)
  if fmt and (not parts or #parts ~= 3) then
    error(("bad argument #3 to 'tofile' (one %% conversion expected, got '%s')"):format(fmt), 2)
  end
  local out, dt = {}, h.dtype
  local ok, err = pcall(function()
    for i, v in ipairs(h.size > 0 and h:reshape(h.size):totable() or {}) do
      out[i] = parts and parts[1] .. percent(parts[2], v, dt) .. parts[3] or element_text(v, dt)
    end
  end)
  if not ok then error(("bad argument #3 to 'tofile' (format '%s': %s)"):format(fmt, gpu._arg.unwrapped(err)), 2) end
  write_file(path, table.concat(out, sep))
end

-- a:tobytes(): the elements in C order as a Lua string
function gpu._tobytes(a)
  local h = host_contiguous(a)
  if not h then error(("bad argument #1 to 'tobytes' (array expected, got %s)"):format(type(a)), 2) end
  return h:bytes()
end

local SAVETXT = {fmt = true, delimiter = true, newline = true, header = true, footer = true, comments = true}

-- savetxt's fmt (a string or a list of them, one a column) as one format and its
-- conversions (conversions' list), a conversion for each value of a row; complex as
-- NumPy's: a format of one conversion is " (f+fj)" a column, else a column takes two
-- conversions, its real and imaginary parts
local function savetxt_format(fmt, cols, delim, complex)
  if type(fmt) == "table" then   -- a format per column
    if #fmt ~= cols then
      error(("bad argument #3 to 'savetxt' (options.fmt has %d formats, the array %d columns)"):format(#fmt, cols), 3)
    end
    for _, f in ipairs(fmt) do
      if type(f) ~= "string" then error("bad argument #3 to 'savetxt' (options.fmt must hold strings)", 3) end
    end
    fmt = table.concat(fmt, delim)
  elseif type(fmt) ~= "string" then
    error(("bad argument #3 to 'savetxt' (options.fmt must be a string or a list of them, got %s)"):format(type(fmt)), 3)
  end
  local parts = conversions(fmt)
  if parts and #parts == 3 and (cols ~= 1 or complex) then   -- (0 columns: an empty line a row, as NumPy's)
    local one = {}
    for i = 1, cols do one[i] = complex and " (" .. fmt .. "+" .. fmt .. "j)" or fmt end
    parts = conversions(table.concat(one, delim))
  end
  if not parts or (#parts - 1) // 2 ~= (complex and 2 * cols or cols) then
    error(("bad argument #3 to 'savetxt' (options.fmt '%s' has not one %% conversion or %s (%d))")
          :format(fmt, complex and "two per complex column" or "one per column", cols), 3)
  end
  return fmt, parts
end

-- gpu.savetxt(path, a [, opts]): a 1-D (one value a line) or 2-D array as text
function gpu.savetxt(path, a, opts)
  check_path(path, "savetxt")
  local h = host_contiguous(a)
  if not h then error(("bad argument #2 to 'savetxt' (array expected, got %s)"):format(type(a)), 2) end
  if h.ndim ~= 1 and h.ndim ~= 2 then
    error(("bad argument #2 to 'savetxt' (1-D or 2-D array expected, got %d-D)"):format(h.ndim), 2)
  end
  opts = check_opts(opts, "savetxt", 3, SAVETXT)
  for _, k in ipairs({"delimiter", "newline", "header", "footer", "comments"}) do
    if opts[k] ~= nil and type(opts[k]) ~= "string" then
      error(("bad argument #3 to 'savetxt' (options.%s must be a string, got %s)"):format(k, type(opts[k])), 2)
    end
  end
  local delim, nl, comments = opts.delimiter or " ", opts.newline or "\n", opts.comments or "# "
  local rows = h.ndim == 1 and h.shape[1] or h.shape[1]
  local cols = h.ndim == 1 and 1 or h.shape[2]
  local complex = h.dtype:find("^complex") ~= nil
  local fmt, parts = savetxt_format(opts.fmt or "%.18e", cols, delim, complex)
  local dt = complex and (h.dtype == "complex64" and "float32" or "float64") or h.dtype
  local out = {}
  if opts.header and opts.header ~= "" then out[1] = comments .. opts.header:gsub("\n", function() return "\n" .. comments end) .. nl end
  local t = h.size > 0 and h:totable() or {}
  local ok, err = pcall(function()
    for r = 1, rows do
      local row = h.ndim == 1 and {t[r]} or t[r]
      if complex then   -- the parts in order, as NumPy's row of reals
        local two = {}
        for c = 1, cols do two[2 * c - 1] = row[c].re; two[2 * c] = row[c].im end
        row = two
      end
      local line = {}
      for c = 1, (#parts - 1) // 2 do line[#line + 1] = parts[2 * c - 1]; line[#line + 1] = percent(parts[2 * c], row[c], dt, true) end
      line[#line + 1] = parts[#parts]
      local text = table.concat(line) .. nl
      out[#out + 1] = complex and text:gsub("%+%-", "-") or text
    end
  end)
  if not ok then error(("bad argument #3 to 'savetxt' (options.fmt '%s': %s)"):format(fmt, gpu._arg.unwrapped(err)), 2) end
  if opts.footer and opts.footer ~= "" then out[#out + 1] = comments .. opts.footer:gsub("\n", function() return "\n" .. comments end) .. nl end
  write_file(path, table.concat(out))
end

-- A list of strings from option k (a string or a list of them), or dflt
local function strings_opt(opts, k, fname, dflt)
  local v = opts[k]
  if v == nil then return dflt end
  if v == false then return {} end
  if type(v) == "string" then return v == "" and {} or {v} end
  if type(v) == "table" then
    for _, x in ipairs(v) do if type(x) ~= "string" then v = nil; break end end
    if v then return v end
  end
  error(("bad argument #2 to '%s' (options.%s must be a string or a list of strings)"):format(fname, k), 3)
end

-- The shared options of loadtxt and genfromtxt, checked: dtype, delimiter, comments,
-- usecols (1-based, negative from the end), max_rows, ndmin
local function text_options(opts, fname)
  local o = {d = check_dtype(opts.dtype, fname, 2), device = gpu._arg.flag(opts, "device", fname, false, 2)}
  if o.d.kind == "c" then error(("bad argument #2 to '%s' (options.dtype: complex text is not read)"):format(fname), 3) end
  if opts.delimiter ~= nil and (type(opts.delimiter) ~= "string" or opts.delimiter == "") then
    error(("bad argument #2 to '%s' (options.delimiter must be a non-empty string)"):format(fname), 3)
  end
  o.delimiter = opts.delimiter
  o.comments = strings_opt(opts, "comments", fname, {"#"})
  if opts.usecols ~= nil then
    local u = type(opts.usecols) == "number" and {opts.usecols} or opts.usecols
    if type(u) ~= "table" or #u == 0 then
      error(("bad argument #2 to '%s' (options.usecols must be a column or a list of columns)"):format(fname), 3)
    end
    for _, c in ipairs(u) do
      if math.type(c) ~= "integer" or c == 0 then
        error(("bad argument #2 to '%s' (options.usecols: %s is not a column (1-based, negative from the end))")
              :format(fname, tostring(c)), 3)
      end
    end
    o.usecols = u
  end
  o.max_rows = check_int(opts.max_rows, fname, 2, "options.max_rows non-negative", 0)
  o.ndmin = check_int(opts.ndmin, fname, 2, "options.ndmin of 0, 1 or 2", 0) or 0
  if o.ndmin > 2 then error(("bad argument #2 to '%s' (options.ndmin of 0, 1 or 2 expected, got %d)"):format(fname, o.ndmin), 3) end
  return o
end

-- Python's whitespace past ASCII (str.isspace), in UTF-8: U+0085, U+00A0, U+1680, U+2000 to
-- U+200A, U+2028, U+2029, U+202F, U+205F, U+3000. NumPy's loadtxt strips all of Python's
-- whitespace around a field (ASCII's and \x1c to \x1f too), genfromtxt what Python's float()
-- does (not \x1c to \x1f), and both split at any of it where no delimiter is given.
local WIDE = {}
for _, c in ipairs({0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000}) do WIDE[utf8.char(c)] = true end
for c = 0x2000, 0x200a do WIDE[utf8.char(c)] = true end
local LOADTXT_SPACE, FLOAT_SPACE = "^[%s\28-\31]$", "^%s$"

-- t without the whitespace at either end, ASCII's of the pattern `ascii` and WIDE's (the
-- ends looked at alone: linear in their length)
local function edge(b)   -- a byte that may be (part of) whitespace at an end
  return b and (b == 32 or (b >= 9 and b <= 13) or (b >= 28 and b <= 31) or b >= 128)
end
local function text_trim(t, ascii)
  if not edge(t:byte(1)) and not edge(t:byte(-1)) then return t end
  local i, j = 1, #t
  while i <= j do
    if t:sub(i, i):find(ascii) then i = i + 1
    elseif WIDE[t:sub(i, i + 1)] then i = i + 2
    elseif WIDE[t:sub(i, i + 2)] then i = i + 3
    else break end
  end
  while j >= i do
    if t:sub(j, j):find(ascii) then j = j - 1
    elseif j - 1 >= i and WIDE[t:sub(j - 1, j)] then j = j - 2
    elseif j - 2 >= i and WIDE[t:sub(j - 2, j)] then j = j - 3
    else break end
  end
  return t:sub(i, j)
end

-- The data rows of text s: {{line = n, fields...}, ...}, after `skip` lines, without
-- comments and blank lines, at most o.max_rows of them
local function text_rows(s, o, skip, strip)
  local rows, n = {}, 0
  s = s:gsub("\r\n?", "\n")   -- "\r\n", "\n" and "\r" end lines
  for line in (s:sub(-1) == "\n" and s or s .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if n > skip and not (o.max_rows and #rows >= o.max_rows) then
      for _, c in ipairs(o.comments) do
        local i = line:find(c, 1, true)
        if i then line = line:sub(1, i - 1) end
      end
      if strip then line = trim(line, " \r\n") end   -- (genfromtxt's LineSplitter)
      if not line:match("^%s*$") then
        local fields = {line = n}
        if o.delimiter == nil then
          local spaced = not line:find("[\194\225\226\227]") and line or
            line:gsub("[\194\225\226\227][\128-\191][\128-\191]?", function(c)
              if WIDE[c] then return " " end
            end)
          for w in spaced:gmatch("[^%s\28-\31]+") do fields[#fields + 1] = w end
        else
          local at, space = 1, strip and FLOAT_SPACE or LOADTXT_SPACE
          while true do
            local i, j = line:find(o.delimiter, at, true)
            fields[#fields + 1] = text_trim(line:sub(at, i and i - 1 or -1), space)
            if not i then break end
            at = j + 1
          end
        end
        if #fields > 0 then rows[#rows + 1] = fields end   -- (a line of WIDE spaces alone)
      end
    end
  end
  return rows
end

-- The columns of each row that usecols picks (all when nil); every row the same count
local function pick_columns(rows, usecols)
  local ncols
  for r, fields in ipairs(rows) do
    if usecols then
      local picked = {line = fields.line}
      for k, c in ipairs(usecols) do
        local i = c < 0 and #fields + 1 + c or c
        if i < 1 or i > #fields then
          error(("line %d has %d columns, usecols names column %d"):format(fields.line, #fields, c), 0)
        end
        picked[k] = fields[i]
      end
      rows[r] = picked
      fields = picked
    end
    ncols = ncols or #fields
    if #fields ~= ncols then
      error(("line %d has %d column%s, line %d has %d"):format(fields.line, #fields, #fields == 1 and "" or "s",
            rows[1].line, ncols), 0)
    end
  end
  return ncols or 0
end

-- The host array of the parsed rows (a table of rows of values), shaped as NumPy's
-- loadtxt shapes it: length-1 dimensions squeezed out past ndmin, and up to ndmin
local function shaped(vals, ncols, d, ndmin)
  local h
  if #vals == 0 and ncols > 0 then h = gpu.host.zeros({0, ncols}, d.name)   -- (loadtxt's usecols)
  elseif #vals == 0 then h = gpu.host.zeros(0, d.name)
  else h = gpu.host.array(vals, d.name) end
  local shape = h.shape
  if #shape > ndmin then
    local s = {}
    for _, n in ipairs(shape) do if n ~= 1 then s[#s + 1] = n end end
    shape = s
  end
  if #shape < ndmin then
    if ndmin == 1 then shape = {1}
    elseif #shape == 0 then shape = {1, 1}
    else shape = {shape[1], 1} end
  end
  return h:reshape(shape)
end

local function text_result(h, o)
  if o.device then return gpu.array(h) end
  return h
end

local LOADTXT = {dtype = true, delimiter = true, comments = true, skiprows = true, usecols = true,
                 max_rows = true, ndmin = true, device = true}

-- gpu.loadtxt(path [, opts]): a host array (a device array with device = true) of the
-- numbers in a text file, a row a line
function gpu.loadtxt(path, opts)
  check_path(path, "loadtxt")
  opts = check_opts(opts, "loadtxt", 2, LOADTXT)
  local o = text_options(opts, "loadtxt")
  local skip = check_int(opts.skiprows, "loadtxt", 2, "options.skiprows non-negative", 0) or 0
  local text = read_file(path)
  local ok, h = pcall(function()
    local rows = text_rows(text, o, skip)
    local ncols = pick_columns(rows, o.usecols)
    if #rows == 0 and o.usecols then ncols = #o.usecols end   -- NumPy's shape {0, #usecols}
    local vals = {}
    for r, fields in ipairs(rows) do
      local row = {}
      for c, f in ipairs(fields) do
        local v, why = parse_number(f, o.d)
        if v == nil then
          error(("line %d, column %d: %s is %s"):format(fields.line, c, quoted(f),
                why and "out of range for " .. o.d.name or "not a " .. o.d.name .. " value"), 0)
        end
        row[c] = v
      end
      vals[r] = row
    end
    return shaped(vals, ncols, o.d, o.ndmin)
  end)
  if not ok then error(("cannot read '%s': %s"):format(path, tostring(h):gsub("^bad argument #%d+ to '[%w_.?]+' %((.*)%)$", "%1")), 2) end
  return text_result(h, o)
end

-- field t as genfromtxt reads it, with Python's float() and int(): an underscore between two
-- digits taken out (1_000 is 1000; loadtxt refuses it, as NumPy's); t as it is where one
-- is elsewhere (_1, 1__0, 1_.5: unreadable, so filled)
local function python_number(t)
  if not t:find("_", 1, true) or t:find("^_") or t:find("_$") or t:find("[^%d]_") or t:find("_[^%d]") then
    return t
  end
  return (t:gsub("_", ""))
end

-- field t as genfromtxt reads it for integer dtype d: int64 and uint64 integers only (NumPy's
-- strict np.int64 and np.uint64), the narrower ones int(float(t)) as NumPy's (1.5 and 1e3 read,
-- truncated toward zero; nan unreadable, so filled); nil and "range" for a value out of d's
-- range, infinities too (NumPy's OverflowError)
local F64 = {kind = "f", name = "float64", size = 8}
local function genfromtxt_integer(t, d)
  if d.size == 8 then return parse_integer(t, d) end
  local f = parse_number(t, F64)
  if f == nil or f ~= f then return nil end
  if f == math.huge or f == -math.huge then return nil, "range" end
  f = f < 0 and math.ceil(f) or math.floor(f)
  local range = gpu.iinfo(d.name)
  if f < range.min or f > range.max then return nil, "range" end
  return math.tointeger(f)
end

local GENFROMTXT = {dtype = true, delimiter = true, comments = true, skip_header = true, skip_footer = true,
                    usecols = true, max_rows = true, ndmin = true, missing_values = true,
                    filling_values = true, device = true}

-- gpu.genfromtxt(path [, opts]): loadtxt's, with missing and unreadable values filled
-- (filling_values: NaN for floats, -1 for integers, as NumPy's)
function gpu.genfromtxt(path, opts)
  check_path(path, "genfromtxt")
  opts = check_opts(opts, "genfromtxt", 2, GENFROMTXT)
  local o = text_options(opts, "genfromtxt")
  local skip = check_int(opts.skip_header, "genfromtxt", 2, "options.skip_header non-negative", 0) or 0
  local footer = check_int(opts.skip_footer, "genfromtxt", 2, "options.skip_footer non-negative", 0) or 0
  if footer > 0 and o.max_rows then   -- NumPy's ValueError
    error("bad argument #2 to 'genfromtxt' (options.skip_footer and options.max_rows cannot be given together)", 2)
  end
  local missing = {[""] = true}
  for _, m in ipairs(strings_opt(opts, "missing_values", "genfromtxt", {})) do missing[m] = true end
  local fill = opts.filling_values
  if fill == nil then   -- NumPy's -1, wrapped for unsigned dtypes (255 for uint8); false for bool
    if o.d.kind == "f" then fill = NAN elseif o.d.name == "bool" then fill = false else fill = -1 end
    if o.d.kind == "u" and o.d.size < 8 then fill = (1 << (8 * o.d.size)) - 1 end
  end
  if type(fill) ~= "number" and type(fill) ~= "boolean" then
    error(("bad argument #2 to 'genfromtxt' (options.filling_values must be a number, got %s)"):format(type(fill)), 2)
  end
  if type(fill) == "number" and o.d.kind ~= "f" and o.d.kind ~= "b" then
    if math.type(fill) == "float" and fill ~= math.floor(fill) or fill ~= fill then   -- (NumPy truncates it)
      error(("bad argument #2 to 'genfromtxt' (options.filling_values %s is not an integer, which %s needs)")
            :format(gpu._arg.shown(fill), o.d.name), 2)
    end
    local ok = pcall(gpu.host.array, {fill}, o.d.name)
    if not ok then
      error(("bad argument #2 to 'genfromtxt' (options.filling_values %s is out of range for %s)")
            :format(gpu._arg.shown(fill), o.d.name), 2)
    end
  end
  local text = read_file(path)
  local ok, h = pcall(function()
    local rows = text_rows(text, o, skip, true)
    for _ = 1, math.min(footer, #rows) do rows[#rows] = nil end
    local ncols = pick_columns(rows, o.usecols)
    local vals = {}
    for r, fields in ipairs(rows) do
      local row = {}
      for c, f in ipairs(fields) do
        local v, why
        if o.d.name == "bool" then   -- NumPy's genfromtxt reads the words True and False alone
          local w = f:lower()
          if w == "true" then v = true elseif w == "false" then v = false end
        elseif missing[f] then   -- (filled)
        elseif o.d.kind == "i" or o.d.kind == "u" then v, why = genfromtxt_integer(python_number(f), o.d)
        else v, why = parse_number(python_number(f), o.d) end
        if why then
          error(("line %d, column %d: %s is out of range for %s"):format(fields.line, c, quoted(f), o.d.name), 0)
        end
        if v == nil then v = fill end
        row[c] = v
      end
      vals[r] = row
    end
    return shaped(vals, ncols, o.d, o.ndmin)
  end)
  if not ok then error(("cannot read '%s': %s"):format(path, tostring(h):gsub("^bad argument #%d+ to '[%w_.?]+' %((.*)%)$", "%1")), 2) end
  return text_result(h, o)
end

-- errors at the caller's line, also those of an array's methods called here
for _, name in ipairs({"save", "load", "savez", "savez_compressed", "loadz", "savetxt", "loadtxt", "genfromtxt",
                       "fromfile", "frombuffer", "fromstring", "_tofile", "_tobytes"}) do
  gpu[name] = gpu._api(gpu[name])
end

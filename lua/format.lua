-- format.lua: how arrays print (tostring, and so the prompt), as NumPy's do:
--   gpu.array(float32, {3}) [1, 2, 3]            0-D and 1-D: one line, the leading and
--   gpu.array(int32, {20}) [0, 1, ..., 19]        the last values past HEAD + TAIL
--   gpu.array(float32, {2, 3})                   2-D and up: rows, the values aligned;
--   [[1, 2, 3],                                   past THRESHOLD elements the first and
--    [4, 5, 6]]                                   last EDGE along each dimension
-- The values come through views (a[{...}]:totable()), so a device array is read with at
-- most one copy per corner of what is shown. gpu.set_printoptions and its kin (defined
-- here) change it as NumPy's do; floats keep gpuhost's shortest form (floatmode
-- "shortest") until a precision or one of NumPy's float modes is asked for.
local gpu = ...
local M = {}

local HEAD, TAIL = 6, 3   -- a 1-D line's first and last values, until threshold or edgeitems are set

local DEFAULTS = {precision = 8, threshold = 1000, edgeitems = 3, linewidth = 75, suppress = false,
                  sign = "-", floatmode = "shortest", nanstr = "nan", infstr = "inf"}
local opt, given = {}, {}   -- the options now; those set by set_printoptions (not defaults)
for k, v in pairs(DEFAULTS) do opt[k] = v end

-- a text's width: its characters where it is UTF-8 (as NumPy counts a nanstr of "∅"), else
-- its bytes (utf8 may be missing from a sandbox)
local utf8_len = utf8 and utf8.len
local function text_len(s) return utf8_len and utf8_len(s) or #s end
-- s without its trailing whitespace, in linear time (gsub("%s+$", "") rescans a run of
-- spaces inside s, as a long separator's, from each of its places)
local function rstrip(s) return s:sub(1, s:find("%S%s*$") or 0) end

-- Throughout, `single` says which float a value is: true for float32 (and complex64),
-- "half" for float16, false or nil for float64.

-- x (a double) rounded to the nearest float16, half to even, as a double
local function to_half(x)
  local a = math.abs(x)
  if a ~= a or a == math.huge or a == 0 then return x end
  local e = math.max(math.floor(math.log(a, 2)), -14)
  if e > -14 and 2.0 ^ e > a then e = e - 1 elseif 2.0 ^ (e + 1) <= a then e = e + 1 end
  local q = 2.0 ^ (math.max(e, -14) - 10)   -- the step between float16s near a
  local r = a / q
  local f = math.floor(r)
  if r - f > 0.5 or (r - f == 0.5 and f % 2 == 1) then f = f + 1 end
  local h = f * q
  if h > 65504 then h = math.huge end
  return x < 0 and -h or h
end
gpu._format_to_half = to_half

-- back (a double read from text) as the float that `single` names would hold it
local function narrow(back, single)
  if single == "half" then return to_half(back) end
  if single then return (string.unpack("f", string.pack("f", back))) end
  return back
end

-- the most significant digits the float that `single` names needs to read back the same
local function most_digits(single)
  return single == "half" and 5 or single and 9 or 17
end

-- The shortest digits of finite v >= 0 that read back as v in its dtype: D (a string of
-- digits) and E, v = D[1].D[2..] * 10^E
local function digits(v, single, from)   -- (from: the fewest digits to try, 1 unless given)
  if v == 0 then return "0", 0 end
  local most = most_digits(single)
  -- only at a power of two (a double's, so also a float32's or float16's) is the interval
  -- that reads back lopsided, so that the other side's digits may read back where the
  -- nearest do not
  local pow2 = string.unpack("<i8", string.pack("<d", v)) & ((1 << 52) - 1) == 0
  for p = from or 1, most do
    local s = ("%." .. (p - 1) .. "e"):format(v)
    local back = narrow(tonumber(s) + 0.0, single)
    if back == v or p == most or pow2 then
      local m, e = s:match("^([%d%.]+)e([-+]%d+)$")
      local D, E = (m:gsub("%.", "")), tonumber(e)
      if back == v or p == most then return D, E end
      -- the p digits on v's other side: printf rounds a tie to even, and at a power of two
      -- only the one above reads back (2^-24: 5.960464477539063e-08, not ...062e-08)
      local other = math.tointeger(D) + (back < v and 1 or -1)
      if other > 0 and narrow(tonumber(("%de%d"):format(other, E - p + 1)) + 0.0, single) == v then
        local od = tostring(other)
        return (od:gsub("0+$", "")), E + #od - p   -- (a carry: 999 + 1 is 1e3)
      end
    end
  end
end

-- D, E as the integer and fraction digits of a positional number
local function split_positional(D, E)
  if E >= 0 then
    local ip = D:sub(1, E + 1)
    return ip .. ("0"):rep(E + 1 - #ip), D:sub(E + 2)
  end
  return "0", ("0"):rep(-E - 1) .. D
end

-- A float with the fewest significant digits (6 at least, as %.6g has always shown them;
-- up to 9 for float32, 17 for float64) that read back as the same value in its dtype, as
-- NumPy shows the shortest repr: distinct values never look equal. A float16 shows its
-- shortest digits, from 1 (0.1, 0.3333, 6e-08), a whole number all of them (65504).
local function float_text(v, single)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  if single == "half" then
    if v == math.floor(v) then return ("%.0f"):format(v) end
    local D, E = digits(math.abs(v), single)
    local x = tonumber(D .. "e" .. (E - #D + 1))
    return ("%." .. #D .. "g"):format(v < 0 and -x or x)
  end
  local D, E = digits(math.abs(v), single, 6)   -- (%.6g below 6: the nearest, which reads back)
  if #D <= 6 then return ("%.6g"):format(v) end
  -- past 6 digits a whole number shows all of them (16777220, not 1.677722e+07)
  if E >= #D and E < most_digits(single) then return ("%." .. (E + 1) .. "g"):format(v) end
  -- written from D, not by %.pg: its nearest p digits need not read back where the other
  -- side's do (2^-24: 5.960464477539063e-08, not ...0625e-08)
  local s
  if E < -4 or E >= #D then
    s = D:sub(1, 1) .. "." .. D:sub(2) .. ("e%s%02d"):format(E < 0 and "-" or "+", math.abs(E))
  else
    local ip, fp = split_positional(D, E)
    s = fp == "" and ip or ip .. "." .. fp
  end
  return (v < 0 and "-" or "") .. s
end

-- Python's repr of a float (NumPy's str of a scalar): shortest digits, positional from
-- 1e-4 to 1e16, "1.0" for a whole number
function M.repr(v, single)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  local neg = v < 0 or (v == 0 and 1 / v < 0)
  local a = math.abs(v)
  local D, E = digits(a, single)
  local s
  -- the form by the value, as NumPy's scalar str: float32 1e-4 (9.9999997e-05) is below
  -- 1e-4, so 1e-04, though its shortest digits are 1e-4 (a double's agree either way)
  if a ~= 0 and (a < 1e-4 or a >= 1e16) then
    s = D:sub(1, 1) .. (#D > 1 and "." .. D:sub(2) or "") .. ("e%s%02d"):format(E < 0 and "-" or "+", math.abs(E))
  else
    local ip, fp = split_positional(D, E)
    s = ip .. "." .. (fp == "" and "0" or fp)
  end
  return (neg and "-" or "") .. s
end
gpu._format_repr = M.repr

-- The exact decimal digits of finite a >= 0 (a double is m * 2^e, a finite decimal): the
-- integer and fraction digits. For precisions past 99, which string.format refuses.
local function exact_digits(a)
  local bits = string.unpack("<i8", string.pack("<d", a))
  local be, m = (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
  local e = be == 0 and -1074 or be - 1075
  if be ~= 0 then m = m | (1 << 52) end
  local limbs = {}   -- base 10^7, least significant first
  while m > 0 do limbs[#limbs + 1] = m % 10000000; m = m // 10000000 end
  local function times(k)
    local carry = 0
    for i = 1, #limbs do
      local t = limbs[i] * k + carry
      limbs[i], carry = t % 10000000, t // 10000000
    end
    while carry > 0 do limbs[#limbs + 1] = carry % 10000000; carry = carry // 10000000 end
  end
  local left = e >= 0 and e or -e   -- doublings, or multiplications by 5 (a = m 5^k / 10^k)
  local step, by = e >= 0 and 20 or 9, e >= 0 and (1 << 20) or 1953125
  while left >= step do times(by); left = left - step end
  if left > 0 then
    local k = 1
    for _ = 1, left do k = k * (e >= 0 and 2 or 5) end
    times(k)
  end
  local t = {tostring(limbs[#limbs] or 0)}
  for i = #limbs - 1, 1, -1 do t[#t + 1] = ("%07d"):format(limbs[i]) end
  local s = table.concat(t)
  if e >= 0 then return s, "" end
  if #s <= -e then s = ("0"):rep(-e - #s + 1) .. s end
  return s:sub(1, #s + e), s:sub(#s + e + 1)
end

-- digits ds rounded to n of them, half to even on what follows (rest); the carry makes one
-- more digit
local function round_digits(ds, rest)
  local r1 = rest:sub(1, 1)
  local up = r1 > "5" or (r1 == "5" and (rest:find("[1-9]", 2) or (tonumber(ds:sub(-1)) or 0) % 2 == 1))
  if not up then return ds end
  local out, i = {}, #ds
  while i >= 1 and ds:sub(i, i) == "9" do out[#out + 1] = "0"; i = i - 1 end
  if i == 0 then return "1" .. table.concat(out) end
  return ds:sub(1, i - 1) .. string.char(ds:byte(i) + 1) .. table.concat(out)
end

local function fixed(a, p)
  if p <= 99 then
    local s = ("%." .. p .. "f"):format(a)
    return s:match("^(%d+)%.?(%d*)$")
  end
  local ip, fp = exact_digits(a)
  if #fp <= p then return ip, fp .. ("0"):rep(p - #fp) end
  local r = round_digits(ip .. fp:sub(1, p), fp:sub(p + 1))
  return r:sub(1, #r - p), r:sub(#r - p + 1)
end

-- mantissa digits (p + 1 of them) and exponent of a in scientific form, as "%.pe" has them
local function sci_digits(a, p)
  if p <= 99 then
    local m, e = ("%." .. p .. "e"):format(a):match("^([%d%.]+)e([-+]%d+)$")
    return (m:gsub("%.", "")), tonumber(e)
  end
  if a == 0 then return ("0"):rep(p + 1), 0 end
  local ip, fp = exact_digits(a)
  local all = ip .. fp
  local i = all:find("[1-9]")
  local E = #ip - i
  local sig = all:sub(i) .. ("0"):rep(p + 1)
  local r = round_digits(sig:sub(1, p + 1), sig:sub(p + 2))
  if #r > p + 1 then r, E = r:sub(1, p + 1), E + 1 end
  return r, E
end
gpu._format_fixed, gpu._format_sci = fixed, sci_digits   -- (savetxt's precisions past 99)

-- Digits rounded at a cutoff, as dragon4 gives them: rounded down, the digits kept (zeros
-- too); rounded up, without the zeros the carry made of trailing nines. r: the rounded
-- fraction digits; t: the truncated ones (the first of a longer expansion).
local function cut(r, t)
  if r == t then return r end
  local nines = #t:match("9*$")
  return r:sub(1, #r - math.min(nines, #r))
end

-- trailing zeros of fraction fp cut as trim says ("k" keeps them), not below keep digits
local function trimmed(ip, fp, trim)   -- (min_digits' zeros too, as dragon4's)
  if trim ~= "k" then
    while #fp > 0 and fp:sub(-1) == "0" do fp = fp:sub(1, -2) end
  end
  if fp == "" then
    if trim == "-" then return ip end
    if trim == "0" then return ip .. ".0" end
  end
  return ip .. "." .. fp
end

local function sign_of(v, plus)
  if v < 0 or (v == 0 and 1 / v < 0) then return "-" end
  return plus and "+" or ""
end

-- NumPy's dragon4 positional and scientific forms of finite v (o: precision, unique,
-- trim, sign (a boolean: "+" for v >= 0), min_digits, pad_left, pad_right, exp_digits)
local function positional(v, o)
  local a = math.abs(v)
  local ip, fp, rounded
  if o.unique then
    local D, E = digits(a, o.single)
    ip, fp = split_positional(D, E)
    -- with min_digits given, dragon4 writes the integer digits exactly (float32 82148704,
    -- not its shortest 82148700), as NumPy's arrays show them
    if o.min_digits and E >= #D then ip = ("%.0f"):format(a) end
    if o.precision and #fp > o.precision then
      local _, long = fixed(a, o.precision + 25)
      ip, fp = fixed(a, o.precision)
      fp = cut(fp, long:sub(1, o.precision))
      rounded = true
    end
  else
    ip, fp = fixed(a, o.precision)
  end
  local keep = o.unique and o.min_digits or 0   -- (NumPy's: min_digits counts with unique only)
  if #fp < keep and rounded then fp = fp .. ("0"):rep(keep - #fp)   -- the rounded value's zeros
  elseif #fp < keep then ip, fp = fixed(a, keep) end
  local s = trimmed(ip, fp, o.trim or "k")
  local i, f = s:match("^(%d+)(.*)$")
  i = sign_of(v, o.sign) .. i
  if o.pad_left then i = (" "):rep(o.pad_left - #i) .. i end
  if o.pad_right then f = f .. (" "):rep(o.pad_right + 1 - #f) end
  return i .. f
end

-- the digits of a to p places in scientific form as dragon4 generates them, and their
-- exponent: rounded up, without the zeros the carry made of trailing nines (0.7 to 1 place
-- is "7", 1e23 to 2 is "1"), as cut() has them; and the digits rounded, zeros and all
local function sci_cut(a, p)
  local D, E = sci_digits(a, p)
  local long, le = sci_digits(a, p + 25)
  return D:sub(1, 1) .. cut(E == le and D:sub(2) or "", long:sub(2, p + 1)), E, D
end

local function scientific(v, o)
  local a = math.abs(v)
  local D, E, rounded, gen
  if o.unique then
    D, E = digits(a, o.single)
    if o.precision and #D - 1 > o.precision then
      D, E = sci_cut(a, o.precision)
      rounded = true
    end
    gen = D
  else
    gen, E, D = sci_cut(a, o.precision)
    -- an exact value's end zeros are padding, not generated
    if not sci_digits(a, o.precision + 25):find("[1-9]", o.precision + 2) then gen = D:gsub("(.)0+$", "%1") end
  end
  local keep = o.unique and o.min_digits or 0   -- (with unique only, as NumPy's)
  -- the rounded value's zeros (precision 0 cuts the digits there too: 0.05 is 5.000e-02)
  if #D - 1 < keep and (rounded or o.precision == 0) then D = D .. ("0"):rep(keep + 1 - #D)
  elseif #D - 1 < keep then gen, E, D = sci_cut(a, keep) end   -- digits generated
  if a == 0 then gen = "0" end   -- (dragon4 writes a zero as one digit)
  -- dragon4 leaves out the point only for a mantissa of one digit as generated
  local trim = (o.trim == "-" and #gen > 1) and "." or o.trim or "k"
  local m = trimmed(D:sub(1, 1), D:sub(2), trim)
  m = sign_of(v, o.sign) .. m
  if o.pad_left then
    local i = m:match("^[-+]?%d+")
    m = (" "):rep(o.pad_left - #i) .. m
  end
  local ed = o.exp_digits and math.min(math.max(o.exp_digits, 1), 5) or 2   -- (NumPy's: 5 at most)
  return m .. ("e%s%0" .. ed .. "d"):format(E < 0 and "-" or "+", math.abs(E))
end

-- whether NumPy 2.4's FloatingFormat writes the values shown, their least and greatest
-- magnitudes lo and hi (nil: none but zeros), in scientific form: hi at or past
-- 10^min(8, the dtype's decimal precision) (1e8 float64, 1e6 float32, 1e3 float16: NumPy
-- 2.3's cutoff), or unless suppress, lo below 0.0001 or hi / lo past 1000, both made in
-- the dtype as NumPy 2's are (float32 1e-4 is not below float32 0.0001)
local function scientific_wanted(lo, hi, single)
  if not hi then return false end
  if hi >= (single == "half" and 1e3 or single and 1e6 or 1e8) then return true end
  if opt.suppress then return false end
  local q = hi / lo   -- (the quotient rounded to the dtype where that can bring it to 1000)
  return lo < narrow(1e-4, single) or (q > 1000 and (q >= 1001 or narrow(q, single) > 1000))
end

-- NumPy's FloatingFormat: one form for the values shown (a list), its padding shared
local function float_format(vals, single, sign)
  local mode, precision = opt.floatmode, opt.precision
  if mode == "unique" then precision = nil end
  local finite, lo, hi, negs, neginf = {}, nil, nil, false, false
  for _, v in ipairs(vals) do
    if v == v and v ~= math.huge and v ~= -math.huge then
      finite[#finite + 1] = v
      if v < 0 or (v == 0 and 1 / v < 0) then negs = true end
      local a = math.abs(v)
      if a ~= 0 then lo = math.min(lo or a, a); hi = math.max(hi or a, a) end
    elseif v == -math.huge then neginf = true end
  end
  local exp = scientific_wanted(lo, hi, single)
  local f = {single = single, sign = sign == "+", precision = precision}
  local pad_left, pad_right = 0, 0
  if #finite == 0 then
    f.trim, f.unique = ".", true
  else
    f.trim, f.unique = ".", true
    if mode == "fixed" then f.trim, f.unique = "k", false end
    local ints, fracs, exps = 0, 0, 0
    for _, v in ipairs(finite) do
      local t = exp and scientific(v, f) or positional(v, f)
      local i, fr, e = t:match("^([^.e]*)%.?([^e]*)e?(.*)$")
      ints, fracs, exps = math.max(ints, #i), math.max(fracs, #fr), math.max(exps, #e)
    end
    pad_left = ints
    if exp then
      f.exp_digits = exps - 1
      f.trim, f.precision, f.min_digits = "k", fracs, fracs
      pad_right = f.exp_digits + 2 + fracs
    else
      pad_right = fracs
      if mode == "fixed" or mode == "maxprec_equal" then
        f.precision, f.min_digits, f.trim = fracs, fracs, "k"
      else
        f.trim, f.min_digits = ".", 0
      end
    end
    if sign == " " and not negs then pad_left = pad_left + 1 end
  end
  if #finite < #vals then
    local offset = pad_right + 1
    local inflen = text_len(opt.infstr) + ((sign ~= "-" or neginf) and 1 or 0)
    pad_left = math.max(pad_left, text_len(opt.nanstr) - offset, inflen - offset)
  end
  f.pad_left = pad_left
  if not exp then f.pad_right = pad_right end
  return function(v)
    if v ~= v or v == math.huge or v == -math.huge then
      local t = v ~= v and (sign == "+" and "+" or "") .. opt.nanstr
                or (v < 0 and "-" or sign == "+" and "+" or "") .. opt.infstr
      return (" "):rep(pad_left + pad_right + 1 - text_len(t)) .. t
    end
    return exp and scientific(v, f) or positional(v, f)
  end
end

-- gpuhost's own float form (floatmode "shortest") with the sign, nanstr and infstr options
local function shortest(v, single, sign)
  if v ~= v then return (sign == "+" and "+" or "") .. opt.nanstr end
  if v == math.huge or v == -math.huge then
    return (v < 0 and "-" or sign == "+" and "+" or "") .. opt.infstr
  end
  local t = float_text(v, single)
  if t:sub(1, 1) ~= "-" and sign ~= "-" then t = sign .. t end
  return t
end

-- A uint64 element (a Lua integer holding its 64 bits) in decimal.
local function unsigned_text(v)
  if v >= 0 then return tostring(v) end
  local q = (v >> 1) // 5                  -- the unsigned value // 10
  return tostring(q) .. tostring(v - q * 10)
end
gpu._format_unsigned = unsigned_text       -- (npy.lua's text files write them too)

-- The function that writes one element of an array of dtype dt, given the values shown
-- (a flat list), which NumPy's float modes size their form by, and the print's style st;
-- and whether its texts come padded (NumPy's float modes: no more padding, as NumPy adds
-- none to a nanstr longer than the floats)
local function formatter(dt, shown_vals, st)
  local single = (dt == "float32" or dt == "complex64") or (dt == "float16" and "half")
  local complex = dt == "complex64" or dt == "complex128"
  local numpy = opt.floatmode ~= "shortest"
  local real, re, im
  if numpy and (dt == "float16" or dt == "float32" or dt == "float64") then
    real = float_format(shown_vals, single, opt.sign)
  elseif numpy and complex then
    local rs, is = {}, {}
    for i, z in ipairs(shown_vals) do rs[i] = z.re; is[i] = z.im end
    re, im = float_format(rs, single, opt.sign), float_format(is, single, "+")
  end
  -- integers take sign as NumPy 2's IntegerFormat: "+" or " " before those >= 0, " " only
  -- where no value shown is negative
  local int_sign = opt.sign
  if int_sign == " " and dt ~= "uint64" then
    for _, v in ipairs(shown_vals) do if math.type(v) == "integer" and v < 0 then int_sign = "-"; break end end
  end
  local cache = {}
  return function(v)
    local t = cache[v]
    if t then return t end
    if math.type(v) == "float" then t = real and real(v) or shortest(v, single, opt.sign)
    elseif math.type(v) == "integer" then
      t = dt == "uint64" and unsigned_text(v) or tostring(v)
      if int_sign ~= "-" and (v >= 0 or dt == "uint64") then t = int_sign .. t end
    elseif type(v) == "userdata" and complex then
      if re then
        local i = im(v.im)
        local n = #rstrip(i)
        t = re(v.re) .. i:sub(1, n) .. "j" .. i:sub(n + 1)
      else   -- as gpu.complex's tostring, every digit needed
        local r, i = shortest(v.re, single, opt.sign), shortest(v.im, single, "+")
        if i:sub(1, 1) ~= "-" and i:sub(1, 1) ~= "+" then i = "+" .. i end
        t = r .. i .. "j"
      end
    elseif type(v) == "boolean" and st and st.pad then t = v and "True" or "False"   -- NumPy's words
    else t = tostring(v) end
    if v ~= 0 and v == v and type(v) ~= "userdata" then cache[v] = t end   -- -0.0 and 0 share a key
    return t
  end, (real or re) ~= nil
end

local function shape_text(s)
  local parts = {}
  for i, d in ipairs(s) do parts[i] = tostring(d) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- words joined by sep, wrapped before a word that would pass the line width (nil: never),
-- the first starting at column col, the next lines at hang; closers: the "]"s that follow
-- the last line. As NumPy's: a word ends within the width less a column for each "]" but
-- the last, and less the separator's tail or that "]", the longer
local function join(words, sep, col, hang, width, closers)
  if not width then return table.concat(words, sep) end
  local tail = rstrip(sep)
  local lines, line, limit = {}, {}, width - (closers - 1) - math.max(text_len(tail), 1)
  for i, w in ipairs(words) do
    if i > 1 then
      if col + text_len(sep) + text_len(w) > limit then
        -- as NumPy's rstrip of the line: no spaces before a break (a blank word's separator too)
        lines[#lines + 1] = rstrip(table.concat(line) .. tail)
        line, col = {hang}, text_len(hang)
      else
        line[#line + 1] = sep
        col = col + text_len(sep)
      end
    end
    line[#line + 1] = w
    col = col + text_len(w)
  end
  lines[#lines + 1] = table.concat(line)
  return table.concat(lines, "\n")
end

-- How a print goes: sep between values, width (nil: no wrapping), whether NumPy's
-- threshold and edgeitems summarize 1-D lines (otherwise HEAD ... TAIL), and whether a 1-D
-- line's values are padded to one width and booleans written True and False, as NumPy's
-- (array2string; rows are always padded)
local function style(numpy_lines, sep)
  return {sep = sep or ", ", width = (numpy_lines or given.linewidth) and opt.linewidth or nil,
          numpy = numpy_lines or given.threshold or given.edgeitems, pad = numpy_lines}
end

local function line(a, n, dt, st, col)
  local raw, cut = {}, nil
  local edge = opt.edgeitems
  if st.numpy and n > opt.threshold and n - edge > edge then   -- (2 * edge may wrap)
    -- NumPy's: edgeitems first and last, the last one at least (edgeitems = 0: [... 99.])
    raw = edge > 0 and a[{{1, edge}}]:totable() or {}
    cut = #raw
    for _, v in ipairs(a[{{n - math.max(edge, 1) + 1, n}}]:totable()) do raw[#raw + 1] = v end
  elseif st.numpy or n <= HEAD + TAIL then
    raw = n > 0 and a:totable() or {}
  else
    raw = a[{{1, HEAD}}]:totable()
    cut = #raw
    for _, v in ipairs(a[{{n - TAIL + 1, n}}]:totable()) do raw[#raw + 1] = v end
  end
  local value, sized = formatter(dt, raw, st)
  local vals, width = {}, 0
  if st.pad and not sized then for _, v in ipairs(raw) do width = math.max(width, text_len(value(v))) end end
  if st.pad and dt == "bool" then width = math.max(width, 5) end   -- NumPy's ' True', always
  if cut == 0 then vals[1] = "..." end
  for i, v in ipairs(raw) do
    local t = value(v)
    vals[#vals + 1] = (" "):rep(width - text_len(t)) .. t
    if i == cut then vals[#vals + 1] = "..." end
  end
  return "[" .. join(vals, st.sep, (col or 0) + 1, (" "):rep((col or 0) + 1), st.width, 1) .. "]"
end

-- The positions shown along each dimension, and the values there as a nested table
-- indexed by position.
local function shown(a, shape)
  local summarize = a.size > opt.threshold
  local EDGE = opt.edgeitems
  local pos, runs = {}, {}
  for d, n in ipairs(shape) do
    pos[d], runs[d] = {}, {}
    if summarize and n - EDGE > EDGE then   -- (the last one at least, as NumPy's; 2 * EDGE may wrap)
      local last = math.max(EDGE, 1)
      for i = 1, EDGE do pos[d][i] = i end
      for i = 1, last do pos[d][EDGE + i] = n - last + i end
      runs[d] = EDGE > 0 and {{1, EDGE, 0}, {n - last + 1, n, EDGE}} or {{n - last + 1, n, 0}}
    else
      for i = 1, n do pos[d][i] = i end
      runs[d] = {{1, n, 0}}
    end
  end
  if not summarize then return pos, a:totable() end
  local vals, ndim = {}, #shape
  local function put(t, block, d, at)
    for i, x in ipairs(block) do
      local k = at[d] + i
      if d == ndim then t[k] = x
      else
        t[k] = t[k] or {}
        put(t[k], x, d + 1, at)
      end
    end
  end
  local pick = {}
  local function corners(d)
    if d > ndim then
      local key, at = {}, {}
      for k = 1, ndim do key[k] = {pick[k][1], pick[k][2]}; at[k] = pick[k][3] end
      put(vals, a[key]:totable(), 1, at)
      return
    end
    for _, r in ipairs(runs[d]) do pick[d] = r; corners(d + 1) end
  end
  corners(1)
  return pos, vals
end

local function rows(a, shape, dt, st)
  local pos, vals = shown(a, shape)
  local ndim, width = #shape, 0
  local flat = {}
  local function gather(t, d)
    for _, x in ipairs(t) do
      if d == ndim then flat[#flat + 1] = x else gather(x, d + 1) end
    end
  end
  gather(vals, 1)
  local value, sized = formatter(dt, flat, st)
  if not sized then for _, x in ipairs(flat) do width = math.max(width, text_len(value(x))) end end
  if st.pad and dt == "bool" then width = math.max(width, 5) end
  local tail = rstrip(st.sep)
  local function text(t, d, indent)
    local parts, n, p = {}, shape[d], pos[d]
    for i, x in ipairs(t) do
      if (i > 1 and p[i] ~= p[i - 1] + 1) or (i == 1 and p[1] ~= 1) then parts[#parts + 1] = "..." end
      if d == ndim then parts[#parts + 1] = (" "):rep(width - text_len(value(x))) .. value(x)
      else parts[#parts + 1] = text(x, d + 1, indent .. " ") end
    end
    if n == 0 then return "[]" end
    if d == ndim then
      return "[" .. join(parts, st.sep, #indent + 1, indent .. " ", st.width, ndim) .. "]"
    end
    local sep = tail .. "\n" .. ("\n"):rep(ndim - d - 1) .. indent .. " "
    return "[" .. table.concat(parts, sep) .. "]"
  end
  return text(vals, 1, "")
end

-- The values' text (NumPy's array2string): nil for a 1-D line that goes after the head
local function body(a, st, inline)
  local shape, n, dt = a.shape, a.size, a.dtype
  if #shape == 0 then return formatter(dt, {a:item()}, st)(a:item()) end
  if #shape == 1 then
    local t = line(a, n, dt, st, inline)
    if inline and not t:find("\n", 1, true) then return t, true end
    return inline and line(a, n, dt, st, 0) or t
  end
  if n == 0 then return "[]" end   -- as NumPy: a dim of 2^40 rows of nothing is no 2^40 lines
  return rows(a, shape, dt, st)
end

local function show(kind, a)
  local head = ("%s(%s, %s)"):format(kind, a.dtype, shape_text(a.shape))
  if #a.shape == 0 then return head .. " " .. body(a, style(false)) end
  local t, one_line = body(a, style(false), #head + 1)
  return head .. (one_line and " " or "\n") .. t
end

function M.array(a)
  if gpu._arg.freed(a) then return "gpu.array (freed)" end
  return show("gpu.array", a)
end

function M.hostarray(h)
  if gpu._arg.freed(h) then return "gpu.hostarray (freed)" end
  return show("gpu.hostarray", h)
end

-- The options' checks: each returns the value, or nil and what was expected
local MODES = {shortest = true, fixed = true, unique = true, maxprec = true, maxprec_equal = true}
local function count(v, lo)
  if math.type(v) == "float" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) == "integer" and v >= lo then return v end
end
local function boolean(v) if type(v) == "boolean" then return v end return nil, "a boolean" end
local function nonneg(v) return count(v, 0), "a non-negative integer" end
-- NumPy's dragon4 writes at most 16383 characters (cutting a longer text there): a precision,
-- min_digits or pad past that is refused here, not cut, nor left to run out of memory
local MOST_CHARS = 16383
local function chars(v)
  local n = count(v, 0)
  if n and n > MOST_CHARS then return nil, "at most " .. MOST_CHARS end
  return n, "a non-negative integer"
end
local CHECK = {
  precision = chars,
  threshold = function(v) return v == math.huge and math.maxinteger or count(v, 0), "a non-negative integer or math.huge" end,
  edgeitems = nonneg,
  linewidth = function(v) return count(v, 1), "a positive integer" end,
  suppress = boolean,
  sign = function(v) if v == "-" or v == "+" or v == " " then return v end return nil, "'-', '+' or ' '" end,
  floatmode = function(v) if MODES[v] then return v end
                return nil, "'shortest', 'fixed', 'unique', 'maxprec' or 'maxprec_equal'" end,
  nanstr = function(v) if type(v) == "string" then return v end return nil, "a string" end,
  infstr = function(v) if type(v) == "string" then return v end return nil, "a string" end,
}
-- an option's value in a message
local function shown(v) return type(v) == "string" and "'" .. v .. "'" or tostring(v) end

-- the names of a set of options, sorted, as gpu._arg.options takes them
local function names_of(...)
  local names = {}
  for _, set in ipairs({...}) do for n in pairs(set) do names[#names + 1] = n end end
  table.sort(names)
  return table.concat(names, " ")
end

-- get_printoptions' tables (weak keys): the options and those given, as they were then
local SNAPSHOTS = setmetatable({}, {__mode = "k"})

-- options table t (argument #i of fname) checked: {key = value}, and the keys given: all of
-- t's, but for a snapshot of get_printoptions' only those given then or changed since (so
-- set_printoptions(get_printoptions()) changes nothing); extra keys allowed in `more`
local function checked(t, fname, i, more)
  if type(t) ~= "table" then
    error(("bad argument #%d to '%s' (options table expected, got %s)"):format(i, fname, type(t)), 3)
  end
  gpu._arg.options(t, fname, names_of(CHECK, more or {}))
  local out = {}
  for k, v in pairs(t) do
    if CHECK[k] then
      local ok, want = CHECK[k](v)
      if ok == nil then
        error(("bad argument #%d to '%s' (options.%s must be %s, got %s)"):format(i, fname, k, want, shown(v)), 3)
      end
      out[k] = ok
    end
  end
  local snap, g = SNAPSHOTS[t], {}
  for k, v in pairs(out) do g[k] = not snap or snap.given[k] or snap.opt[k] ~= v or nil end
  -- a precision or suppress = true alone asks for NumPy's digits (gpuhost's shortest form
  -- has no fixed point to suppress to): "shortest" gives way to NumPy's default mode
  local numpy = g.precision or g.suppress and out.suppress
  if numpy and not g.floatmode and (out.floatmode or opt.floatmode) == "shortest" then
    out.floatmode, g.floatmode = "maxprec", true
  end
  return out, g
end

-- the options o set, g[k] saying whether each was given (not a snapshot's default)
local function apply(o, g)
  for k, v in pairs(o) do opt[k] = v; given[k] = g[k] end
end

local function snapshot()
  local o, g = {}, {}
  for k, v in pairs(opt) do o[k] = v end
  for k, v in pairs(given) do g[k] = v end
  return o, g
end

-- f(...) under the options o (g: given), those before put back after, also when f raises: opt
-- and given refilled in one C call each way, a guard's change and undo (gpu._arg.guarded), so
-- that a debug hook raising anywhere in between leaves no option changed
local function under(o, g, f, ...)
  local saved_o, saved_g = snapshot()
  local new_o, new_g = snapshot()
  for k, v in pairs(o) do new_o[k] = v; new_g[k] = g[k] end
  return gpu._arg.guarded({gpu._refill, opt, new_o, given, new_g}, {gpu._refill, opt, saved_o, given, saved_g}, f, ...)
end

-- gpu.set_printoptions(opts): the options given change; the others stay
function gpu.set_printoptions(opts)
  apply(checked(opts, "set_printoptions", 1))
end

-- gpu.get_printoptions(): a copy of the options now
function gpu.get_printoptions()
  local o, g = snapshot()
  SNAPSHOTS[o] = {opt = snapshot(), given = g}
  return o
end

-- gpu.printoptions(opts, f, ...): f(...)'s results (f a function or a callable value),
-- printed under opts; the options before come back after, also when f raises and when a
-- coroutine suspended in f is closed (gpu._arg.guarded, as gpu.with_device's)
function gpu.printoptions(opts, f, ...)
  local o, g = checked(opts, "printoptions", 1)
  if not gpu._arg.callable(f) then
    error(("bad argument #2 to 'printoptions' (function or callable value expected, got %s)"):format(type(f)), 2)
  end
  return under(o, g, f, ...)
end

local function array_arg(a, fname)
  local mt = getmetatable(a)
  if type(a) ~= "userdata" or (mt ~= gpu._meta.array and mt ~= gpu._meta.hostarray) then
    error(("bad argument #1 to '%s' (array expected, got %s)"):format(fname, type(a)), 3)
  end
  if gpu._arg.freed(a) then
    error(("bad argument #1 to '%s' (attempt to use a freed array)"):format(fname), 3)
  end
end

-- a's values as array2string writes them, separated by sep, under the options o (g: given)
local function render(a, o, g, sep)
  return under(o, g, function() return body(a, style(true, sep)) end)
end

-- gpu.array2string(a [, opts]): the values as NumPy's array2string writes them (separator
-- " " unless opts.separator says), the print options overridden by opts for this call
function gpu.array2string(a, opts)
  array_arg(a, "array2string")
  local o, g = checked(opts or {}, "array2string", 2, {separator = true})
  local sep = opts and opts.separator
  if sep ~= nil and type(sep) ~= "string" then
    error(("bad argument #2 to 'array2string' (options.separator must be a string, got %s)"):format(type(sep)), 2)
  end
  return render(a, o, g, sep or " ")
end

-- gpu.array_str(a [, opts]): array2string's text, with no separator option (NumPy's
-- array_str has none); gpu.array_repr(a): tostring(a)
function gpu.array_str(a, opts)
  array_arg(a, "array_str")
  local o, g = checked(opts or {}, "array_str", 2)
  return render(a, o, g, " ")
end

function gpu.array_repr(a)
  array_arg(a, "array_repr")
  return tostring(a)
end

local POSITIONAL = {precision = true, unique = true, fractional = true, trim = true, sign = true,
                    pad_left = true, pad_right = true, min_digits = true}
local SCIENTIFIC = {precision = true, unique = true, trim = true, sign = true, pad_left = true,
                    exp_digits = true, min_digits = true}

-- format_float_*'s checks, as CHECK's (chars for the others: precision, min_digits, pad_left, ...)
local TRIMS = {k = true, ["."] = true, ["0"] = true, ["-"] = true}
local FLOAT_CHECK = {
  unique = boolean, sign = boolean, fractional = boolean,
  trim = function(v) if TRIMS[v] then return v end return nil, "'k', '.', '0' or '-'" end,
}

local function float_opts(x, opts, fname, known)
  if type(x) ~= "number" then
    error(("bad argument #1 to '%s' (number expected, got %s)"):format(fname, type(x)), 3)
  end
  opts = opts or {}
  if type(opts) ~= "table" then
    error(("bad argument #2 to '%s' (options table expected, got %s)"):format(fname, type(opts)), 3)
  end
  gpu._arg.options(opts, fname, names_of(known))
  local o = {unique = true, trim = "k"}
  for k, v in pairs(opts) do
    local ok, want = (FLOAT_CHECK[k] or chars)(v)
    if ok == nil then
      error(("bad argument #2 to '%s' (options.%s must be %s, got %s)"):format(fname, k, want, shown(v)), 3)
    end
    o[k] = ok
  end
  if o.fractional == false then
    error(("bad argument #2 to '%s' (options.fractional = false is not supported)"):format(fname), 3)
  end
  if o.precision and o.precision > 0 and o.min_digits and o.min_digits > o.precision then   -- (NumPy's test)
    error(("bad argument #2 to '%s' (min_digits must be less than or equal to precision)"):format(fname), 3)
  end
  if not o.unique and not o.precision then
    error(("bad argument #2 to '%s' (options.precision is needed when unique is false)"):format(fname), 3)
  end
  if math.type(x) == "integer" then x = x + 0.0 end   -- (not for floats: -0.0 + 0.0 is 0.0)
  return x, o
end

local function nonfinite(x, o)   -- NumPy's dragon4 writes "nan", never "+nan"
  if x ~= x then return "nan" end
  if x == math.huge or x == -math.huge then return (x < 0 and "-" or o.sign and "+" or "") .. "inf" end
end

-- gpu.format_float_positional(x [, opts]), gpu.format_float_scientific(x [, opts]):
-- NumPy's, of a Lua number (a float64)
function gpu.format_float_positional(x, opts)
  local o
  x, o = float_opts(x, opts, "format_float_positional", POSITIONAL)
  return nonfinite(x, o) or positional(x, o)
end

function gpu.format_float_scientific(x, opts)
  local o
  x, o = float_opts(x, opts, "format_float_scientific", SCIENTIFIC)
  return nonfinite(x, o) or scientific(x, o)
end

for _, name in ipairs({"set_printoptions", "get_printoptions", "printoptions", "array2string", "array_str",
                       "array_repr", "format_float_positional", "format_float_scientific"}) do
  gpu[name] = gpu._api(gpu[name])
end

return M

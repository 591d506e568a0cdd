-- Bad input across the whole API, table-driven as lua-cjson's tests are: each row is a
-- call (its text, and the call itself) and a piece of the message it must raise. Every one
-- is a clear Lua error: nothing crashes, hangs or passes silently, and the host goes on
-- (the rows run in one process, one after another). Runs on both backends.

local a = gpu.zeros(4)
local ai = gpu.arange(4, "int32")
local h = gpu.host.zeros(4)
local h3 = gpu.host.zeros(3)
local hi = gpu.host.zeros(4, "int32")
local k = gpu.kernel("__global__ void kk(int *x, int n, float f) { if (threadIdx.x < n) x[threadIdx.x] = n + (int)f; }")
local run = k[{1, 4}]
local m = gpu.module("__global__ void m1(int *x) { x[0] = 1; }\n__global__ void m2(int *x) { x[0] = 2; }")
local s, e = gpu.stream(), gpu.event()
local dead = gpu.zeros(2); dead:free()
local hdead = gpu.host.zeros(2); hdead:free()
local sdead = gpu.stream(); sdead:destroy()
local edead = gpu.event(); edead:destroy()
local dev = gpu.device()
local prog = gpu._program({names = {"x"}, source = "__global__ void x() {}"})
local SRC1 = "__global__ void one() {}"
local jf = function(x) x[gpu.grid(1)] = 1 end
local jk = gpu.jit(jf)

-- {call, function, a piece of the message}
local rows = {
  {"gpu.zeros()", function() return gpu.zeros() end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got no value)"},
  {"gpu.zeros(true)", function() return gpu.zeros(true) end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got boolean)"},
  {"gpu.zeros('x')", function() return gpu.zeros('x') end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got string)"},
  {"gpu.zeros(print)", function() return gpu.zeros(print) end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got function)"},
  {"gpu.zeros(a)", function() return gpu.zeros(a) end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got userdata)"},
  {"gpu.zeros({1, 1, 1, 1, 1, 1, 1, 1, 1})", function() return gpu.zeros({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "shape must have 0 to 8 dimensions, got 9"},
  {"gpu.zeros({2, 2^40, 2^40})", function() return gpu.zeros({2, 2^40, 2^40}) end,
   "bad argument #1 to 'zeros' (shape is too large: more elements than an array holds (2^48))"},
  {"gpu.ones({2^31, 2^31, 4}, 'complex128')", function() return gpu.ones({2^31, 2^31, 4}, 'complex128') end,
   "bad argument #1 to 'ones' (shape is too large: more elements than an array holds (2^48))"},
  {"gpu.full({2^31, 2^31}, 1)", function() return gpu.full({2^31, 2^31}, 1) end,
   "bad argument #1 to 'full' (shape is too large"},
  {"gpu.broadcast_to(gpu.zeros{1}, {2^62, 2^62})", function() return gpu.broadcast_to(gpu.zeros{1}, {2^62, 2^62}) end,
   "gpu.broadcast_to: shape {4611686018427387904, 4611686018427387904} is too large: more elements than an array holds (2^48)"},
  {"gpu.diag(gpu.ones{3}, math.mininteger)", function() return gpu.diag(gpu.ones{3}, math.mininteger) end,
   "gpu.diag: k is -9223372036854775808: the result would have more elements than an array holds (2^48)"},
  {"gpu.diag(gpu.ones{3}, 2^40)", function() return gpu.diag(gpu.ones{3}, 2^40) end,
   "gpu.diag: 1099511627779 rows of 1099511627779 elements are too many for an array"},
  {"gpu.diagflat(gpu.ones{3}, -2^40)", function() return gpu.diagflat(gpu.ones{3}, -2^40) end,
   "gpu.diagflat: 1099511627779 rows of 1099511627779 elements are too many for an array"},
  {"gpu.arange(0, 1, 5e-324)", function() return gpu.arange(0, 1, 5e-324) end,
   "bad argument to 'arange' (inf elements: more than an array holds, 2^48)"},
  {"gpu.zeros({2, 'x'})", function() return gpu.zeros({2, 'x'}) end,
   "shape[2] must be a number, got string"},
  {"gpu.zeros({2, -3})", function() return gpu.zeros({2, -3}) end,
   "shape[2] must be non-negative, got -3"},
  {"gpu.zeros({2, 0.5})", function() return gpu.zeros({2, 0.5}) end,
   "shape[2] must be an integer, got 0.5"},
  {"gpu.zeros({2^30, 2^30})", function() return gpu.zeros({2^30, 2^30}) end,
   "bad argument #1 to 'zeros' (shape is too large"},
  {"gpu.zeros(-1)", function() return gpu.zeros(-1) end,
   "size must be non-negative, got -1"},
  {"gpu.zeros(2.5)", function() return gpu.zeros(2.5) end,
   "size must be an integer, got 2.5"},
  {"gpu.zeros(0/0)", function() return gpu.zeros(0/0) end,
   "size must be a number, got nan"},
  {"gpu.zeros(math.huge)", function() return gpu.zeros(math.huge) end,
   "size is too large: inf"},
  {"gpu.zeros(2^70)", function() return gpu.zeros(2^70) end,
   "size is too large: 1.1805916207174e+21"},
  {"gpu.zeros(4, 'bfloat16')", function() return gpu.zeros(4, 'bfloat16') end,
   "bad argument #2 to 'zeros' (unknown dtype 'bfloat16' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.zeros(4, 3)", function() return gpu.zeros(4, 3) end,
   "bad argument #2 to 'zeros' (dtype expected, got number)"},
  {"gpu.zeros(4, {})", function() return gpu.zeros(4, {}) end,
   "bad argument #2 to 'zeros' (dtype expected, got table)"},
  {"gpu.empty()", function() return gpu.empty() end,
   "bad argument #1 to 'empty' (shape (a number or a table of numbers) expected, got no value)"},
  {"gpu.empty('x')", function() return gpu.empty('x') end,
   "bad argument #1 to 'empty' (shape (a number or a table of numbers) expected, got string)"},
  {"gpu.empty({1, 1, 1, 1, 1, 1, 1, 1, 1})", function() return gpu.empty({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "shape must have 0 to 8 dimensions, got 9"},
  {"gpu.empty(-1)", function() return gpu.empty(-1) end,
   "size must be non-negative, got -1"},
  {"gpu.empty(2.5)", function() return gpu.empty(2.5) end,
   "size must be an integer, got 2.5"},
  {"gpu.empty(0/0)", function() return gpu.empty(0/0) end,
   "size must be a number, got nan"},
  {"gpu.empty(2^49)", function() return gpu.empty(2^49) end,
   "size is too large: 5.6294995342131e+14"},
  {"gpu.empty(4, 'bfloat16')", function() return gpu.empty(4, 'bfloat16') end,
   "bad argument #2 to 'empty' (unknown dtype 'bfloat16' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.empty(4, true)", function() return gpu.empty(4, true) end,
   "bad argument #2 to 'empty' (dtype expected, got boolean)"},
  {"gpu.ones()", function() return gpu.ones() end,
   "bad argument #1 to 'ones' (shape (a number or a table of numbers) expected, got nil)"},
  {"gpu.ones('x')", function() return gpu.ones('x') end,
   "bad argument #1 to 'ones' (shape (a number or a table of numbers) expected, got string)"},
  {"gpu.ones({1, 1, 1, 1, 1, 1, 1, 1, 1})", function() return gpu.ones({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "shape must have 0 to 8 dimensions, got 9"},
  {"gpu.ones(-1)", function() return gpu.ones(-1) end,
   "size must be non-negative, got -1"},
  {"gpu.ones(2.5)", function() return gpu.ones(2.5) end,
   "size must be an integer, got 2.5"},
  {"gpu.ones(2^70)", function() return gpu.ones(2^70) end,
   "size is too large: 1.1805916207174e+21"},
  {"gpu.ones(4, 'bfloat16')", function() return gpu.ones(4, 'bfloat16') end,
   "bad argument #2 to 'ones' (unknown dtype 'bfloat16' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.full(4)", function() return gpu.full(4) end,
   "bad argument #2 to 'full' (number, boolean or gpu.complex expected, got nil)"},
  {"gpu.full(4, 'x')", function() return gpu.full(4, 'x') end,
   "bad argument #2 to 'full' (number, boolean or gpu.complex expected, got string)"},
  {"gpu.full(4, {})", function() return gpu.full(4, {}) end,
   "bad argument #2 to 'full' (number, boolean or gpu.complex expected, got table)"},
  {"gpu.full(4, a)", function() return gpu.full(4, a) end,
   "bad argument #2 to 'full' (number, boolean or gpu.complex expected, got gpu.array)"},
  {"gpu.full(4, 'x', 'complex64')", function() return gpu.full(4, 'x', 'complex64') end,
   "bad argument #2 to 'full' (number, boolean or gpu.complex expected, got string)"},
  {"gpu.full(4, -1.0, 'uint64')", function() return gpu.full(4, -1.0, 'uint64') end,
   "bad argument #2 to 'full' (-1.0 out of range for uint64: 0 to 18446744073709551615)"},
  {"gpu.full(4, 300, 'uint8')", function() return gpu.full(4, 300, 'uint8') end,
   "bad argument #2 to 'full' (300 out of range for uint8: 0 to 255)"},
  {"gpu.full(4, -1, 'uint32')", function() return gpu.full(4, -1, 'uint32') end,
   "bad argument #2 to 'full' (-1 out of range for uint32: 0 to 4294967295)"},
  {"gpu.full(4, 1.5, 'int32')", function() return gpu.full(4, 1.5, 'int32') end,
   "bad argument #2 to 'full' (1.5 not an integer for int32)"},
  {"gpu.full(4, 2^63, 'int64')", function() return gpu.full(4, 2^63, 'int64') end,
   "bad argument #2 to 'full' (9.2233720368548e+18 out of range for int64: -9223372036854775808 to 9223372036854775807)"},
  {"gpu.full(4, 1, 'nope')", function() return gpu.full(4, 1, 'nope') end,
   "bad argument #3 to 'full' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.full(-4, 1)", function() return gpu.full(-4, 1) end,
   "size must be non-negative, got -4"},
  {"gpu.full('x', 1)", function() return gpu.full('x', 1) end,
   "bad argument #1 to 'full' (shape (a number or a table of numbers) expected, got string)"},
  {"gpu.zeros_like()", function() return gpu.zeros_like() end,
   "bad argument #1 to 'zeros_like' (array expected, got nil)"},
  {"gpu.zeros_like(3)", function() return gpu.zeros_like(3) end,
   "bad argument #1 to 'zeros_like' (array expected, got 3)"},
  {"gpu.zeros_like({})", function() return gpu.zeros_like({}) end,
   "bad argument #1 to 'zeros_like' (array expected, got table)"},
  {"gpu.zeros_like(s)", function() return gpu.zeros_like(s) end,
   "bad argument #1 to 'zeros_like' (array expected, got gpu.stream)"},
  {"gpu.zeros_like(dead)", function() return gpu.zeros_like(dead) end,
   "bad argument #1 to 'zeros_like' (attempt to use a freed array)"},
  {"gpu.zeros_like(a, 'nope')", function() return gpu.zeros_like(a, 'nope') end,
   "bad argument #2 to 'zeros_like' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.ones_like('x')", function() return gpu.ones_like('x') end,
   "bad argument #1 to 'ones_like' (array expected, got string)"},
  {"gpu.ones_like(dead)", function() return gpu.ones_like(dead) end,
   "bad argument #1 to 'ones_like' (attempt to use a freed array)"},
  {"gpu.ones_like(a, 'nope')", function() return gpu.ones_like(a, 'nope') end,
   "bad argument #2 to 'ones_like' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.empty_like(true)", function() return gpu.empty_like(true) end,
   "bad argument #1 to 'empty_like' (array expected, got boolean)"},
  {"gpu.empty_like(dead)", function() return gpu.empty_like(dead) end,
   "bad argument #1 to 'empty_like' (attempt to use a freed array)"},
  {"gpu.empty_like(a, 'nope')", function() return gpu.empty_like(a, 'nope') end,
   "bad argument #2 to 'empty_like' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.full_like(a)", function() return gpu.full_like(a) end,
   "bad argument #2 to 'full_like' (number or boolean expected, got nil)"},
  {"gpu.full_like(a, 'x')", function() return gpu.full_like(a, 'x') end,
   "bad argument #2 to 'full_like' (number or boolean expected, got string)"},
  {"gpu.full_like(3, 1)", function() return gpu.full_like(3, 1) end,
   "bad argument #1 to 'full_like' (array expected, got 3)"},
  {"gpu.full_like(ai, 1.5)", function() return gpu.full_like(ai, 1.5) end,
   "bad argument #2 to 'full_like' (1.5 not an integer for int32)"},
  {"gpu.arange()", function() return gpu.arange() end,
   "bad argument #1 to 'arange' (number expected, got nil)"},
  {"gpu.arange(true)", function() return gpu.arange(true) end,
   "bad argument #1 to 'arange' (number expected, got boolean)"},
  {"gpu.arange('x', 4)", function() return gpu.arange('x', 4) end,
   "bad argument #1 to 'arange' (number expected, got string)"},
  {"gpu.arange({})", function() return gpu.arange({}) end,
   "bad argument #1 to 'arange' (number expected, got table)"},
  {"gpu.arange(0/0)", function() return gpu.arange(0/0) end,
   "bad argument #1 to 'arange' (number expected, got nan)"},
  {"gpu.arange(0, 0/0)", function() return gpu.arange(0, 0/0) end,
   "bad argument #2 to 'arange' (number expected, got nan)"},
  {"gpu.arange(0, 4, 0/0)", function() return gpu.arange(0, 4, 0/0) end,
   "bad argument #3 to 'arange' (number expected, got nan)"},
  {"gpu.arange(print)", function() return gpu.arange(print) end,
   "bad argument #1 to 'arange' (number expected, got function)"},
  -- before: these named zeros, astype and arange
  {"gpu.eye(3, 'foo')", function() return gpu.eye(3, 'foo') end, "bad argument #2 to 'gpu.eye' (unknown dtype 'foo'"},
  {"gpu.identity(3, {})", function() return gpu.identity(3, {}) end, "bad argument #2 to 'gpu.identity' (dtype expected, got table)"},
  {"gpu.tri(3, 3, 0, 'foo')", function() return gpu.tri(3, 3, 0, 'foo') end, "bad argument #4 to 'gpu.tri' (unknown dtype 'foo'"},
  {"gpu.indices({2, 3}, 'bool')", function() return gpu.indices({2, 3}, 'bool') end,
   "gpu.indices: a bool array cannot hold 1-based indices: give an integer or float dtype"},
  {"gpu.arange(0, 4, 0)", function() return gpu.arange(0, 4, 0) end,
   "bad argument #3 to 'arange' (step must not be 0)"},
  {"gpu.arange(0, 'x')", function() return gpu.arange(0, 'x') end,
   "bad argument #2 to 'arange' (unknown dtype 'x' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.full_like(a, 1, 'nope')", function() return gpu.full_like(a, 1, 'nope') end,
   "bad argument #3 to 'full_like' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.arange(0, 4, 'nope')", function() return gpu.arange(0, 4, 'nope') end,
   "bad argument #3 to 'arange' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.linspace(1, 2, 3, {dtype = 'flaot32'})", function() return gpu.linspace(1, 2, 3, {dtype = 'flaot32'}) end,
   "gpu.linspace: option dtype: unknown dtype 'flaot32' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.linspace(1, 2, 3, {dtype = 5})", function() return gpu.linspace(1, 2, 3, {dtype = 5}) end,
   "gpu.linspace: option dtype: dtype expected, got number"},
  {"gpu.logspace(1, 2, 3, {dtype = 'flaot32'})", function() return gpu.logspace(1, 2, 3, {dtype = 'flaot32'}) end,
   "gpu.logspace: option dtype: unknown dtype 'flaot32' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.geomspace(1, 2, 3, {dtype = 'flaot32'})", function() return gpu.geomspace(1, 2, 3, {dtype = 'flaot32'}) end,
   "gpu.geomspace: option dtype: unknown dtype 'flaot32' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.fft.rfftfreq(4, 1, {dtype = 'flaot32'})", function() return gpu.fft.rfftfreq(4, 1, {dtype = 'flaot32'}) end,
   "gpu.fft.rfftfreq: option dtype: unknown dtype 'flaot32' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.arange(0, 4, 1, 'nope')", function() return gpu.arange(0, 4, 1, 'nope') end,
   "bad argument #4 to 'arange' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.arange(-1, 3, 'uint8')", function() return gpu.arange(-1, 3, 'uint8') end,
   "bad argument to 'arange' (-1 is out of range for uint8: 0 to 255)"},
  {"gpu.arange(0, 300, 'uint8')", function() return gpu.arange(0, 300, 'uint8') end,
   "bad argument to 'arange' (299 is out of range for uint8: 0 to 255)"},
  {"gpu.arange(0, 3, 'bool')", function() return gpu.arange(0, 3, 'bool') end,
   "bad argument to 'arange' (2 is out of range for bool: 0 to 1)"},
  {"gpu.arange(-3, 3, 'uint32')", function() return gpu.arange(-3, 3, 'uint32') end,
   "bad argument to 'arange' (-3 is out of range for uint32: 0 to 4294967295)"},
  {"gpu.arange(0, math.huge)", function() return gpu.arange(0, math.huge) end,
   "bad argument to 'arange' (inf is out of range for float32: -3.4028234663853e+38 to 3.4028234663853e+38)"},
  {"gpu.arange(2^70)", function() return gpu.arange(2^70) end,   -- (before: "size is too large: N")
   "bad argument to 'arange' (1.1805916207174e+21 elements: more than an array holds, 2^48)"},
  {"gpu.arange(0, 2^60)", function() return gpu.arange(0, 2^60) end,
   "bad argument to 'arange' (1152921504606846976 elements: more than an array holds, 2^48)"},
  {"gpu.arange(2^53 - 1, 2^53 + 2, 'int64')", function() return gpu.arange(2^53 - 1, 2^53 + 2, 'int64') end,
   "bad argument to 'arange' (9007199254740992 is out of range for int64: -9007199254740991 to 9007199254740991, as arange computes in float64)"},
  {"gpu.random.seed()", function() return gpu.random.seed() end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got nil)"},
  {"gpu.random.seed('7')", function() return gpu.random.seed('7') end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got string)"},
  {"gpu.random.seed({})", function() return gpu.random.seed({}) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got table)"},
  {"gpu.random.seed(-1)", function() return gpu.random.seed(-1) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got -1)"},
  {"gpu.random.seed(1.5)", function() return gpu.random.seed(1.5) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got 1.5)"},
  {"gpu.random.seed(0/0)", function() return gpu.random.seed(0/0) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got nan)"},
  {"gpu.random.seed(math.huge)", function() return gpu.random.seed(math.huge) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got inf)"},
  {"gpu.random.seed(2^63)", function() return gpu.random.seed(2^63) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got 9223372036854775808)"},
  {"gpu.random.seed(1e300)", function() return gpu.random.seed(1e300) end,
   "bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got 1e+300)"},
  {"gpu.random.random()", function() return gpu.random.random() end,
   "bad argument #1 to 'random' (shape (a number or a table of numbers) expected, got nil)"},
  {"gpu.random.random('x')", function() return gpu.random.random('x') end,
   "bad argument #1 to 'random' (shape (a number or a table of numbers) expected, got string)"},
  {"gpu.random.random({1, 1, 1, 1, 1, 1, 1, 1, 1})", function() return gpu.random.random({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "shape must have 0 to 8 dimensions, got 9"},
  {"gpu.random.random(-1)", function() return gpu.random.random(-1) end,
   "size must be non-negative, got -1"},
  {"gpu.random.random(2.5)", function() return gpu.random.random(2.5) end,
   "size must be an integer, got 2.5"},
  {"gpu.random.random(4, 'int32')", function() return gpu.random.random(4, 'int32') end,
   "bad argument #2 to 'random' (random numbers are float32 or float64, not int32)"},
  {"gpu.random.random(4, 'nope')", function() return gpu.random.random(4, 'nope') end,
   "unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16)"},
  {"gpu.random.uniform()", function() return gpu.random.uniform() end,
   "bad argument #1 to 'uniform' (number expected, got nil)"},
  {"gpu.random.uniform('a', 1, 4)", function() return gpu.random.uniform('a', 1, 4) end,
   "bad argument #1 to 'uniform' (number expected, got string)"},
  {"gpu.random.uniform(0, nil, 4)", function() return gpu.random.uniform(0, nil, 4) end,
   "bad argument #2 to 'uniform' (number expected, got nil)"},
  {"gpu.random.uniform(0, 1)", function() return gpu.random.uniform(0, 1) end,
   "bad argument #3 to 'uniform' (shape (a number or a table of numbers) expected, got nil)"},
  {"gpu.random.uniform(0, 1, -3)", function() return gpu.random.uniform(0, 1, -3) end,
   "size must be non-negative, got -3"},
  {"gpu.random.uniform(0, 1, 4, 'bool')", function() return gpu.random.uniform(0, 1, 4, 'bool') end,
   "bad argument #4 to 'uniform' (random numbers are float32 or float64, not bool)"},
  {"gpu.random.normal(0, {}, 4)", function() return gpu.random.normal(0, {}, 4) end,
   "bad argument #2 to 'normal' (number expected, got table)"},
  {"gpu.random.normal(0, 1, {0.5})", function() return gpu.random.normal(0, 1, {0.5}) end,
   "shape[1] must be an integer, got 0.5"},
  {"gpu.random.normal(0, 1, 4, 'uint8')", function() return gpu.random.normal(0, 1, 4, 'uint8') end,
   "bad argument #4 to 'normal' (random numbers are float32 or float64, not uint8)"},
  {"gpu.array()", function() return gpu.array() end,
   "bad argument #1 to 'array' (table or host array expected, got no value)"},
  {"gpu.array(true)", function() return gpu.array(true) end,
   "bad argument #1 to 'array' (table or host array expected, got boolean)"},
  {"gpu.array('x')", function() return gpu.array('x') end,
   "bad argument #1 to 'array' (table or host array expected, got string)"},
  {"gpu.array(3)", function() return gpu.array(3) end,
   "bad argument #1 to 'array' (table or host array expected, got number)"},
  {"gpu.array(print)", function() return gpu.array(print) end,
   "bad argument #1 to 'array' (table or host array expected, got function)"},
  {"gpu.array(s)", function() return gpu.array(s) end,
   "bad argument #1 to 'array' (table or host array expected, got userdata)"},
  {"gpu.array({1, 'x'})", function() return gpu.array({1, 'x'}) end,
   'element [2] (a string ("x")) expected a number for float32'},
  {"gpu.array({'1', 2})", function() return gpu.array({'1', 2}) end,   -- (it said '(1)', as the number)
   'element [1] (a string ("1")) expected a number for float32'},
  {"gpu.array({1, {2}})", function() return gpu.array({1, {2}}) end,
   "element [2] ("},
  {"gpu.array({{1, 2}, {3}})", function() return gpu.array({{1, 2}, {3}}) end,
   "ragged table: [2] has 1 elements, expected 2"},
  {"gpu.array({{1}, 2})", function() return gpu.array({{1}, 2}) end,
   "ragged table: element [2] is a number, expected a table"},
  -- an empty first row made shape {2, 0}, and nothing read the rest
  {"gpu.array({{}, {1, 2}})", function() return gpu.array({{}, {1, 2}}) end,
   "ragged table: [2] has 2 elements, expected 0"},
  {"gpu.host.array({{{}}, {{1}}})", function() return gpu.host.array({{{}}, {{1}}}) end,
   "ragged table: [2][1] has 1 elements, expected 0"},
  {"gpu.array({{{{{{{{{1}}}}}}}}})", function() return gpu.array({{{{{{{{{1}}}}}}}}}) end,
   "tables nested deeper than 8 levels"},
  {"gpu.array({1, 2}, 'nope')", function() return gpu.array({1, 2}, 'nope') end,
   "bad argument #2 to 'array' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.array({1, 2}, 7)", function() return gpu.array({1, 2}, 7) end,
   "bad argument #2 to 'array' (dtype expected, got number)"},
  {"gpu.array({300}, 'uint8')", function() return gpu.array({300}, 'uint8') end,
   "element [1] (300) out of range for uint8"},
  {"gpu.array({-129}, 'int8')", function() return gpu.array({-129}, 'int8') end,
   "element [1] (-129) out of range for int8"},
  {"gpu.array({2^31}, 'int32')", function() return gpu.array({2^31}, 'int32') end,
   "element [1] (2147483648.0) out of range for int32"},
  {"gpu.array({0.5}, 'int64')", function() return gpu.array({0.5}, 'int64') end,
   "element [1] (0.5) not an integer for int64"},
  {"gpu.array({2^64}, 'uint64')", function() return gpu.array({2^64}, 'uint64') end,
   "element [1] (1.844674407371e+19) out of range for uint64"},
  {"gpu.array({0/0}, 'int16')", function() return gpu.array({0/0}, 'int16') end,
   "not an integer for int16"},
  {"gpu.array({'x'}, 'float32')", function() return gpu.array({'x'}, 'float32') end,
   'element [1] (a string ("x")) expected a number for float32'},
  {"gpu.array({'x'}, 'bool')", function() return gpu.array({'x'}, 'bool') end,
   'element [1] (a string ("x")) expected a boolean for bool'},
  {"gpu.array(h, true)", function() return gpu.array(h, true) end,
   "bad argument #2 to 'array' (dtype expected, got boolean)"},
  {"gpu.array(a, 'int33')", function() return gpu.array(a, 'int33') end,
   "bad argument #2 to 'array' (unknown dtype 'int33'"},
  {"gpu.array(dead)", function() return gpu.array(dead) end,
   "attempt to use a freed array"},
  {"gpu.array(hdead)", function() return gpu.array(hdead) end,
   "attempt to use a freed array"},
  {"a:tohost(5)", function() return a:tohost(5) end,
   "bad argument #1 to 'tohost' (gpu.hostarray expected, got number)"},
  {"a:tohost(hi)", function() return a:tohost(hi) end,
   "bad argument #1 to 'tohost' (host array of 4 float32 elements expected)"},
  {"a:tohost(h3)", function() return a:tohost(h3) end,
   "bad argument #1 to 'tohost' (host array of 4 float32 elements expected)"},
  {"a:tohost(a)", function() return a:tohost(a) end,
   "bad argument #1 to 'tohost' (gpu.hostarray expected, got gpu.array)"},
  {"a:tohost(hdead)", function() return a:tohost(hdead) end,
   "attempt to use a freed array"},
  {"dead:tohost()", function() return dead:tohost() end,
   "attempt to use a freed array"},
  {"a.tohost(3)", function() return a.tohost(3) end,
   "bad argument #1 to 'tohost' (gpu.array expected, got number)"},
  {"dead:totable()", function() return dead:totable() end,
   "attempt to use a freed array"},
  {"a.totable(h)", function() return a.totable(h) end,
   "bad argument #1 to 'totable' (gpu.array expected, got gpu.hostarray)"},
  {"a:totable(1)", function() return a:totable(1) end,
   "a:totable takes 0 arguments, got a number as argument 1 (not one it takes)"},
  {"h:totable({})", function() return h:totable({}) end,
   "h:totable takes 0 arguments, got a table as argument 1 (it takes no options)"},
  {"dead:copy()", function() return dead:copy() end,
   "attempt to use a freed array"},
  {"a.copy('x')", function() return a.copy('x') end,
   "copy: a device or host array expected, got string"},
  {"a.free(3)", function() return a.free(3) end,
   "bad argument #1 to 'free' (gpu.array expected, got number)"},
  {"a:_peek(-1, 1)", function() return a:_peek(-1, 1) end,
   "peek out of range"},
  {"a:_peek(0, 5)", function() return a:_peek(0, 5) end,
   "peek out of range"},
  {"a:_peek('x', 1)", function() return a:_peek('x', 1) end,
   "bad argument #1 to '_peek' (number expected, got string)"},
  {"a:_peek(2^62, 2^62)", function() return a:_peek(2^62, 2^62) end,
   "peek out of range"},
  {"a:_peek(math.maxinteger, 1)", function() return a:_peek(math.maxinteger, 1) end,
   "peek out of range"},
  {"dead:_peek(0, 1)", function() return dead:_peek(0, 1) end,
   "attempt to use a freed array"},
  {"a[1]", function() return a[1] end,
   "attempt to index a device array from Lua: copy it to the host first (h = a:tohost(); h[i]), use a:item(i), take a view a[{i}], or index with an array (a mask, or 1-based indices)"},
  {"a[h] (a host array)", function() return gpu.arange(4)[gpu.host.array({1, 2}, "int64")] end,   -- (it said to index with an array)
   "a[h]: h is a host array: copy it to the device first, a[gpu.array(h)]"},
  {"a[1] = 2", function() a[1] = 2 end,
   "attempt to write a device array from Lua: build the data on the host and copy it with gpu.array(t), assign a view (a[{i}] = v), or write it in a kernel"},
  {"a.nope", function() return a.nope end,
   "gpu.array has no field or method 'nope'"},
  {"a.x = 1", function() a.x = 1 end,
   "cannot set field 'x' of a device array: its fields are read-only (a new shape is a:reshape(...))"},
  {"h.shape = {1, 2}", function() local h = gpu.host.zeros(2); h.shape = {1, 2} end,
   "cannot set field 'shape' of a host array: its fields are read-only (a new shape is h:reshape(...))"},
  {"#dead", function() return #dead end,
   "attempt to use a freed array"},
  {"dead.shape", function() return dead.shape end,
   "attempt to use a freed array"},
  {"dead.dtype", function() return dead.dtype end,
   "attempt to use a freed array"},
  {"a + 'x'", function() return a + 'x' end,
   "gpu.add argument 2 must be a device array or a number, got string"},
  {"a .. 'x'", function() return a .. 'x' end,
   "attempt to concatenate a gpu.array value (upvalue 'a')"},
  {"a < a", function() return a < a end,
   "compare arrays with a:lt(b), a:le(b), a:gt(b), a:ge(b), a:eq(b) or a:ne(b)"},
  {"a()", function() return a() end,
   "attempt to call a gpu.array value (upvalue 'a')"},
  {"gpu.host.array()", function() return gpu.host.array() end,
   "bad argument #1 to 'array' (table expected, got no value)"},
  {"gpu.host.array('x')", function() return gpu.host.array('x') end,
   "bad argument #1 to 'array' (table expected, got string)"},
  {"gpu.host.array(3)", function() return gpu.host.array(3) end,
   "bad argument #1 to 'array' (table expected, got number)"},
  {"gpu.host.array(a)", function() return gpu.host.array(a) end,
   "bad argument #1 to 'array' (expected host data, got a device array; copy it to the host with a:tohost())"},
  {"gpu.host.array({1}, 'nope')", function() return gpu.host.array({1}, 'nope') end,
   "bad argument #2 to 'array' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.host.array({-1}, 'uint16')", function() return gpu.host.array({-1}, 'uint16') end,
   "element [1] (-1) out of range for uint16"},
  {"gpu.host.array({70000}, 'uint16')", function() return gpu.host.array({70000}, 'uint16') end,
   "element [1] (70000) out of range for uint16"},
  {"gpu.host.array({{1}, 2})", function() return gpu.host.array({{1}, 2}) end,
   "ragged table: element [2] is a number, expected a table"},
  {"gpu.host.array({1, 'x'})", function() return gpu.host.array({1, 'x'}) end,
   'element [2] (a string ("x")) expected a number for float32'},
  {"gpu.host.zeros()", function() return gpu.host.zeros() end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got no value)"},
  {"gpu.host.zeros('x')", function() return gpu.host.zeros('x') end,
   "bad argument #1 to 'zeros' (shape (a number or a table of numbers) expected, got string)"},
  {"gpu.host.zeros({1, 1, 1, 1, 1, 1, 1, 1, 1})", function() return gpu.host.zeros({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "shape must have 0 to 8 dimensions, got 9"},
  {"gpu.host.zeros(-1)", function() return gpu.host.zeros(-1) end,
   "size must be non-negative, got -1"},
  {"gpu.host.zeros(2.5)", function() return gpu.host.zeros(2.5) end,
   "size must be an integer, got 2.5"},
  {"gpu.host.zeros(0/0)", function() return gpu.host.zeros(0/0) end,
   "size must be a number, got nan"},
  {"gpu.host.zeros(2^70)", function() return gpu.host.zeros(2^70) end,
   "size is too large: 1.1805916207174e+21"},
  {"gpu.host.zeros(4, 'nope')", function() return gpu.host.zeros(4, 'nope') end,
   "bad argument #2 to 'zeros' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"gpu.host.empty(-1)", function() return gpu.host.empty(-1) end,
   "size must be non-negative, got -1"},
  {"gpu.host.empty({1, 1, 1, 1, 1, 1, 1, 1, 1})", function() return gpu.host.empty({1, 1, 1, 1, 1, 1, 1, 1, 1}) end,
   "shape must have 0 to 8 dimensions, got 9"},
  {"gpu.host.empty(4, 'nope')", function() return gpu.host.empty(4, 'nope') end,
   "bad argument #2 to 'empty' (unknown dtype 'nope' (float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, complex64, complex128, float16))"},
  {"h[0]", function() return h[0] end,
   "index 0 out of range for a host array of 4 elements"},
  {"h[5]", function() return h[5] end,
   "index 5 out of range for a host array of 4 elements"},
  {"h[-1]", function() return h[-1] end,
   "index -1 out of range for a host array of 4 elements"},
  {"h[1.5]", function() return h[1.5] end,
   "host array index must be an integer, got 1.5"},
  {"h.x", function() return h.x end,
   "gpu.hostarray has no field or method 'x'"},
  {"h[true]", function() return h[true] end,
   "host array index must be an integer, got boolean"},
  {"h[2^40]", function() return h[2^40] end,
   "index 1099511627776 out of range for a host array of 4 elements"},
  {"h[1] = 'x'", function() h[1] = 'x' end,
   'cannot store a string ("x") in a float32 host array: expected a number'},
  {"h[1] = '1'", function() h[1] = '1' end,
   'cannot store a string ("1") in a float32 host array: expected a number'},
  {"h[1] = {}", function() h[1] = {} end,
   "cannot store "},
  {"h[0] = 1", function() h[0] = 1 end,
   "index 0 out of range for a host array of 4 elements"},
  {"h[2^40] = 1", function() h[2^40] = 1 end,
   "index 1099511627776 out of range for a host array of 4 elements"},
  {"hi[1] = 1.5", function() hi[1] = 1.5 end,
   "cannot store 1.5 in a int32 host array: not an integer"},
  {"hi[1] = 2^31", function() hi[1] = 2^31 end,
   "cannot store 2147483648.0 in a int32 host array: out of range"},
  {"hdead[1]", function() return hdead[1] end,
   "attempt to use a freed array"},
  {"hdead[1] = 1", function() hdead[1] = 1 end,
   "attempt to use a freed array"},
  {"#hdead", function() return #hdead end,
   "attempt to use a freed array"},
  {"hdead:totable()", function() return hdead:totable() end,
   "attempt to use a freed array"},
  {"h.totable(a)", function() return h.totable(a) end,
   "bad argument #1 to 'totable' (gpu.hostarray expected, got gpu.array)"},
  {"h.free(3)", function() return h.free(3) end,
   "bad argument #1 to 'free' (gpu.hostarray expected, got number)"},
  {"h + 1", function() return h + 1 end,
   "attempt to perform arithmetic on a gpu.hostarray value (upvalue 'h')"},
  {"gpu.kernel()", function() return gpu.kernel() end,
   "bad argument #1 to 'kernel' (source string expected, got nil)"},
  {"gpu.kernel(true)", function() return gpu.kernel(true) end,
   "bad argument #1 to 'kernel' (source string expected, got boolean)"},
  {"gpu.kernel({})", function() return gpu.kernel({}) end,
   "bad argument #1 to 'kernel' (source string expected, got table)"},
  {"gpu.kernel(3)", function() return gpu.kernel(3) end,
   "bad argument #1 to 'kernel' (source string expected, got number)"},
  {"gpu.kernel(a)", function() return gpu.kernel(a) end,
   "bad argument #1 to 'kernel' (source string expected, got userdata)"},
  {"gpu.kernel('x')", function() return gpu.kernel('x') end,
   "the source has 0 __global__ functions: name the kernel, gpu.kernel(source, name)"},
  {"gpu.kernel('', 'k')", function() return gpu.kernel('', 'k') end,
   "no __global__ function 'k' in the source (it has: none)"},
  {"gpu.kernel('__global__ void a1() {} __global__ void a2() {}')", function() return gpu.kernel('__global__ void a1() {} __global__ void a2() {}') end,
   "the source has 2 __global__ functions: name the kernel, gpu.kernel(source, name)"},
  {"gpu.kernel(SRC1, 'missing')", function() return gpu.kernel(SRC1, 'missing') end,
   "no __global__ function 'missing' in the source (it has: one)"},
  {"gpu.kernel(SRC1, 5)", function() return gpu.kernel(SRC1, 5) end,
   "bad argument #2 to 'kernel' (name string expected, got number)"},
  {"gpu.kernel(SRC1, 'one', 5)", function() return gpu.kernel(SRC1, 'one', 5) end,
   "options must be a table, got number"},
  {"gpu.kernel(SRC1, {options = 'x'})", function() return gpu.kernel(SRC1, {options = 'x'}) end,
   "options.options must be a list of strings"},
  {"gpu.kernel(SRC1, {options = {1}})", function() return gpu.kernel(SRC1, {options = {1}}) end,
   "options.options[1] must be a string"},
  {"gpu.kernel(SRC1, {options = {'-DX', {}}})", function() return gpu.kernel(SRC1, {options = {'-DX', {}}}) end,
   "options.options[2] must be a string"},
  {"gpu.kernel('struct S { int a; }; __global__ void a3(S s) {}')", function() return gpu.kernel('struct S { int a; }; __global__ void a3(S s) {}') end,
   "kernel 'a3' parameter 1 has type 'S', which gpuhost cannot pass from Lua"},
  {"gpu.kernel('__global__ void a4(int &r) {}')", function() return gpu.kernel('__global__ void a4(int &r) {}') end,
   "kernel 'a4' parameter 1 has type 'int &r (a reference)', which gpuhost cannot pass from Lua"},
  {"gpu.kernel('__global__ void a5(int **r) {}')", function() return gpu.kernel('__global__ void a5(int **r) {}') end,
   "kernel 'a5' parameter 1 has type 'int**', which gpuhost cannot pass from Lua"},
  {"gpu.kernel('template <typename T> __global__ void a6(T *x) {}')", function() return gpu.kernel('template <typename T> __global__ void a6(T *x) {}') end,
   "kernel 'a6' is a template: name an instantiation, e.g. 'a6<float>'"},
  {"gpu.kernel('__global__ void a7(gpu::array<__nv_bfloat16> x) {}')", function() return gpu.kernel('__global__ void a7(gpu::array<__nv_bfloat16> x) {}') end,
   "kernel 'a7' parameter 1 has type 'gpu::array of __nv_bfloat16', which gpuhost cannot pass from Lua"},
  {"gpu.kernel('__global__ void a8(float3 v) {}')", function() return gpu.kernel('__global__ void a8(float3 v) {}') end,
   "kernel 'a8' parameter 1 has type 'float3', which gpuhost cannot pass from Lua"},
  {"gpu.kernel('__global__ void c1(int *x) { x[0] = undefined_name; }'):compile()", function() return gpu.kernel('__global__ void c1(int *x) { x[0] = undefined_name; }'):compile() end,
   "undefined_name"},
  {"gpu.module()", function() return gpu.module() end,
   "bad argument #1 to 'module' (source string expected, got nil)"},
  {"gpu.module(3)", function() return gpu.module(3) end,
   "bad argument #1 to 'module' (source string expected, got number)"},
  {"gpu.module(SRC1, 'x')", function() return gpu.module(SRC1, 'x') end,
   "options must be a table, got string"},
  {"gpu.module(SRC1, {names = 'x'})", function() return gpu.module(SRC1, {names = 'x'}) end,
   "options.names must be a list of strings"},
  {"m.m3", function() return m.m3 end,
   "module has no kernel 'm3' (it has: m1, m2)"},
  {"m[1]", function() return m[1] end,
   "module has no kernel '1' (it has: m1, m2)"},
  {"k(1)", function() return k(1) end,
   "kernel 'kk' needs a launch configuration: k[{grid, block}](...)"},
  {"k.nope", function() return k.nope end,
   "gpu.kernel has no field or method 'nope'"},
  {"k.compile(3)", function() return k.compile(3) end,
   "bad argument #1 to 'compile' (gpu.kernel expected, got number)"},
  {"k[1]", function() return k[1] end,
   "launch configuration must be {grid, block}, got number"},
  {"k[true]", function() return k[true] end,
   "launch configuration must be {grid, block}, got boolean"},
  {"k[{}]", function() return k[{}] end,
   "launch configuration must be {grid, block}"},
  {"k[{1}]", function() return k[{1}] end,
   "launch configuration must be {grid, block}"},
  {"k[{nil, 1}]", function() return k[{nil, 1}] end,
   "launch configuration must be {grid, block}"},
  {"k[{0, 1}](ai, 4, 1)", function() return k[{0, 1}](ai, 4, 1) end,
   "CUDA_ERROR_INVALID_VALUE: This indicates that one or more of the parameters passed to the API call is not within an acceptable range of values."},
  {"k[{-1, 1}]", function() return k[{-1, 1}] end,
   "launch grid must be made of non-negative integers, got -1"},
  {"k[{1.5, 1}]", function() return k[{1.5, 1}] end,
   "launch grid must be made of non-negative integers, got 1.5"},
  {"k[{2^32, 1}]", function() return k[{2^32, 1}] end,
   "launch grid must be made of non-negative integers, got 4294967296.0"},
  {"k[{'x', 1}]", function() return k[{'x', 1}] end,
   "launch grid must be a number or a table of numbers, got string"},
  {"k[{{'2'}, {'3'}}]", function() return k[{{'2'}, {'3'}}] end,   -- (was run with 2 x 3 threads)
   "launch grid must be made of non-negative integers, got 2 (a string)"},
  {"k[{1, {1, '3'}}]", function() return k[{1, {1, '3'}}] end,
   "launch block must be made of non-negative integers, got 3 (a string)"},
  {"k[{{1, 2, 3, 4}, 1}]", function() return k[{{1, 2, 3, 4}, 1}] end,
   "launch grid must have 1 to 3 dimensions, got 4"},
  {"k[{1, {1, 2, 3, 4}}]", function() return k[{1, {1, 2, 3, 4}}] end,
   "launch block must have 1 to 3 dimensions, got 4"},
  {"k[{1, {}}]", function() return k[{1, {}}] end,
   "launch block must have 1 to 3 dimensions, got 0"},
  {"k[{1, 'x'}]", function() return k[{1, 'x'}] end,
   "launch block must be a number or a table of numbers, got string"},
  {"k[{1, {1, 'y'}}]", function() return k[{1, {1, 'y'}}] end,
   "launch block must be made of non-negative integers, got y"},
  {"k[{1, 2048}](ai, 4, 1)", function() return k[{1, 2048}](ai, 4, 1) end,
   "CUDA_ERROR_INVALID_VALUE: This indicates that one or more of the parameters passed to the API call is not within an acceptable range of values."},
  {"k[{1, 1, shared = 'x'}]", function() return k[{1, 1, shared = 'x'}] end,
   "shared memory size must be a number, got string"},
  {"k[{1, 1, shared = -1}]", function() return k[{1, 1, shared = -1}] end,
   "shared memory size must be non-negative, got -1"},
  {"k[{1, 1, shared = 1.5}]", function() return k[{1, 1, shared = 1.5}] end,
   "shared memory size must be an integer, got 1.5"},
  {"k[{1, 1, shared = 2^32}]", function() return k[{1, 1, shared = 2^32}] end,
   "shared memory size is too large: 4294967296 bytes"},
  {"k[{1, 1, shared = 2^32 + 16}]", function() return k[{1, 1, shared = 2^32 + 16}] end,
   "shared memory size is too large: 4294967312 bytes"},
  {"k[{1, 1, shared = 2^60}]", function() return k[{1, 1, shared = 2^60}] end,
   "shared memory size is too large: 1.1529215046068e+18"},
  {"k[{1, 1, stream = 3}]", function() return k[{1, 1, stream = 3}] end,
   "launch stream must be a gpu.stream, got number"},
  {"k[{1, 1, stream = sdead}]", function() return k[{1, 1, stream = sdead}] end,
   "attempt to use a destroyed stream"},
  {"run()", function() return run() end,
   "kernel 'kk' takes 3 arguments, got 0"},
  {"run(ai)", function() return run(ai) end,
   "kernel 'kk' takes 3 arguments, got 1"},
  {"run(ai, 4, 1, 2)", function() return run(ai, 4, 1, 2) end,
   "kernel 'kk' takes 3 arguments, got 4"},
  {"run(a, 4, 1)", function() return run(a, 4, 1) end,
   "kernel 'kk' argument 1 (int* x) is a float32 array; the kernel takes int32"},
  {"run(h, 4, 1)", function() return run(h, 4, 1) end,
   "kernel 'kk' argument 1 (x) is a host array: copy it to the device first with gpu.array(h)"},
  {"run({1}, 4, 1)", function() return run({1}, 4, 1) end,
   "kernel 'kk' argument 1 (x) is a Lua table: copy it to the device first with gpu.array(t)"},
  {"run('x', 4, 1)", function() return run('x', 4, 1) end,
   "kernel 'kk' argument 1 (x) must be a device array, got string"},
  {"run(dead, 4, 1)", function() return run(dead, 4, 1) end,
   "attempt to use a freed array (kernel 'kk' argument 1)"},
  {"run(ai, 'x', 1)", function() return run(ai, 'x', 1) end,
   "kernel 'kk' argument 2 (int n): expected a number, got string"},
  {"run(ai, 2.5, 1)", function() return run(ai, 2.5, 1) end,
   "kernel 'kk' argument 2 (int n): 2.5 not an integer"},
  {"run(ai, 2^40, 1)", function() return run(ai, 2^40, 1) end,
   "kernel 'kk' argument 2 (int n): 1099511627776.0 out of range for int32: -2147483648 to 2147483647"},
  {"run(ai, -2^31 - 1, 1)", function() return run(ai, -2^31 - 1, 1) end,
   "kernel 'kk' argument 2 (int n): -2147483649.0 out of range for int32: -2147483648 to 2147483647"},
  {"run(ai, nil, 1)", function() return run(ai, nil, 1) end,
   "kernel 'kk' argument 2 (int n): expected a number, got nil"},
  {"run(ai, 4, 'x')", function() return run(ai, 4, 'x') end,
   "kernel 'kk' argument 3 (float f): expected a number, got string"},
  {"run(ai, 4, {})", function() return run(ai, 4, {}) end,
   "kernel 'kk' argument 3 (float f): expected a number, got table"},
  -- named, not printed: printing a device array copies it, which a capture refuses
  {"gpu.graph(function() run(ai, ai, 1) end)", function() return gpu.graph(function() run(ai, ai, 1) end) end,
   "kernel 'kk' argument 2 (int n): expected a number, got gpu.array"},
  {"run(ai, 4, true)", function() return run(ai, 4, true) end,
   "kernel 'kk' argument 3 (float f): expected a number, got boolean"},
  {"s.synchronize(3)", function() return s.synchronize(3) end,
   "bad argument #1 to 'synchronize' (gpu.stream expected, got number)"},
  {"sdead:synchronize()", function() return sdead:synchronize() end,
   "attempt to use a destroyed stream"},
  {"s.destroy('x')", function() return s.destroy('x') end,
   "bad argument #1 to 'destroy' (gpu.stream expected, got string)"},
  {"gpu.module(SRC1, {names = {3}})", function() return gpu.module(SRC1, {names = {3}}) end,
   "options.names[1] must be a string"},
  {"e:record(3)", function() return e:record(3) end,
   "bad argument #1 to 'record' (gpu.stream expected, got number)"},
  {"e:record(sdead)", function() return e:record(sdead) end,
   "attempt to use a destroyed stream"},
  {"edead:record()", function() return edead:record() end,
   "attempt to use a destroyed event"},
  {"edead:synchronize()", function() return edead:synchronize() end,
   "attempt to use a destroyed event"},
  {"e.destroy(3)", function() return e.destroy(3) end,
   "bad argument #1 to 'destroy' (gpu.event expected, got number)"},
  {"gpu.elapsed()", function() return gpu.elapsed() end,
   "bad argument #1 to 'elapsed' (gpu.event expected, got no value)"},
  {"gpu.elapsed(e)", function() return gpu.elapsed(e) end,
   "bad argument #2 to 'elapsed' (gpu.event expected, got no value)"},
  {"gpu.elapsed(e, 3)", function() return gpu.elapsed(e, 3) end,
   "bad argument #2 to 'elapsed' (gpu.event expected, got number)"},
  {"gpu.elapsed(e, edead)", function() return gpu.elapsed(e, edead) end,
   "attempt to use a destroyed event"},
  {"gpu.elapsed(e, gpu.event())", function() return gpu.elapsed(e, gpu.event()) end,
   "gpu.elapsed: event 1 was never recorded (e:record() it first)"},
  {"gpu.device(true)", function() return gpu.device(true) end,
   "bad argument #1 to 'device' (number expected, got boolean)"},
  {"gpu.device('x')", function() return gpu.device('x') end,
   "bad argument #1 to 'device' (number expected, got string)"},
  {"gpu.device('0')", function() return gpu.device('0') end,
   "bad argument #1 to 'device' (number expected, got string)"},
  {"gpu.with_device('0', f)", function() return gpu.with_device('0', print) end,
   'gpu.with_device: no device "0" ('},
  {"a:to('0')", function() return a:to('0') end,
   "bad argument #1 to 'to' (number expected, got string)"},
  {"gpu.device({})", function() return gpu.device({}) end,
   "bad argument #1 to 'device' (number expected, got table)"},
  {"gpu.device(-1)", function() return gpu.device(-1) end,
   "bad argument #1 to 'device' (no device -1 ("},
  {"gpu.device(2.5)", function() return gpu.device(2.5) end,
   "bad argument #1 to 'device' (number has no integer representation)"},
  {"gpu.device(0/0)", function() return gpu.device(0/0) end,
   "bad argument #1 to 'device' (number has no integer representation)"},
  {"gpu.device(2^70)", function() return gpu.device(2^70) end,
   "bad argument #1 to 'device' (number has no integer representation)"},
  {"gpu.device(a)", function() return gpu.device(a) end,
   "bad argument #1 to 'device' (number expected, got gpu.array)"},
  {"dev.use(3)", function() return dev.use(3) end,
   "bad argument #1 to 'use' (table expected, got number)"},
  {"dev.use({})", function() return dev.use({}) end,
   "device id must be an integer, got nil"},
  {"dev.use({id = 'x'})", function() return dev.use({id = 'x'}) end,
   "device id must be an integer, got x"},
  {"dev.use({id = 0.5})", function() return dev.use({id = 0.5}) end,
   "device id must be an integer, got 0.5"},
  {"dev.use({id = 2^40})", function() return dev.use({id = 2^40}) end,
   "no device 1099511627776 ("},
  {"dev.use({id = -1})", function() return dev.use({id = -1}) end,
   "no device -1 ("},
  {"dev.synchronize({id = -1})", function() return dev.synchronize({id = -1}) end,
   "no device -1 ("},
  {"dev.synchronize()", function() return dev.synchronize() end,
   "bad argument #1 to 'synchronize' (table expected, got no value)"},
  {"gpu.rewrite()", function() return gpu.rewrite() end,
   "bad argument #1 to 'rewrite' (string expected, got no value)"},
  {"gpu.rewrite(true)", function() return gpu.rewrite(true) end,
   "bad argument #1 to 'rewrite' (string expected, got boolean)"},
  {"gpu.rewrite({})", function() return gpu.rewrite({}) end,
   "bad argument #1 to 'rewrite' (string expected, got table)"},
  {"gpu.rewrite(a)", function() return gpu.rewrite(a) end,
   "bad argument #1 to 'rewrite' (string expected, got gpu.array)"},
  {"gpu._embedded()", function() return gpu._embedded() end,
   "bad argument #1 to '_embedded' (string expected, got no value)"},
  {"gpu._embedded({})", function() return gpu._embedded({}) end,
   "bad argument #1 to '_embedded' (string expected, got table)"},
  {"gpu._program()", function() return gpu._program() end,
   "bad argument #1 to '_program' (table expected, got no value)"},
  {"gpu._program(3)", function() return gpu._program(3) end,
   "bad argument #1 to '_program' (table expected, got number)"},
  {"gpu._program({names = 3})", function() return gpu._program({names = 3}) end,
   "bad argument #1 to '_program' (names must be a table of kernel names)"},
  {"gpu._program({names = {}}):compile()", function() return gpu._program({names = {}}):compile() end,
   "a program's source must be a string, got nil"},
  {"gpu._program({source = 's', names = {1}}):compile()", function() return gpu._program({source = 's', names = {1}}):compile() end,
   "names[1] must be a string"},
  {"gpu._program({source = SRC1, names = {'one'}, options = {{}}}):compile()", function() return gpu._program({source = SRC1, names = {'one'}, options = {{}}}):compile() end,
   "options[1] must be a string"},
  {"gpu._kernel()", function() return gpu._kernel() end,
   "bad argument #1 to '_kernel' (gpu.program expected, got no value)"},
  {"gpu._kernel(3, 1, {}, 'n')", function() return gpu._kernel(3, 1, {}, 'n') end,
   "bad argument #1 to '_kernel' (gpu.program expected, got number)"},
  {"gpu._kernel(prog, 0, {}, 'n')", function() return gpu._kernel(prog, 0, {}, 'n') end,
   "bad argument #2 to '_kernel' (no such kernel)"},
  {"gpu._kernel(prog, 2, {}, 'n')", function() return gpu._kernel(prog, 2, {}, 'n') end,
   "bad argument #2 to '_kernel' (no such kernel)"},
  {"gpu._kernel(prog, 1, 3, 'n')", function() return gpu._kernel(prog, 1, 3, 'n') end,
   "bad argument #3 to '_kernel' (table expected, got number)"},
  {"gpu._kernel(prog, 1, {{kind = 'scalar', dtype = 'nope'}}, 'n')", function() return gpu._kernel(prog, 1, {{kind = 'scalar', dtype = 'nope'}}, 'n') end,
   "kernel parameter 1 (?) has a type gpuhost cannot pass"},
  {"gpu._kernel(prog, 1, {{kind = 'scalar'}}, 'n')", function() return gpu._kernel(prog, 1, {{kind = 'scalar'}}, 'n') end,
   "kernel parameter 1 (?) has a type gpuhost cannot pass"},
  {"gpu._kernel(prog, 1, {}, {})", function() return gpu._kernel(prog, 1, {}, {}) end,
   "bad argument #4 to '_kernel' (string expected, got table)"},
  {"gpu.range()", function() return gpu.range() end,
   "bad argument #1 to 'gpu.range' (string expected, got no value)"},
  {"gpu.range('r', 3)", function() return gpu.range('r', 3) end,
   "bad argument #2 to 'gpu.range' (function or callable value expected, got number)"},
  {"gpu.range('r', function() error('inner') end)", function() return gpu.range('r', function() error('inner') end) end,
   "inner"},
  {"gpu.range_push({})", function() return gpu.range_push({}) end,
   "bad argument #1 to 'range_push' (string expected, got table)"},
  {"gpu.mark()", function() return gpu.mark() end,
   "bad argument #1 to 'mark' (string expected, got no value)"},
  {"gpu.trace('yes')", function() return gpu.trace('yes') end,
   "bad argument #1 to 'trace' (boolean expected, got string)"},
  {"gpu.jit()", function() return gpu.jit() end,
   "bad argument #1 to 'jit' (function expected, got nil)"},
  {"gpu.jit(3)", function() return gpu.jit(3) end,
   "bad argument #1 to 'jit' (function expected, got number)"},
  {"gpu.jit(print)", function() return gpu.jit(print) end,
   "bad argument #1 to 'jit' (a Lua function written with `function ... end` expected)"},
  {"gpu.jit(jf, 3)", function() return gpu.jit(jf, 3) end,
   "bad argument #2 to 'jit' (options table expected, got number)"},
  {"gpu.jit(jf, {fast = 1})", function() return gpu.jit(jf, {fast = 1}) end,
   "gpu.jit: unknown option 'fast' (it takes signature, name, options, debug, float, integer)"},
  {"gpu.jit(jf, {float = 'int8'})", function() return gpu.jit(jf, {float = 'int8'}) end,
   "bad argument #2 to 'jit' (option float must be float32 or float64, got int8)"},
  {"gpu.jit(jf, {float = 'float16'})", function() return gpu.jit(jf, {float = 'float16'}) end,
   "bad argument #2 to 'jit' (option float must be float32 or float64, got float16)"},
  {"gpu.jit(jf, {integer = 'float32'})", function() return gpu.jit(jf, {integer = 'float32'}) end,
   "bad argument #2 to 'jit' (option integer must be an integer dtype, got float32)"},
  {"gpu.jit(jf, {name = '1x'})", function() return gpu.jit(jf, {name = '1x'}) end,
   "bad argument #2 to 'jit' (option name must be an identifier, got 1x)"},
  {"gpu.jit(jf, {signature = 3})", function() return gpu.jit(jf, {signature = 3}) end,
   "signature must be a string like 'void(float32[:], float32[:])', got number"},
  {"gpu.jit(jf, {signature = 'void(float33[:])'})", function() return gpu.jit(jf, {signature = 'void(float33[:])'}) end,
   "signature 'void(float33[:])': unknown type 'float33[:]'"},
  {"gpu.jit(jf, {signature = 'void(float32[:], int32)'})", function() return gpu.jit(jf, {signature = 'void(float32[:], int32)'}) end,
   "gpu.jit: signature 'void(float32[:], int32)' has 2 types for the 1 parameter of 'jf' (x)"},
  {"jk(a)", function() return jk(a) end,
   "gpu.jit function 'jf' needs a launch configuration"},
  {"jk[{1, 1}]()", function() return jk[{1, 1}]() end,
   "kernel 'jf' takes 1 argument, got 0"},
  {"jk[{1, 1}](h)", function() return jk[{1, 1}](h) end,
   "kernel 'jf' argument 1 (x) is a host array: copy it to the device first with gpu.array(h)"},
  {"jk[{1, 1}]({})", function() return jk[{1, 1}]({}) end,
   "kernel 'jf' argument 1 (x) is a Lua table: copy it to the device first with gpu.array(t)"},
  {"jk[{1, 1}]('x')", function() return jk[{1, 1}]('x') end,
   "kernel 'jf' argument 1 (x) must be a number, a boolean or a device array, got string"},
  {"jk[{1, 1}](dead)", function() return jk[{1, 1}](dead) end,
   "attempt to use a freed array"},
  {"jk[{1}](a)", function() return jk[{1}](a) end,
   "launch configuration must be {grid, block}"},
  {"jk[{1, 1}](3.5)", function() return jk[{1, 1}](3.5) end,
   "indexing a float64 is not supported (only arrays)"},
  {"jk.nothing", function() return jk.nothing end,
   "gpu.jit function has no field or method 'nothing'"},
  {"jk.x = 1", function() jk.x = 1 end,
   "a gpu.jit function has no fields to set"},
  {"gpu.jit(jf):source()", function() return gpu.jit(jf):source() end,
   "gpu.jit function 'jf' has no signature compiled yet"},
  {"jk:source(3)", function() return jk:source(3) end,
   "signature must be a string like 'void(float32[:], float32[:])', got number"},
  {"jk.source(3)", function() return jk.source(3) end,
   "bad self for 'source' (gpu.jit function expected)"},
  {"jk.compile({})", function() return jk.compile({}) end,
   "bad self for 'compile' (gpu.jit function expected)"},
  {"gpu._jit_dispatcher()", function() return gpu._jit_dispatcher() end,
   "bad argument #1 to '_jit_dispatcher' (table expected, got no value)"},
  {"gpu._jit_dispatcher({}, {}, 3)", function() return gpu._jit_dispatcher({}, {}, 3) end,
   "bad argument #3 to '_jit_dispatcher' (function expected, got number)"},
  {"gpu._jit_code()", function() return gpu._jit_code() end,
   "bad argument #1 to '_jit_code' (value expected)"},
  {"gpu._jit_memo()", function() return gpu._jit_memo() end,
   "bad argument #1 to '_jit_memo' (string expected, got no value)"},
  {"gpu._jit_memo('k', {})", function() return gpu._jit_memo('k', {}) end,
   "bad argument #2 to '_jit_memo' (string expected, got table)"},
  {"gpu.save(3, a)", function() return gpu.save(3, a) end,
   "bad argument #1 to 'save' (file name expected, got number)"},
  {"gpu.save('/tmp/x.npy', 'a')", function() return gpu.save('/tmp/x.npy', 'a') end,
   "bad argument #2 to 'save' (array expected, got string)"},
  {"gpu.load({})", function() return gpu.load({}) end,
   "bad argument #1 to 'load' (file name expected, got table)"},
  {"gpu.load('/nonexistent/x.npy')", function() return gpu.load('/nonexistent/x.npy') end,
   "cannot open '/nonexistent/x.npy'"},
  {"gpu.load('/tmp', 3)", function() return gpu.load('/tmp', 3) end,
   "bad argument #2 to 'load' (options table expected, got number)"},
  {"gpu.savez('/tmp/x.npz', 3)", function() return gpu.savez('/tmp/x.npz', 3) end,
   "bad argument #2 to 'savez' (table of arrays expected, got number)"},
  {"gpu.loadz('/nonexistent/x.npz')", function() return gpu.loadz('/nonexistent/x.npz') end,
   "cannot read '/nonexistent/x.npz'"},
  -- reductions
  {"gpu.sum()", function() return gpu.sum() end,
   "bad argument #1 to 'sum' (device array expected, got no value)"},
  {"gpu.sum(h)", function() return gpu.sum(h) end,
   "bad argument #1 to 'sum' (device array expected, got a host array: copy it to the device with gpu.array(h))"},
  {"gpu.sum(dead)", function() return gpu.sum(dead) end,
   "attempt to use a freed array (gpu.sum argument 1)"},
  {"a:sum(2)", function() return a:sum(2) end,
   "gpu.sum: dim 2 is out of range for an array of 1 dimension"},
  {"a:sum(-2)", function() return a:sum(-2) end,
   "gpu.sum: dim -2 is out of range for an array of 1 dimension"},
  {"a:sum(1.5)", function() return a:sum(1.5) end,
   "gpu.sum: dim must be an integer, got 1.5"},
  {"a:sum('x')", function() return a:sum('x') end,
   "gpu.sum: dim must be a number or a table of numbers, got string"},
  {"a:sum({1, 1})", function() return a:sum({1, 1}) end,
   "gpu.sum: dim 1 is given twice"},
  {"a:sum(1, {dim = 1})", function() return a:sum(1, {dim = 1}) end,
   "gpu.sum: dim is given twice (as an argument and as an option)"},
  {"a:sum(1, 2, 3)", function() return a:sum(1, 2, 3) end,
   "gpu.sum takes an array, 1 more argument and an options table, got 4 arguments"},
  {"a:sum({out = 3})", function() return a:sum({out = 3}) end,
   "gpu.sum: out must be a device array, got number"},
  {"a:sum({dim = 1, out = gpu.zeros(2)})", function() return a:sum({dim = 1, out = gpu.zeros(2)}) end,
   "gpu.sum: out has shape {2} but the result has shape {}"},
  {"a:mean({dim = 1, out = gpu.zeros({}, 'int32')})", function() return a:mean({dim = 1, out = gpu.zeros({}, 'int32')}) end,
   "gpu.mean: out is int32, and the result (float32) cannot be cast to it"},
  {"a:sum({stream = 1})", function() return a:sum({stream = 1}) end,
   "bad option 'stream' (gpu.stream expected, got number"},
  -- an options field is not an argument: these said 'bad argument #-1 to '?''
  {"gpu.add(1, 2, {stream = 5})", function() return gpu.add(1, 2, {stream = 5}) end,
   "bad option 'stream' (gpu.stream expected, got number"},
  {"gpu.copy(a, a, {stream = 'x'})", function() return gpu.copy(a, a, {stream = 'x'}) end,
   "bad option 'stream' (gpu.stream expected, got string"},
  -- a third argument that is no options table was ignored
  {"gpu.copy(a, a, 5)", function() return gpu.copy(a, a, 5) end,
   "bad argument #3 to 'copy' (options table ({stream = s}) expected, got number)"},
  {"a:to(0, 'x')", function() return a:to(0, 'x') end,
   "options table ({stream = s}) expected, got string"},
  -- a stream given alone, or anything after the options table, was dropped (a copy at once)
  {"a:tohost(h, gpu.stream())", function() return a:tohost(gpu.host.empty(a.shape), gpu.stream()) end,
   "bad argument #2 to 'tohost' (options table ({stream = s}) expected, got gpu.stream)"},
  {"a:tohost(h, {}, 3)", function() return a:tohost(gpu.host.empty(a.shape), {}, 3) end,
   "a:tohost takes a host array and an options table, got 3 arguments"},
  {"gpu.sum(host array)", function() return gpu.sum(gpu.host.zeros(2)) end,
   "bad argument #1 to 'sum' (device array expected, got a host array: copy it to the device with gpu.array(h))"},
  {"a:tohost(nil, {stream = 5})", function() return a:tohost(nil, {stream = 5}) end,
   "bad option 'stream' (gpu.stream expected, got number"},
  {"gpu.max(gpu.zeros({0}))", function() return gpu.max(gpu.zeros({0})) end,
   "gpu.max of an empty array (or along a dim of size 0): max has no identity"},
  {"gpu.argmin(gpu.zeros({2, 0}), 2)", function() return gpu.argmin(gpu.zeros({2, 0}), 2) end,
   "gpu.argmin of an empty array (or along a dim of size 0): argmin has no identity"},
  {"gpu.argmax(a, {1})", function() return gpu.argmax(a, {1}) end,
   "gpu.argmax takes one dim (a number), got table"},
  {"a:var({ddof = 'x'})", function() return a:var({ddof = 'x'}) end,
   "gpu.var: ddof must be a number, got string"},
  {"a:norm('nuc')", function() return a:norm('nuc') end,
   "gpu.norm: ord must be a number (2, 1, 0, math.huge, -math.huge, p) or \"fro\", got a string (\"nuc\")"},
  {"a:norm(0/0)", function() return a:norm(0/0) end,
   "gpu.norm: ord must not be nan"},
  {"gpu.norm(gpu.zeros({0}), math.huge)", function() return gpu.norm(gpu.zeros({0}), math.huge) end,
   "gpu.norm of an empty array (or along a dim of size 0): norm has no identity"},
  {"gpu.reduction(1, 'T y', 'x', 'a + b', 'y = a', 0)", function() return gpu.reduction(1, 'T y', 'x', 'a + b', 'y = a', 0) end,
   "bad argument to 'reduction' (input: a string of parameters expected, got number)"},
  {"gpu.reduction('T x', '', 'x', 'a + b', 'y = a', 0)", function() return gpu.reduction('T x', '', 'x', 'a + b', 'y = a', 0) end,
   "gpu.reduction: at least one output parameter is needed"},
  {"gpu.reduction('T a', 'T y', 'a', 'a + b', 'y = a', 0)", function() return gpu.reduction('T a', 'T y', 'a', 'a + b', 'y = a', 0) end,
   "gpu.reduction: the name 'a' is reserved (a and b in reduce_expr, _k, _n, _param, _A, _o)"},
  {"gpu.reduction('T x', 'T y', 'x', 'a + b', 'y = a', 0, 'bad name')", function() return gpu.reduction('T x', 'T y', 'x', 'a + b', 'y = a', 0, 'bad name') end,
   "bad argument #7 to 'reduction' (a C identifier expected for the name)"},
  {"gpu.reduction('T x', 'T y', 'x', {}, 'y = a', 0)", function() return gpu.reduction('T x', 'T y', 'x', {}, 'y = a', 0) end,
   "bad argument #4 to 'reduction' (reduce_expr string expected, got table)"},
  {"gpu.reduction('T x', 'U y', 'x', 'a + b', 'y = a', 0)(a)", function() return gpu.reduction('T x', 'U y', 'x', 'a + b', 'y = a', 0)(a) end,
   "gpu.reduction: cannot tell what U is: it is the output's type only: pass out"},
  {"gpu.reduction('float32 x', 'float32 y', 'x', 'a + b', 'y = a', 0)(ai)", function() return gpu.reduction('float32 x', 'float32 y', 'x', 'a + b', 'y = a', 0)(ai) end,
   "gpu.reduction argument 1 is a int32 array; it takes float32"},
  {"gpu.cumsum()", function() return gpu.cumsum() end,
   "bad argument #1 to 'cumsum' (device array expected, got no value)"},
  {"a:cumsum(2)", function() return a:cumsum(2) end,
   "gpu.cumsum: dim 2 is out of range for an array of 1 dimension"},
  {"a:cumsum('x')", function() return a:cumsum('x') end,
   "gpu.cumsum: dim must be an integer, got string"},
  -- a string that reads as a number is refused too (lua_tointegerx read "1" as 1, as gpu.sum did not)
  {"a:cumsum('1')", function() return a:cumsum('1') end,
   "gpu.cumsum: dim must be an integer, got string"},
  {"a:var(1, {ddof = '1'})", function() return a:var(1, {ddof = '1'}) end,
   "gpu.var: ddof must be a number, got string"},
  {"a:sum('1')", function() return a:sum('1') end,
   "gpu.sum: dim must be a number or a table of numbers, got string"},
  {"a:cumsum({1, 2})", function() return a:cumsum({1, 2}) end,
   "gpu.cumsum takes one dim (a number), got a table of them"},
  {"a:cumprod(1, {dim = 1})", function() return a:cumprod(1, {dim = 1}) end,
   "gpu.cumprod: dim is given twice (as an argument and as an option)"},
  {"a:cumsum(1, 2)", function() return a:cumsum(1, 2) end,
   "gpu.cumsum takes an array, a dim and an options table, got 3 arguments"},
  {"a:cumsum({out = gpu.zeros(3)})", function() return a:cumsum({out = gpu.zeros(3)}) end,
   "gpu.cumsum: out has shape {3} but the result has shape {4}"},
  {"a:cumsum({out = 'x'})", function() return a:cumsum({out = 'x'}) end,
   "gpu.cumsum: out must be a device array, got string"},
  {"a:cumsum({out = host array})", function() return a:cumsum({out = gpu.zeros(4):tohost()}) end,
   "gpu.cumsum: out must be a device array, got a host array (make a device array of it with gpu.array(h))"},
  {"a:cumsum({out = gpu.zeros(1):expand(4)})", function() return a:cumsum({out = gpu.zeros(1):expand(4)}) end,
   "gpu.cumsum: cannot write into an expanded view (a stride of 0)"},
  {"gpu.sort()", function() return gpu.sort() end,
   "bad argument #1 to 'sort' (device array expected, got no value)"},
  {"gpu.sort(dead)", function() return gpu.sort(dead) end,
   "attempt to use a freed array (gpu.sort argument 1)"},
  {"a:sort(2)", function() return a:sort(2) end,
   "gpu.sort: dim 2 is out of range for an array of 1 dimension"},
  {"a:sort('x')", function() return a:sort('x') end,
   'gpu.sort: dim must be an integer, got a string ("x")'},
  {"a:sort(1, {dim = 1})", function() return a:sort(1, {dim = 1}) end,
   "gpu.sort: dim is given twice (as an argument and as an option)"},
  {"a:sort(1, 2)", function() return a:sort(1, 2) end,
   "gpu.sort takes 2 arguments and an options table, got 3"},
  {"gpu.argsort(a, 3)", function() return gpu.argsort(a, 3) end,
   "gpu.argsort: dim 3 is out of range for an array of 1 dimension"},
  {"a:topk(5)", function() return a:topk(5) end,
   "gpu.topk: k = 5 is out of range for a dim of size 4 (0 to 4)"},
  {"a:topk(-1)", function() return a:topk(-1) end,
   "gpu.topk: k = -1 is out of range for a dim of size 4 (0 to 4)"},
  {"a:topk(1.5)", function() return a:topk(1.5) end,
   "gpu.topk: k must be an integer, got 1.5"},
  {"a:topk(1, 2)", function() return a:topk(1, 2) end,
   "gpu.topk: dim 2 is out of range for an array of 1 dimension"},
  {"gpu.unique(a, 1)", function() return gpu.unique(a, 1) end,
   "gpu.unique takes 1 argument and an options table, got 2"},
  {"gpu.unique(h)", function() return gpu.unique(h) end,
   "bad argument #1 to 'unique' (device array expected, got a host array: copy it to the device with gpu.array(h))"},
  {"gpu.matmul()", function() return gpu.matmul() end,
   "bad argument #1 to 'matmul' (device array expected, got no value)"},
  {"gpu.matmul(a, 2)", function() return gpu.matmul(a, 2) end,
   "bad argument #2 to 'matmul' (device array expected, got number)"},
  {"gpu.matmul(a, dead)", function() return gpu.matmul(a, dead) end,
   "attempt to use a freed array (gpu.matmul argument 2)"},
  {"gpu.matmul(a, gpu.zeros(3))", function() return gpu.matmul(a, gpu.zeros(3)) end,
   "gpu.matmul: shapes {4} and {3} do not match: the first's last dim (4) is not the second's only dim (3)"},
  {"gpu.matmul(gpu.zeros({2, 3}), gpu.zeros({4, 5}))", function() return gpu.matmul(gpu.zeros({2, 3}), gpu.zeros({4, 5})) end,
   "gpu.matmul: shapes {2, 3} and {4, 5} do not match: the first's last dim (3) is not the second's second-to-last (4)"},
  {"gpu.matmul(gpu.zeros({}), a)", function() return gpu.matmul(gpu.zeros({}), a) end,
   "gpu.matmul: a 0-D array has no rows or columns (shapes {} and {4}): multiply it with *"},
  {"gpu.matmul(ai, ai:reshape(1, 4))", function() return gpu.matmul(ai, ai:reshape(1, 4)) end,
   "gpu.matmul: shapes {4} and {1, 4} do not match: the first's last dim (4) is not the second's second-to-last (1)"},
  {"gpu.matmul(a, a, 3)", function() return gpu.matmul(a, a, 3) end,
   "gpu.matmul takes two arrays and an options table"},
  {"gpu.matmul(a, a, {out = gpu.zeros(2)})", function() return gpu.matmul(a, a, {out = gpu.zeros(2)}) end,
   "gpu.matmul: out has shape {2} but the result has shape {}"},
  {"gpu.matmul(a, a, {out = gpu.zeros({}, 'int32')})", function() return gpu.matmul(a, a, {out = gpu.zeros({}, 'int32')}) end,
   "gpu.matmul: out is int32, and the result (float32) cannot be cast to it"},
  {"gpu.dot(gpu.zeros({2, 2, 3}), gpu.zeros({2, 2, 2}))", function() return gpu.dot(gpu.zeros({2, 2, 3}), gpu.zeros({2, 2, 2})) end,
   "gpu.dot: shapes {2, 2, 3} and {2, 2, 2} do not match: the first's last dim (3) is not the second's second-to-last (2)"},
  {"gpu.outer(a, 'x')", function() return gpu.outer(a, 'x') end,
   "bad argument #2 to 'outer' (device array expected, got string)"},
  {"gpu.random.integers(0, 'x', 3)", function() return gpu.random.integers(0, 'x', 3) end,
   "bad argument #2 to 'integers' (integer expected, got string)"},
  {"gpu.random.integers(5, 2, 3)", function() return gpu.random.integers(5, 2, 3) end,
   "bad argument #2 to 'integers' (high (2) must be above low (5))"},
  {"gpu.random.integers(-1, 2, 3, 'uint8')", function() return gpu.random.integers(-1, 2, 3, 'uint8') end,
   "bad argument #1 to 'integers' ([-1, 2) is out of range for uint8)"},
  {"gpu.random.integers(0, 2, 3, 'bool')", function() return gpu.random.integers(0, 2, 3, 'bool') end,
   "bad argument #4 to 'integers' (an integer dtype expected, got bool)"},
  {"gpu.random.integers(0, 2, -1)", function() return gpu.random.integers(0, 2, -1) end,
   "bad argument #3 to 'integers' (size must be non-negative, got -1)"},
  {"gpu.random.permutation(-2)", function() return gpu.random.permutation(-2) end,
   "bad argument #1 to 'permutation' (a size must be non-negative, got -2)"},
  {"gpu.random.permutation('x')", function() return gpu.random.permutation('x') end,
   "bad argument #1 to 'permutation' (a number or a device array expected, got string)"},
  {"gpu.random.permutation(gpu.zeros({}))", function() return gpu.random.permutation(gpu.zeros({})) end,
   "bad argument #1 to 'permutation' (a 0-D array has no rows to shuffle)"},
  {"gpu.random.choice(0)", function() return gpu.random.choice(0) end,
   "bad argument #1 to 'choice' (a population of at least 1 expected, got 0)"},
  {"gpu.random.choice(gpu.zeros({2, 2}))", function() return gpu.random.choice(gpu.zeros({2, 2})) end,
   "bad argument #1 to 'choice' (a number or a 1-D device array expected, got gpu.array)"},
  {"gpu.random.choice(3, 4, {replace = false})", function() return gpu.random.choice(3, 4, {replace = false}) end,
   "gpu.random.choice: cannot take 4 of 3 without replacement"},
  {"gpu.random.choice(3, 2, {p = {1, 0, 0}})", function() return gpu.random.choice(3, 2, {p = {1, 0, 0}}) end,
   "gpu.random.choice: p must be a 1-D device array of 3 probabilities"},
  {"gpu.random.choice(2, 2, {p = gpu.array({-1, 2})})", function() return gpu.random.choice(2, 2, {p = gpu.array({-1, 2})}) end,
   "gpu.random.choice: probabilities must be non-negative"},
  {"gpu.fft.fft()", function() return gpu.fft.fft() end,
   "bad argument #1 to 'fft' (device array expected, got no value)"},
  {"gpu.fft.fft(ai)", function() return gpu.fft.fft(ai) end,
   "gpu.fft.fft: int32 arrays: FFTs take float32, float64, complex64 or complex128 (convert with astype)"},
  {"gpu.fft.fft(gpu.zeros(2, 'bool'))", function() return gpu.fft.fft(gpu.zeros(2, 'bool')) end,
   "gpu.fft.fft: bool arrays: FFTs take float32, float64, complex64 or complex128"},
  {"gpu.fft.rfft(gpu.zeros(2, 'complex128'))", function() return gpu.fft.rfft(gpu.zeros(2, 'complex128')) end,
   "gpu.fft.rfft takes a real array (float32 or float64), got complex128"},
  {"gpu.fft.fft(a, 0)", function() return gpu.fft.fft(a, 0) end,
   "gpu.fft.fft: invalid number of data points (0) along dim 1"},
  {"gpu.fft.fft(a, 2.5)", function() return gpu.fft.fft(a, 2.5) end,
   "gpu.fft.fft: a size must be an integer, got 2.5"},
  {"gpu.fft.fft(a, nil, 2)", function() return gpu.fft.fft(a, nil, 2) end,
   "gpu.fft.fft: dim 2 is out of range for an array of 1 dimension"},
  {"gpu.fft.fft(gpu.zeros({2, 2}), nil, {1, 2})", function() return gpu.fft.fft(gpu.zeros({2, 2}), nil, {1, 2}) end,
   "gpu.fft.fft transforms one dim: the dim must be an integer, got a table (gpu.fft.fftn takes several)"},
  {"gpu.fft.fftn(gpu.zeros({2, 2}), {2}, {1, 2})", function() return gpu.fft.fftn(gpu.zeros({2, 2}), {2}, {1, 2}) end,
   "gpu.fft.fftn: 1 sizes for 2 dims"},
  {"gpu.fft.fft2(a)", function() return gpu.fft.fft2(a) end,
   "gpu.fft.fft2 takes an array of 2 or more dimensions, got 1"},
  {"gpu.fft.ifft(a, nil, nil, 'none')", function() return gpu.fft.ifft(a, nil, nil, 'none') end,
   "gpu.fft.ifft: norm must be \"backward\", \"ortho\" or \"forward\", got a string (\"none\")"},
  {"gpu.fft.fft(gpu.zeros({}))", function() return gpu.fft.fft(gpu.zeros({})) end,
   "gpu.fft.fft: a 0-D array has no dim to transform"},
  {"gpu.fft.fft(a, 1, 1, 'ortho', {}, 3)", function() return gpu.fft.fft(a, 1, 1, 'ortho', {}, 3) end,
   "gpu.fft.fft takes an array, sizes, dims, a norm and an options table"},
  {"gpu.fft.fft(a, 2^62)", function() return gpu.fft.fft(a, 2^62) end,
   "gpu.fft.fft: 4611686018427387904 data points along dim 1 make an array of more than 2^48 elements"},
  {"gpu.outer(x, x), x of 2^40 elements (expanded)", function()
     local x = gpu.zeros(1):expand(2^40)
     return gpu.outer(x, x)
   end,
   "shape {1099511627776, 1099511627776} is too large (more than 2^48 elements)"},
  {"gpu.add(col, row) broadcast to {2^35, 2^35}", function()
     return gpu.add(gpu.zeros({1, 1}):expand(2^35, 1), gpu.zeros({1, 1}):expand(1, 2^35))
   end,
   "shape {34359738368, 34359738368} is too large (more than 2^48 elements)"},
  {"gpu.matmul(col, row) of {2^35, 2^35}", function()
     return gpu.matmul(gpu.zeros({1, 1}):expand(2^35, 1), gpu.zeros({1, 1}):expand(1, 2^35))
   end,
   "shape {34359738368, 34359738368} is too large (more than 2^48 elements)"},
  {"gpu.random.random(3, {out = a})", function() return gpu.random.random(3, {out = a}) end,
   "dtype expected, got table"},
  {"gpu.random.integers(0, 3, 3, {})", function() return gpu.random.integers(0, 3, 3, {}) end,
   "dtype expected, got table"},
  {"gpu.arange(0, 3, 1, 5)", function() return gpu.arange(0, 3, 1, 5) end,
   "dtype expected, got number"},
  {"gpu.complex('x')", function() return gpu.complex('x') end,
   "bad argument #1 to 'complex' (number expected, got string)"},
  {"gpu.complex(1).x", function() return gpu.complex(1).x end,
   "gpu.complex has no field 'x' (it has re and im)"},
  {"gpu.complex(1) + {}", function() return gpu.complex(1) + {} end,
   "attempt to do arithmetic with a gpu.complex and a table"},
  {"gpu.add(gpu.zeros(2, 'complex64'), gpu.complex(1))", function() return gpu.add(gpu.zeros(2, 'complex64'), gpu.complex(1)) end,
   "gpu.add argument 2 is a gpu.complex: make it an array, gpu.full({}, z, \"complex128\")"},
  {"gpu.floor(gpu.zeros(2, 'complex64'))", function() return gpu.floor(gpu.zeros(2, 'complex64')) end,
   "gpu.floor is not defined for complex arrays (as in NumPy)"},
  {"gpu.sort(gpu.zeros(2, 'complex64'))", function() return gpu.sort(gpu.zeros(2, 'complex64')) end,
   "gpu.sort: complex arrays are not ordered here (sort gpu.real(a) or gpu.abs(a))"},
  -- NaN shows as nan (0/0 has the sign bit set, which C's printf shows as -nan)
  {"gpu.array({0/0}, 'int8')", function() return gpu.array({0 / 0}, "int8") end,
   "element [1] (nan) not an integer for int8"},
  {"hi[1] = 0/0", function() hi[1] = 0 / 0 end, "cannot store nan in a int32 host array: not an integer"},
  {"gpu.zeros(2, 'int8'):fill(0/0)", function() return gpu.zeros(2, "int8"):fill(0 / 0) end, "a:fill: cannot store nan in a int8 array: not an integer"},
  {"gpu.full(2, 0/0, 'int8')", function() return gpu.full(2, 0 / 0, "int8") end, "(nan not an integer for int8)"},
  {"gpu.random.uniform(0/0, 1, 3)", function() return gpu.random.uniform(0 / 0, 1, 3) end,
   "bad argument #1 to 'uniform' (low must be a number, got nan)"},
  {"run(ai, 0/0, 1)", function() return run(ai, 0 / 0, 1) end, "(int n): nan not an integer"},
  {"h[0/0]", function() return h[0 / 0] end, "host array index must be an integer, got nan"},
  {"a[{0/0}]", function() return a[{0 / 0}] end, "an index must be an integer, got nan"},
  {"a[{{1, 0/0}}]", function() return a[{{1, 0 / 0}}] end, "slice end must be an integer, got nan"},
  {"h:item(0/0)", function() return h:item(0 / 0) end, "an index must be an integer, got nan"},
  {"A[{0/0, 1}] (sparse)", function() return gpu.sparse.csr_matrix(gpu.eye(2))[{0 / 0, 1}] end,
   "gpu.sparse.index: a row index must be an integer, got nan"},
  {"gpu.random.choice(2, 1, {p = {0/0, 0.5}})", function() return gpu.random.choice(2, 1, {p = gpu.array({0 / 0, 0.5})}) end,
   "gpu.random.choice: probabilities must be finite numbers (p has NaN)"},
  {"gpu.random.choice(2, 1, {p = {inf, 0.5}})", function() return gpu.random.choice(2, 1, {p = gpu.array({1 / 0, 0.5})}) end,
   "gpu.random.choice: probabilities must be finite numbers (p has an infinity)"},
  {"gpu.reduction('float32 x', 'float32 y', 'x', 'a + b', 'y = a', 0)()", function() return gpu.reduction('float32 x', 'float32 y', 'x', 'a + b', 'y = a', 0)() end,
   "gpu.reduction takes 1 input (and an options table), got 0"},
  -- arguments beyond a function's were dropped (a:copy_(h, {stream = s}) ran unqueued)
  {"a:copy_(h, {stream = s})", function() return a:copy_(h, {stream = s}) end,
   "a:copy_ takes 1 argument, got a table as argument 2 (it takes no options)"},
  {"a:fill(1, {stream = s})", function() return a:fill(1, {stream = s}) end,
   "a:fill takes 1 argument, got a table as argument 2 (it takes no options)"},
  {"h:bytes({})", function() return h:bytes({}) end, "h:bytes takes 0 arguments, got a table as argument 1"},
  {"gpu.host.frombytes('abcd', 'uint8', 4, {})", function() return gpu.host.frombytes("abcd", "uint8", 4, {}) end,
   "gpu.host.frombytes takes 3 arguments, got a table as argument 4"},
  {"gpu.mem_info({})", function() return gpu.mem_info({}) end, "gpu.mem_info takes 0 arguments, got a table as argument 1"},
  {"gpu.empty_cache({})", function() return gpu.empty_cache({}) end, "gpu.empty_cache takes 0 arguments, got a table as argument 1"},
  {"gpu.zeros(1):free({})", function() return gpu.zeros(1):free({}) end, "a:free takes 0 arguments, got a table as argument 1"},
  {"gpu.host.zeros(1):free({})", function() return gpu.host.zeros(1):free({}) end, "h:free takes 0 arguments, got a table as argument 1"},
  {"h:contiguous({})", function() return h:contiguous({}) end, "h:contiguous takes 0 arguments, got a table as argument 1"},
  {"gpu.device(0, {})", function() return gpu.device(0, {}) end, "gpu.device takes 1 argument, got a table as argument 2 (it takes no options)"},
  {"gpu.device_count({})", function() return gpu.device_count({}) end, "gpu.device_count takes 0 arguments, got a table as argument 1"},
  {"gpu.clock({})", function() return gpu.clock({}) end, "gpu.clock takes 0 arguments, got a table as argument 1"},
  -- a number was taken as its digits; types by name, not "userdata"
  {"gpu.host.frombytes(1234, 'uint8')", function() return gpu.host.frombytes(1234, "uint8") end,
   "bad argument #1 to 'frombytes' (string expected, got number)"},
  {"a:fill(h)", function() return a:fill(h) end, "number, boolean or gpu.complex expected, got gpu.hostarray)"},
  {"gpu.copy(a, a, {stream = e})", function() return gpu.copy(a, a, {stream = e}) end,
   "gpu.copy: bad option 'stream' (gpu.stream expected, got gpu.event)"},
  {"h[gpu.array({true})]", function() return h[gpu.array({true})] end, "host array index must be an integer, got gpu.array"},
  {"a:copy_(5)", function() return a:copy_(5) end, "a:copy_: a device or host array, a table or a string expected, got number"},
  {"h:copy_(gpu.zeros(1))", function() return h:copy_(gpu.zeros(1)) end, "h:copy_: 1 element into an array of 4"},
  -- as a[h] reads (it said "attempt to write a device array from Lua")
  {"a[hmask] = 5", function() a[gpu.host.array({true, false, true, false})] = 5 end,
   "a[h] = v: h is a host array: copy it to the device first, a[gpu.array(h)] = v"},
  -- tables are lists, read raw: {x = 2} was a 0-D shape (a proxy was one shape here and no
  -- data there: both read it raw now, array_spec)
  {"gpu.empty({x = 2})", function() return gpu.empty({x = 2}) end,
   "bad argument #1 to 'empty' (shape must be a list of sizes, and the table has a key \"x\" besides its 0 elements)"},
  -- the shapes, permutations, repetitions and dim lists read in Lua and by the views
  -- dropped such a key too (a:reshape({x = 1}) was 0-D)
  {"a:reshape({x = 1})", function() return gpu.zeros(1):reshape({x = 1}) end,
   "a:reshape: shape must be a list of sizes, and the table has a key \"x\" besides its 0 elements"},
  {"a:expand({2, 3, x = 1})", function() return gpu.zeros(3):expand({2, 3, x = 1}) end,
   "a:expand: shape must be a list of sizes, and the table has a key \"x\" besides its 2 elements"},
  {"a:transpose({2, 1, x = 1})", function() return gpu.zeros({2, 2}):transpose({2, 1, x = 1}) end,
   "transpose: a permutation is a list of dimensions, got a table with a key \"x\" besides its 2 elements"},
  {"gpu.broadcast_to(a, {2, 3, x = 1})", function() return gpu.broadcast_to(gpu.zeros(3), {2, 3, x = 1}) end,
   "gpu.broadcast_to: shape must be a list, and the table has a key \"x\" besides its 2 elements"},
  {"gpu.tile(a, {2, x = 1})", function() return gpu.tile(gpu.zeros(3), {2, x = 1}) end,
   "gpu.tile: reps must be a list, and the table has a key \"x\" besides its 1 elements"},
  {"gpu.indices({2, n = 2})", function() return gpu.indices({2, n = 2}) end,
   "gpu.indices: shape must be a list, and the table has a key \"n\" besides its 1 elements"},
  {"gpu.resize(a, {2, y = 1})", function() return gpu.resize(gpu.zeros(3), {2, y = 1}) end,
   "gpu.resize: shape must be a list, and the table has a key \"y\" besides its 1 elements"},
  {"gpu.unravel_index(3, {2, 2, z = 1})", function() return gpu.unravel_index(3, {2, 2, z = 1}) end,
   "gpu.unravel_index: shape must be a list, and the table has a key \"z\" besides its 2 elements"},
  {"gpu.sum(a, {1, x = 2})", function() return gpu.sum(gpu.zeros({2, 2}), {1, x = 2}) end,
   "gpu.sum: dim must be a number or a list of numbers, and the table has a key \"x\" besides its 1 elements"},
  {"gpu.array({1, 2, 3, x = 4})", function() return gpu.array({1, 2, 3, x = 4}) end,
   "not a list: the table has a key \"x\" besides its 3 elements"},
  {"gpu.host.array({{1}, {2, y = 1}})", function() return gpu.host.array({{1}, {2, y = 1}}) end,
   "not a list: [2] has a key \"y\" besides its 1 elements"},
  -- results past what an array holds name the function called (they said a helper's words:
  -- "bad argument #1 to 'f' (shape is too large", a bare "shape[1] is too large: ...",
  -- "bad argument to 'arange'", "gpu.linspace: ...", "a:expand: ...", or ran out of memory)
  {"gpu.stack({x, x, x}) of 2^47 each", function() local x = gpu.arange(1):expand({1 << 47}); return gpu.stack({x, x, x}) end,
   "gpu.stack: the result's shape {3, 140737488355328} is too large: more elements than an array holds (2^48)"},
  {"gpu.vstack({x, x, x}) of 2^47 each", function() local x = gpu.arange(1):expand({1 << 47}); return gpu.vstack({x, x, x}) end,
   "gpu.vstack: the result's shape {3, 140737488355328} is too large: more elements than an array holds (2^48)"},
  {"gpu.column_stack({x, x, x}) of 2^47 each", function() local x = gpu.arange(1):expand({1 << 47}); return gpu.column_stack({x, x, x}) end,
   "gpu.column_stack: the result's shape {140737488355328, 3} is too large: more elements than an array holds (2^48)"},
  {"gpu.concatenate({x, x, x}) of 2^47 each", function() local x = gpu.arange(1):expand({1 << 47}); return gpu.concatenate({x, x, x}) end,
   "gpu.concatenate: the result's shape {422212465065984} is too large: more elements than an array holds (2^48)"},
  {"gpu.block({x, x, x}) of 2^47 each", function() local x = gpu.arange(1):expand({1 << 47}); return gpu.block({x, x, x}) end,
   "gpu.block: the result's shape {422212465065984} is too large: more elements than an array holds (2^48)"},
  {"gpu.vstack({ones(2), ones(3)})", function() return gpu.vstack({gpu.ones(2), gpu.ones(3)}) end,
   "gpu.vstack: array 2 has size 3 in dimension 2, array 1 2 (only dimension 1 may differ)"},
  {"gpu.eye(0, 2^62)", function() return gpu.eye(0, 1 << 62) end,
   "gpu.eye: the result's shape {0, 4611686018427387904} is too large: more elements than an array holds (2^48)"},
  {"gpu.tri(0, 2^62)", function() return gpu.tri(0, 1 << 62) end,
   "gpu.tri: the result's shape {0, 4611686018427387904} is too large: more elements than an array holds (2^48)"},
  {"gpu.random.choice(maxinteger, 4, {replace = false})", function() return gpu.random.choice(math.maxinteger, 4, {replace = false}) end,
   "gpu.random.choice: choosing without replacement permutes 1 .. n, and n = 9223372036854775807 is more than an array holds (2^48)"},
  {"gpu.histogram(a, 2^62)", function() return gpu.histogram(gpu.arange(3), 1 << 62) end,
   "gpu.histogram: 4611686018427387904 bins have more edges than an array holds (2^48)"},
  {"gpu.histogram_bin_edges(a, 2^62)", function() return gpu.histogram_bin_edges(gpu.arange(3), 1 << 62) end,
   "gpu.histogram_bin_edges: 4611686018427387904 bins have more edges than an array holds (2^48)"},
  {"gpu.histogram2d(a, a, 2^30)", function() return gpu.histogram2d(gpu.arange(3), gpu.arange(3), 1 << 30) end,
   "gpu.histogram2d: the result would have 1152921504606846976 elements, more than an array holds (2^48)"},
  {"gpu.meshgrid(x, x) of 2^30 each", function() local x = gpu.arange(1):expand({1 << 30}); return gpu.meshgrid(x, x) end,
   "gpu.meshgrid: the result's shape {1073741824, 1073741824} is too large: more elements than an array holds (2^48)"},
  {"gpu.insert(x, 1, 5) of 2^48", function() return gpu.insert(gpu.arange(1):expand({1 << 48}), 1, 5) end,
   "gpu.insert: the result's shape {281474976710657} is too large: more elements than an array holds (2^48)"},
  -- (said "shape[1] is too large: 562949953421311", naming neither)
  {"gpu.convolve(x, x) of 2^48 each", function() local x = gpu.arange(1.0):expand({1 << 48}); return gpu.convolve(x, x) end,
   "gpu.convolve: the result's shape {562949953421311} is too large: more elements than an array holds (2^48)"},
  {"gpu.correlate(x, x, 'full') of 2^48 each", function() local x = gpu.arange(1.0):expand({1 << 48}); return gpu.correlate(x, x, "full") end,
   "gpu.correlate: the result's shape {562949953421311} is too large: more elements than an array holds (2^48)"},
}

describe("bad input", function()
  it("has a row for at least 200 calls", function()
    assert.is_true(#rows >= 200, #rows .. " rows")
  end)
  for i, row in ipairs(rows) do
    it(("%d: %s"):format(i, row[1]), function()
      local ok, err = pcall(row[2])
      assert.is_false(ok, row[1] .. " raised no error")
      assert.matches(row[3], tostring(err), 1, true)
      assert.is_nil(tostring(err):find("[gpu] lua/", 1, true), "names gpuhost's own line: " .. tostring(err))
    end)
  end
  it("names the caller's line for functions written in Lua, not gpuhost's own", function()
    -- each call is not a tail call, and its error must name this file at the call's line
    local function at(f, ...)
      local args = table.pack(...)
      local ok, err = pcall(function() local r = f(table.unpack(args, 1, args.n)); return r end); local line = debug.getinfo(1, "l").currentline
      assert.is_false(ok)
      err = tostring(err)
      assert.matches("^[^\n]*_spec%.lua:" .. line .. ": ", err)
      assert.is_nil(err:find("lua/", 1, true), err)
      return err
    end
    local l2norm = gpu.reduction("T x", "T y", "x * x", "a + b", "y = sqrt(a)", 0, "l2norm")
    local ew = gpu.elementwise("T x, T y", "T z", "z = x + y", "addk")
    local fused = gpu.fuse(function(x, y) return x + y end)
    local jitk = gpu.jit(function(x) x[gpu.grid(1)] = 1 end)
    assert.matches("bad argument #1 to 'integers' (integer expected, got 0.5)", at(gpu.random.integers, 0.5, 3, 3), 1, true)
    assert.matches("attempt to use a freed array", at(gpu.random.permutation, dead), 1, true)
    assert.matches("attempt to use a freed array", at(gpu.random.choice, dead, 1), 1, true)
    assert.matches("gpu.l2norm: dim 3 is out of range", at(l2norm, gpu.zeros({2, 2}), {dim = 3}), 1, true)
    assert.matches("attempt to use a freed array", at(l2norm, dead), 1, true)
    assert.matches("gpu.addk: shapes {3} and {4} do not broadcast", at(ew, gpu.zeros(3), gpu.zeros(4)), 1, true)
    assert.matches("attempt to use a freed array", at(ew, dead, dead), 1, true)
    assert.matches("shapes {3} and {4} do not broadcast", at(fused, gpu.zeros(3), gpu.zeros(4)), 1, true)
    assert.matches("attempt to use a freed array", at(fused, dead, 1), 1, true)
    assert.matches("out has shape {4}", at(fused, gpu.zeros(3), 1, {out = gpu.zeros(4)}), 1, true)
    assert.matches("is out of range for uint8", at(fused, gpu.zeros(2, "uint8"), 300), 1, true)
    assert.matches("gpu.fuse: could not trace", at(gpu.fuse(function(x) return math.sqrt(x) end), a), 1, true)
    assert.matches("out has shape {4}", at(gpu.clip, gpu.zeros(3), 0, 1, {out = gpu.zeros(4)}), 1, true)
    assert.matches("out has shape {4}", at(gpu.clip, gpu.zeros(3), nil, 1, {out = gpu.zeros(4)}), 1, true)
    assert.matches("attempt to use a freed array", at(gpu.save, os.tmpname(), dead), 1, true)
    assert.matches("attempt to use a freed array", at(jitk[{1}, {1}], dead), 1, true)
    -- gpu.unique (C) hands a dim to lua/sets.lua: its errors at this line too
    assert.matches("gpu.unique: stream must be a gpu.stream", at(gpu.unique, a, {dim = 1, stream = 1}), 1, true)
    assert.matches("gpu.unique: a 0-D array has no dim 1", at(gpu.unique, gpu.zeros({}), {dim = 1}), 1, true)
    local ok, err = pcall(function() return jitk.foo end); local line = debug.getinfo(1, "l").currentline
    assert.is_false(ok)
    assert.matches("_spec%.lua:" .. line .. ": gpu.jit function has no field or method 'foo'", err)
    assert.matches("no __global__ function 'g'", at(gpu.kernel, SRC1, "g"), 1, true)
    assert.matches("number expected, got nan", at(gpu.arange, 0 / 0), 1, true)
    assert.matches("out of range for uint8", at(gpu.full, {2}, 300, "uint8"), 1, true)
    assert.matches("bad argument #3 to 'full' (unknown dtype 'flaot32'", at(gpu.full, 3, 1, "flaot32"), 1, true)
    assert.matches("gpu.diag: k is", at(gpu.diag, gpu.ones({3}), math.mininteger), 1, true)
    assert.matches("gpu.diagflat: 1099511627779 rows", at(gpu.diagflat, gpu.ones({3}), 2^40), 1, true)
    assert.matches("gpu.broadcast_to: shape", at(gpu.broadcast_to, gpu.zeros({1}), {2^62, 2^62}), 1, true)
    assert.matches("bad argument #1 to 'ones' (shape is too large", at(gpu.ones, {2^31, 2^31, 4}), 1, true)
    assert.matches("gpu.linspace: option dtype: unknown dtype", at(gpu.linspace, 1, 2, 3, {dtype = "flaot32"}), 1, true)
    assert.matches("gpu.geomspace: option dtype: unknown dtype", at(gpu.geomspace, 1, 2, 3, {dtype = "flaot32"}), 1, true)
  end)

  it("leaves the host working after all of them", function()
    local b = gpu.arange(4, "int32")
    run(b, 4, 1)
    assert.are.same({5, 5, 5, 5}, b:totable())
  end)
end)

-- An option a function does not take is an error, never ignored: NumPy's axis for gpuhost's
-- dim would otherwise reduce over every dim without a word (host/errors.c, gpu._arg.options)
describe("an unknown option", function()
  local S = require("spec.support")
  local a = gpu.array({{1, 2}, {3, 4}})
  local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end
  local AXIS = "unknown option 'axis' (gpuhost names it dim and counts from 1: NumPy's axis=0 is dim = 1"

  it("is an error in the C functions, naming what they take", function()
    err("gpu.sum: " .. AXIS, gpu.sum, a, {axis = 0})
    err("gpu.mean: unknown option 'keepdims' (gpuhost's is keepdim)", gpu.mean, a, {keepdims = true})
    err("gpu.sum: unknown option 'ddof' (it takes dim, keepdim, out, stream)", gpu.sum, a, {ddof = 1})
    assert.near(5 / 3, gpu.var(a, {ddof = 1}), 1e-6)   -- var and std take it
    err("gpu.cumsum: " .. AXIS, gpu.cumsum, a, {axis = 0})
    err("gpu.sort: unknown option 'kind' (it takes dim, descending, indices, stream)", gpu.sort, a, {kind = "stable"})
    err("gpu.argsort: unknown option 'indices'", gpu.argsort, a, {indices = false})
    err("gpu.add: unknown option 'dtype' (it takes out, stream)", gpu.add, a, a, {dtype = "float64"})
    err("gpu.matmul: unknown option 'precision' (it takes out, tf32, stream)", gpu.matmul, a, a, {precision = 1})
    err("gpu.fft.fft: " .. AXIS, gpu.fft.fft, a, {axis = 0})
    err("gpu.copy: unknown option 'async' (it takes stream)", gpu.copy, a, a, {async = true})
    err("a:tohost: unknown option 'strem' (it takes stream)", a.tohost, a, {strem = 1})
    err("gpu.nan_to_num: unknown option 'copy'", gpu.nan_to_num, a, {copy = false})
    assert.are.same({{1, 2}, {3, 4}}, gpu.nan_to_num(a, {nan = 0, out = gpu.empty({2, 2})}):totable())
    err("gpu.sum: the options table has a boolean key", gpu.sum, a, {[true] = 1})
    err("gpu.add: the options table has a number key (options are named: out, stream)", gpu.add, a, a, {[1] = true})
    -- a byte a message cannot show as it is, escaped: a NUL would cut the message short
    err("gpu.add: unknown option 'a\\0b' (it takes out, stream)", gpu.add, a, a, {["a\0b"] = 1})
    err("gpu.add: unknown option 'x\\10\\\\' (it takes out, stream)", gpu.add, a, a, {["x\n\\"] = 1})
    err("gpu.add: unknown option '\\0012\\255' (it takes out, stream)", gpu.add, a, a, {["\1" .. "2\255"] = 1})
  end)

  it("is an error in the Lua functions too", function()
    err("gpu.median: " .. AXIS, gpu.median, a, {axis = 0})
    err("gpu.nanmean: unknown option 'ddof' (it takes dim, keepdim, out)", gpu.nanmean, a, {ddof = 1})
    err("gpu.linspace: unknown option 'retstep' (it takes endpoint, dtype)", gpu.linspace, 0, 1, 5, {retstep = true})
    err("gpu.histogram: unknown option 'density' (it takes range)", gpu.histogram, a, 4, {density = true})
    err("gpu.linalg.svd: unknown option 'hermitian'", gpu.linalg.svd, a, {hermitian = true})
    err("gpu.isin: unknown option 'inverted' (it takes invert, assume_unique)", gpu.isin, a, a, {inverted = true})
    err("gpu.divmod: unknown option 'where' (it takes out, stream)", gpu.divmod, a, a, {where = true})
    err("gpu.pad: unknown option 'constant_values' (it takes mode, value)", gpu.pad, a, 1, {constant_values = 3})
    err("gpu.gradient: " .. AXIS, gpu.gradient, a, {axis = 0})
    err("gpu.unique: " .. AXIS, gpu.unique, a, {axis = 0})
    err("gpu.fft.fftfreq: unknown option 'd' (it takes dtype)", gpu.fft.fftfreq, 4, {d = 2})
    err("gpu.intersect1d: unknown option 'return_index'", gpu.intersect1d, a, a, {return_index = true})
    err("gpu.random.choice: unknown option 'shuffle' (it takes replace, p)", gpu.random.choice, 5, {3}, {shuffle = true})
    err("gpu.random.multivariate_normal: unknown option 'check_valid' (it takes method)",
        gpu.random.multivariate_normal, gpu.zeros(2), gpu.eye(2), {3}, {check_valid = "raise"})
    err("gpu.einsum: unknown option 'dtype' (it takes out)", gpu.einsum, "ij", a, {dtype = "float64"})
    err("gpu.printoptions: unknown option 'precission' (it takes edgeitems, floatmode, infstr, linewidth, nanstr, "
        .. "precision, sign, suppress, threshold)", gpu.printoptions, {precission = 3}, function() end)
    err("gpu.array2string: unknown option 'sep' (it takes edgeitems, floatmode, infstr, linewidth, nanstr, "
        .. "precision, separator, sign, suppress, threshold)", gpu.array2string, a, {sep = " "})
    err("gpu.format_float_positional: unknown option 'exp_digits' (it takes fractional, min_digits, pad_left, "
        .. "pad_right, precision, sign, trim, unique)", gpu.format_float_positional, 1.5, {exp_digits = 2})
    err("gpu.format_float_scientific: unknown option 'fractional' (it takes exp_digits, min_digits, pad_left, "
        .. "precision, sign, trim, unique)", gpu.format_float_scientific, 1.5, {fractional = true})
    err("gpu.genfromtxt: unknown option 'skiprows' (it takes comments, delimiter, device, dtype, filling_values, "
        .. "max_rows, missing_values, ndmin, skip_footer, skip_header, usecols)", gpu.genfromtxt, "x.txt", {skiprows = 1})
    err("gpu.module: unknown option 'name' (it takes options, names, debug, check)", gpu.module, "", {name = "k"})
  end)

  -- before: each of these returned without a word; gpu.synchronize(s) waited for the whole device
  it("is an error where streams, events, graphs and devices get an argument beyond theirs", function()
    local s, e, a = gpu.stream(), gpu.event(), gpu.ones(2)
    local g = gpu.graph(function() a:fill(1) end)
    err("gpu.synchronize takes no stream: s:synchronize() waits for one", gpu.synchronize, s)
    err("gpu.synchronize takes 0 arguments, got a table as argument 1 (it takes no options)", gpu.synchronize, {stream = s})
    err("s:synchronize takes no arguments, got 1 argument", s.synchronize, s, {timeout = 1})
    err("e:record takes a stream or nothing, got 2 arguments", e.record, e, s, {})
    err("e:synchronize takes no arguments, got 1 argument", e.synchronize, e, {})
    e:record()
    err("gpu.elapsed takes 2 arguments, got a table as argument 3 (it takes no options)", gpu.elapsed, e, e, {})
    err("g:launch takes a stream or nothing, got 2 arguments", g.launch, g, s, {})
    err("a:to takes 2 arguments, got a number as argument 3 (not one it takes)", a.to, a, 0, {}, 5)
    local dev = gpu.device(0)
    err("dev:synchronize takes no arguments, got 1 argument", dev.synchronize, dev, {})
    err("dev:use takes no arguments, got 1 argument", dev.use, dev, {})
    gpu.synchronize(); s:synchronize(); e:record(s); e:synchronize(); g:launch(s); a:to(0, {}); dev:synchronize(); dev:use()
    assert.is_true(gpu.elapsed(e, e) >= 0)
    g:free()
  end)

  it("is an error where a Lua function takes no options: an argument beyond its parameters is not dropped", function()
    local v, m = gpu.array({1.5, 2.25, 3}), gpu.array({{1, 2}, {3, 4}})
    local o = gpu.zeros(3)
    err("gpu.cross takes 2 arguments, got a table as argument 3 (it takes no options)", gpu.cross, v, v, {out = o})
    err("gpu.tril takes 2 arguments, got a table as argument 3 (it takes no options)", gpu.tril, m, 0, {out = m})
    err("gpu.tensordot takes 3 arguments, got a table as argument 4", gpu.tensordot, v, v, 1, {})
    err("gpu.polyval takes 2 arguments, got a number as argument 3", gpu.polyval, v, v, 1)
    err("gpu.linalg.inv takes 1 argument, got a table as argument 2 (it takes no options)", gpu.linalg.inv, m, {out = m})
    assert.are.same({0, 0, 0}, o:totable())
    assert.are.same({{1, 0}, {3, 4}}, gpu.tril(m, 0, nil):totable())   -- a nil is no argument
    assert.are.same({3, 2.25, 1.5}, v:flip(1):totable())
    -- the methods the files set are refused every time, not only at the first call
    for _ = 1, 2 do
      err("gpu.take takes 3 arguments, got a table as argument 4 (it takes no options)", v.take, v, {1, 3}, 1, {out = o})
      err("gpu.flip takes 2 arguments, got a number as argument 3", v.flip, v, 1, 2)
    end
    -- gpu.outer takes gpu.multiply's options, as NumPy's outer takes out
    local po = gpu.zeros({3, 3})
    assert.is_true(rawequal(po, gpu.outer(v, v, {out = po})))
    assert.are.equal(9, po:item(3, 3))
    err("gpu.outer: unknown option 'axis'", gpu.outer, v, v, {axis = 1})
  end)

  it("names the caller's line", function()
    local ok, e = pcall(function() local r = gpu.sum(a, {axis = 0}); return r end)
    local line = debug.getinfo(1, "l").currentline - 1
    assert.is_false(ok)
    assert.matches("_spec%.lua:" .. line .. ": gpu%.sum: unknown option", e)
    ok, e = pcall(function() local r = gpu.median(a, {axis = 0}); return r end)
    line = debug.getinfo(1, "l").currentline - 1
    assert.matches("_spec%.lua:" .. line .. ": gpu%.median: unknown option", e)
    ok, e = pcall(function() local r = gpu.linalg.svd(a, {x = 1}); return r end)
    line = debug.getinfo(1, "l").currentline - 1
    assert.matches("_spec%.lua:" .. line .. ": gpu%.linalg%.svd: unknown option", e)
    ok, e = pcall(function() local r = gpu.array2string(a, {sep = " "}); return r end)
    line = debug.getinfo(1, "l").currentline - 1
    assert.matches("_spec%.lua:" .. line .. ": gpu%.array2string: unknown option", e)
    ok, e = pcall(function() local r = gpu.einsum("ij", a, {dtype = "float64"}); return r end)
    line = debug.getinfo(1, "l").currentline - 1
    assert.matches("_spec%.lua:" .. line .. ": gpu%.einsum: unknown option", e)
  end)
end)

describe("a nil in the options table's place", function()
  local S = require("spec.support")
  local a = gpu.array({{1, 2}, {3, 4}})
  local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end

  -- a nil where the options table goes is none in the C functions, as in the Lua ones
  -- (gpu.around(a, 1, nil)): gpu.matmul(a, a, nil) said 'takes two arrays and an options table'
  it("is none, in the C functions as in the Lua ones", function()
    local v = gpu.array({3, 1, 2})
    assert.are.same({{7, 10}, {15, 22}}, gpu.matmul(a, a, nil):totable())
    assert.are.same({{7, 10}, {15, 22}}, a:matmul(a, nil):totable())
    assert.are.same({{7, 10}, {15, 22}}, gpu.dot(a, a, nil):totable())
    assert.are.equal(10, gpu.sum(a, nil, nil))
    assert.are.same({4, 6}, a:sum(1, nil):totable())
    assert.are.same({2, 2}, gpu.argmax(a, 2, nil):totable())
    assert.near(1, gpu.var(a, 1, nil):item(1), 1e-6)
    local ssq = gpu.reduction("T x", "T y", "x * x", "a + b", "y = a", 0, "ssq")
    assert.are.equal(30, ssq(a, nil):item())
    assert.are.same({1, 2, 3}, gpu.sort(v, 1, nil):totable())
    assert.are.same({2, 3, 1}, v:argsort(nil, nil):totable())
    assert.are.same({1, 2, 3}, gpu.unique(v, nil):totable())
    assert.are.same({3, 2}, v:topk(2, 1, nil):totable())
    assert.are.equal(6, gpu.fft.fft(v, nil, nil, nil, nil):item(1).re)
    assert.are.same({3, 4, 6}, gpu.cumsum(v, 1, nil):totable())
    assert.are.equal(14, gpu.einsum("i,i->", v, v, nil):item())   -- (in Lua, but as the C ones)
    assert.are.same({3, 3, 6}, v:cumprod(nil, nil):totable())
    local twice = gpu.elementwise("T p", "T q", "q = 2 * p", "twice")   -- (in Lua, but as the C ones)
    local o = gpu.zeros(3)
    assert.are.same({6, 2, 4}, twice(v, nil):totable())
    assert.is_true(rawequal(o, twice(v, o, nil)))
    assert.are.same({6, 2, 4}, o:totable())
    -- and the options table before that nil, where the dim was left out: a wrapper's
    -- function f(x, dim, opts) return gpu.sum(x, dim, opts) end called as f(x, {dim = 1})
    -- (gpu.sum said 'the table has a key "dim"', as gpu.nansum, in Lua, did not)
    assert.are.same({4, 6}, gpu.sum(a, {dim = 1}, nil):totable())
    assert.are.same({2, 3}, gpu.mean(a, {dim = 1}, nil):totable())
    assert.are.same({{1, 2}, {4, 6}}, gpu.cumsum(a, {dim = 1}, nil):totable())
    assert.are.same({3, 2, 1}, gpu.sort(v, {descending = true}, nil):totable())
    assert.are.same({{3, 4}}, a:topk(1, {dim = 1}, nil):totable())
    -- anything else there is refused as before, and so is a nil beyond it
    err("gpu.matmul takes two arrays and an options table", gpu.matmul, a, a, nil, nil)
    err("gpu.dot takes two arrays and an options table", gpu.dot, a, a, 1)
    err("gpu.sum takes an array, 1 more argument and an options table, got 4 arguments", gpu.sum, a, 1, nil, nil)
    err("gpu.ssq takes 1 input (and an options table), got 3", ssq, a, nil, nil)
    err("gpu.sort takes 2 arguments and an options table, got 4", gpu.sort, v, 1, nil, nil)
    err("gpu.cumsum takes an array, a dim and an options table, got 4 arguments", gpu.cumsum, v, 1, nil, nil)
    err("gpu.einsum: operand 3 must be a device array or a number, got nil", gpu.einsum, "i,i->", v, v, nil, nil)
    err("gpu.unique takes 1 argument and an options table, got 2", gpu.unique, v, 1)
    err("gpu.fft.fft takes an array, sizes, dims, a norm and an options table", gpu.fft.fft, v, nil, nil, nil, 1)
    err("gpu.twice takes 1 inputs (and optionally its 1 outputs), got 4 arguments", twice, v, o, nil, nil)
  end)
end)

describe("a boolean option", function()
  local S = require("spec.support")
  local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end
  -- before: any value Lua takes as true was true: {keepdim = 0} kept the dim, {endpoint = 0}
  -- (NumPy's endpoint=0 is false) included the endpoint, {compute_uv = "false"} gave u, s, vh
  it("is true, false or absent, in the C functions and the Lua ones", function()
    local a, m, v = gpu.arange(6, "float32"):reshape(2, 3), gpu.eye(2, "float64"), gpu.arange(3)
    err("gpu.sum: option keepdim must be a boolean, got number", a.sum, a, 2, {keepdim = 0})
    err("gpu.max: option keepdim must be a boolean, got string", gpu.max, a, 1, {keepdim = "false"})
    err("gpu.linspace: option endpoint must be a boolean, got number", gpu.linspace, 0, 1, 5, {endpoint = 0})
    err("gpu.logspace: option endpoint must be a boolean, got number", gpu.logspace, 0, 1, 5, {endpoint = 0})
    err("gpu.geomspace: option endpoint must be a boolean, got number", gpu.geomspace, 1, 8, 4, {endpoint = 0})
    err("gpu.linalg.svd: option compute_uv must be a boolean, got string", gpu.linalg.svd, m, {compute_uv = "false"})
    err("gpu.linalg.svd: option full_matrices must be a boolean, got number", gpu.linalg.svd, m, {full_matrices = 0})
    err("gpu.linalg.norm: option keepdim must be a boolean, got number", gpu.linalg.norm, m, nil, 1, {keepdim = 1})
    err("gpu.matmul: option tf32 must be a boolean, got number", gpu.matmul, m, m, {tf32 = 1})
    err("gpu.dot: option tf32 must be a boolean, got number", gpu.dot, v, v, {tf32 = 1})
    err("gpu.random.choice: option replace must be a boolean, got string", gpu.random.choice, 5, 3, {replace = "false"})
    err("gpu.nanvar: option keepdim must be a boolean, got number", gpu.nanvar, a, 1, {keepdim = 1})
    err("gpu.median: option keepdim must be a boolean, got number", gpu.median, a, 1, {keepdim = 1})
    err("gpu.isclose: option equal_nan must be a boolean, got number", gpu.isclose, a, a, {equal_nan = 1})
    err("gpu.isin: option invert must be a boolean, got number", gpu.isin, a, {1}, {invert = 1})
    err("gpu.in1d: option invert must be a boolean, got number", gpu.in1d, v, v, {invert = 1})
    err("gpu.cov: option rowvar must be a boolean, got number", gpu.cov, a, {rowvar = 0})
    err("gpu.cov: option bias must be a boolean, got number", gpu.cov, a, {bias = 0})
    err("gpu.corrcoef: option rowvar must be a boolean, got number", gpu.corrcoef, a, {rowvar = 0})
    err("gpu.vander: option increasing must be a boolean, got number", gpu.vander, v, 3, {increasing = 1})
    err("gpu.intersect1d: option return_indices must be a boolean, got number", gpu.intersect1d, v, v, {return_indices = 1})
    err("gpu.intersect1d: option assume_unique must be a boolean, got number", gpu.intersect1d, v, v, {assume_unique = 1})
    err("gpu.setdiff1d: option assume_unique must be a boolean, got number", gpu.setdiff1d, v, v, {assume_unique = 1})
    err("gpu.unique: option inverse must be a boolean, got number", gpu.unique, a, {dim = 1, inverse = 1})
    err("gpu.histogramdd: option density must be a boolean, got number", gpu.histogramdd, gpu.zeros({3, 2}), 2, {density = 1})
    err("gpu.polyfit: option full must be a boolean, got number", gpu.polyfit, gpu.arange(3, "float64"), gpu.arange(3, "float64"), 1, {full = 1})
    err("gpu.kernel: option debug must be a boolean, got number", gpu.kernel, 'extern "C" __global__ void k() {}', {debug = 1})
    err("gpu.module: option check must be a boolean, got string", gpu.module, 'extern "C" __global__ void k() {}', {check = "no"})
    err("gpu.load: option device must be a boolean, got number", gpu.load, "absent.npy", {device = 1})
    err("gpu.sparse.coo_matrix: option copy must be a boolean, got number", gpu.sparse.coo_matrix,
        {gpu.ones(2), {gpu.arange(2, "int32"), gpu.arange(2, "int32")}}, {copy = 1})
    -- false, true and nil as before
    assert.are.same({2}, a:sum(2, {keepdim = false}).shape)
    assert.are.same({0, 0.25, 0.5, 0.75}, gpu.linspace(0, 1, 4, {endpoint = false, dtype = "float64"}):totable())
    assert.are.equal(1, select("#", gpu.linalg.svd(m, {compute_uv = false})))
    local ok, e = pcall(function() local r = gpu.linspace(0, 1, 5, {endpoint = 0}); return r end)
    assert.matches("_spec%.lua:" .. debug.getinfo(1, "l").currentline - 1 .. ": gpu%.linspace: option endpoint", e)
    assert.is_false(ok)
  end)
end)

describe("a value that is not a number, in a message", function()
  local S = require("spec.support")
  it("is named by its type (gpu.array, table), not by its address or a whole array", function()
    local a = gpu.arange(4)
    assert.are.equal("gpu.cumsum: dim must be an integer, got gpu.array", S.errof(gpu.cumsum, a, gpu.zeros(2)))
    assert.are.equal("gpu.unique: dim must be an integer, got table", S.errof(gpu.unique, a, {dim = {1}}))
    assert.are.equal("gpu.diff: n must be a non-negative integer, got gpu.array", S.errof(gpu.diff, a, gpu.zeros(2)))
    assert.are.equal("gpu.sort: dim must be an integer, got function", S.errof(gpu.sort, a, print))
  end)

  -- before: a string was shown as the number it reads as ('got 1'), a host array as userdata,
  -- and asarray's dtype was refused in a:astype's name ("bad argument #1 to 'astype'")
  it("shows a string quoted, names a host array and the function called", function()
    local a, m = gpu.arange(6, "float32"), gpu.arange(6, "float32"):reshape(2, 3)
    local function msg(f, ...) return (S.errof(f, ...):gsub("^[^:]*:%d+: ", "")) end
    assert.are.equal('gpu.roll: shift must be an integer, got a string ("1")', msg(gpu.roll, a, "1"))
    assert.are.equal('gpu.norm: ord must be a number (2, 1, 0, math.huge, -math.huge, p) or "fro", got a string ("1")',
                     msg(gpu.norm, a, "1"))
    assert.are.equal('gpu.linalg.norm: invalid norm order "1" for matrices', msg(gpu.linalg.norm, m, "1"))
    assert.are.equal("gpu.sum: out must be a device array, got a host array (make a device array of it with gpu.array(h))",
                     msg(gpu.sum, m, 1, {out = gpu.host.zeros({3})}))
    assert.are.equal("gpu.max: out must be a device array, got a host array (make a device array of it with gpu.array(h))",
                     msg(gpu.max, m, 1, {out = gpu.host.zeros({3})}))
    assert.are.equal("bad argument #2 to 'gpu.asarray' (dtype expected, got table)", msg(gpu.asarray, a, {dtype = "float64"}))
    assert.are.equal("bad argument #2 to 'gpu.ascontiguousarray' (dtype expected, got table)",
                     msg(gpu.ascontiguousarray, a, {dtype = "float64"}))
    assert.are.equal("float64", gpu.asarray(a, "float64").dtype)
  end)
end)

describe("methods a script replaces", function()
  it("are not what gpuhost's C calls: a scan's copy and gpu.unique's cumsum stay its own", function()
    local methods = getmetatable(gpu.zeros(1)).methods
    local copy, cumsum = methods.copy, methods.cumsum
    local ok, e = pcall(function()
      -- (a copy of a million elements was scanned into a 9-element out; a cumsum's 2^40
      -- was taken as the count of unique values and as where to write them)
      methods.copy = function(x) return gpu.ones(1000000, x.dtype) end
      methods.cumsum = function() return gpu.full({1}, 2^40, "int64") end
      local a = gpu.arange(10, "float64")
      gpu.cumsum(a[{{1, 9}}], 1, {out = a[{{2, 10}}]})
      assert.are.same({0, 0, 1, 3, 6, 10, 15, 21, 28, 36}, a:totable())
      assert.are.same({1, 2, 3}, gpu.unique(gpu.array({3, 1, 2, 3, 1}, "int64")):totable())
      local back = gpu.fft.irfft(gpu.fft.rfft(gpu.arange(4, "float64")))   -- (C2R reads a copy)
      assert.is_true(gpu.abs(back - gpu.arange(4, "float64")):max() < 1e-12)
    end)
    methods.copy, methods.cumsum = copy, cumsum
    assert(ok, e)
  end)

  -- a[mask] = v read the metatable's methods unchecked: nil or a number there crashed the
  -- process (SIGSEGV); a stream's fields took a missing one for the key's string (s.len was
  -- string.len). Run apart, where a crash ends that process only.
  it("are checked: a metatable's methods that are not a table are an error", function()
    local S = require("spec.support")
    local out = S.run(S.gpuhost .. " -e " .. S.quote([[
      local a = gpu.arange(3)
      local mt = getmetatable(a)
      local m = mt.methods
      for _, v in ipairs({5, "none"}) do
        mt.methods = v ~= "none" and v or nil
        print(select(2, pcall(function() a[a:gt(0)] = 7 end)))
      end
      mt.methods = m
      local put = m._put_mask
      m._put_mask = nil
      print(select(2, pcall(function() a[a:gt(0)] = 7 end)))
      m._put_mask = put
      a[a:gt(1)] = 7
      local s = gpu.stream()
      getmetatable(s).methods = nil
      print(a, s.len, s.device)]]) .. " 2>&1")
    assert.are.equal("(command line):6: a[mask] = v: getmetatable(a).methods must be a table, got number\n" ..
                     "(command line):6: a[mask] = v: getmetatable(a).methods must be a table, got nil\n" ..
                     "(command line):11: a[mask] = v: the arrays' methods have no _put_mask\n" ..
                     "gpu.array(float32, {3}) [0, 1, 7]\tnil\t0\n", out)
  end)
end)

describe("every public function", function()
  it("raises its errors at the caller's line, not a line of gpuhost's own files", function()
    -- each function of gpu and its tables, given three strings: those that raise say where
    -- the call was (the aliases cumproduct, product, alltrue and sometrue named
    -- '[gpu] lua/functional.lua:676' where the call was)
    local seen, here, raised, wrong = {}, debug.getinfo(1, "S").short_src, 0, {}
    local function scan(t, prefix)
      for name, f in pairs(t) do
        if type(name) == "string" and not name:find("^_") and not seen[f] then
          if type(f) == "function" then
            seen[f] = true
            local ok, err = pcall(function() local r = f("bogus", "bogus", "bogus"); return r end)
            if not ok and type(err) == "string" then
              raised = raised + 1
              if err:sub(1, #here + 1) ~= here .. ":" then wrong[#wrong + 1] = prefix .. name .. ": " .. err end
            end
          elseif type(f) == "table" and #prefix < 20 then
            seen[f] = true
            scan(f, prefix .. name .. ".")
          end
        end
      end
    end
    scan(gpu, "gpu.")
    table.sort(wrong)
    assert.is_true(raised > 300, raised)
    assert.are.same({}, wrong)
  end)
end)

-- gpu.ndimage's morphology and measurements against scipy 1.11's numbers (computed with
-- numpy 1.24 and written below; REF["ero8"] is ndi.binary_erosion(b, s8), ... the calls are
-- next to each test): binary and grey morphology with structures, footprints, origins,
-- masks and iterations, label in 1 to 3 dims, the per-label statistics; and the errors.
local S = require("spec.support")
local nd = gpu.ndimage
local NAN = 0 / 0

local REF = {
  ["gbs21"] = {{false, true, false}, {true, true, true}, {false, true, false}},
  ["gbs22"] = {{true, true, true}, {true, true, true}, {true, true, true}},
  ["gbs31"] = {{{false, false, false}, {false, true, false}, {false, false, false}}, {{false, true, false}, {true, true, true}, {false, true, false}}, {{false, false, false}, {false, true, false}, {false, false, false}}},
  ["gbs1"] = {true, true, true},
  ["it2"] = {{false, false, true, false, false}, {false, true, true, true, false}, {true, true, true, true, true}, {false, true, true, true, false}, {false, false, true, false, false}},
  ["it3"] = {{false, false, false, true, false, false, false}, {false, false, true, true, true, false, false}, {false, true, true, true, true, true, false}, {true, true, true, true, true, true, true}, {false, true, true, true, true, true, false}, {false, false, true, true, true, false, false}, {false, false, false, true, false, false, false}},
  ["it3o"] = {3, -3},
  ["ero"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, true, false, true, false, false}, {false, false, false, false, false, false, false}, {false, false, true, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["ero8"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["ero-bv"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, true, false, true, false, false}, {false, false, false, false, false, false, false}, {false, false, true, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["ero-it2"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["ero-mask"] = {{false, false, false, false, false, false, false}, {false, false, false, true, false, false, false}, {false, false, true, true, true, false, false}, {false, false, false, false, false, false, false}, {false, false, true, true, false, false, false}, {false, false, false, true, false, false, false}},
  ["ero-even"] = {{false, false, false, false, false, false, false}, {false, false, true, true, true, false, false}, {false, false, true, true, true, true, false}, {false, false, true, false, false, true, false}, {false, false, true, true, true, true, false}, {false, false, false, true, false, false, false}},
  ["ero-origin"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["dil"] = {{false, true, true, true, true, false, false}, {true, true, true, true, true, true, false}, {true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}, {false, true, true, true, true, true, true}},
  ["dil8-it2"] = {{true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}, {true, true, true, true, true, true, true}},
  ["dil-even"] = {{true, true, true, true, true, false, false}, {true, true, true, true, true, true, false}, {true, true, true, true, true, true, false}, {true, true, true, true, true, true, false}, {false, true, true, true, true, true, true}, {false, false, true, true, false, false, true}},
  ["dil-origin"] = {{false, false, false, false, false, false, false}, {true, true, true, true, false, false, false}, {true, true, true, true, true, false, false}, {true, true, true, true, true, true, false}, {true, true, true, true, true, true, false}, {true, true, true, true, true, true, false}},
  ["dil-mask-inf"] = {{false, false, false, false, false, false, false}, {false, true, true, true, true, false, false}, {false, true, true, true, true, true, false}, {false, true, true, false, true, true, false}, {false, true, true, true, true, true, false}, {false, false, true, true, false, false, false}},
  ["open"] = {{false, false, false, false, false, false, false}, {false, false, true, false, true, false, false}, {false, true, true, true, true, true, false}, {false, false, true, false, true, false, false}, {false, true, true, true, false, false, false}, {false, false, true, false, false, false, false}},
  ["close"] = {{false, false, false, false, false, false, false}, {false, true, true, true, true, false, false}, {false, true, true, true, true, true, false}, {false, true, true, true, true, true, false}, {false, true, true, true, true, true, false}, {false, false, false, false, false, false, false}},
  ["open-it2"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["fill"] = {{false, false, false, false, false, false, false}, {false, true, true, true, true, false, false}, {false, true, true, true, true, true, false}, {false, true, true, true, true, true, false}, {false, true, true, true, true, true, false}, {false, false, true, true, false, false, true}},
  ["fill8"] = {{false, false, false, false, false, false, false}, {false, true, true, true, true, false, false}, {false, true, true, true, true, true, false}, {false, true, true, true, true, true, false}, {false, true, true, true, true, true, false}, {false, false, true, true, false, false, true}},
  ["prop"] = {{false, false, false, false, false, false, false}, {false, true, true, true, true, false, false}, {false, true, true, true, true, true, false}, {false, true, true, false, true, true, false}, {false, true, true, true, true, true, false}, {false, false, true, true, false, false, false}},
  ["hom"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}},
  ["hom2"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, true, false}, {false, false, false, true, false, false, false}},
  ["g"] = {{0, 7, 3, 10, 6, 2}, {9, 5, 1, 8, 4, 0}, {7, 3, 10, 6, 2, 9}, {5, 1, 8, 4, 0, 7}, {3, 10, 6, 2, 9, 5}},
  ["ge3"] = {{0, 0, 1, 1, 0, 0}, {0, 0, 1, 1, 0, 0}, {1, 1, 1, 0, 0, 0}, {1, 1, 1, 0, 0, 0}, {1, 1, 1, 0, 0, 0}},
  ["gd3"] = {{9, 9, 10, 10, 10, 6}, {9, 10, 10, 10, 9, 9}, {7, 10, 10, 10, 9, 9}, {10, 10, 10, 9, 9, 9}, {10, 10, 10, 9, 9, 9}},
  ["ge-fp"] = {{-1, -1, -1, -1, -1, -1}, {-1, 0, 1, 3, 2, -1}, {-1, 1, 5, 1, 0, -1}, {-1, 1, 3, 2, 0, -1}, {-1, 5, 1, 0, 4, -1}},
  ["gd-fp"] = {{9, 8, 10, 8, 4, 2}, {10, 6, 10, 9, 9, 9}, {8, 10, 8, 7, 9, 9}, {6, 10, 9, 5, 9, 7}, {10, 10, 9, 9, 9, 5}},
  ["ge-st"] = {{-2.0, -1.0, 0.0, 1.0, 0.0, -1.0}, {-1.0, 0.0, -1.0, 0.0, -1.0, -2.0}, {1.0, 0.0, 0.0, 0.0, -1.0, -1.0}, {0.0, -1.0, 0.0, -1.0, -2.0, -1.0}, {1.0, 0.0, 1.0, 0.0, -1.0, 0.0}},
  ["gd-st"] = {{10.0, 11.0, 11.0, 12.0, 11.0, 9.0}, {11.0, 10.0, 11.0, 11.0, 10.0, 10.0}, {10.0, 11.0, 12.0, 11.0, 10.0, 11.0}, {10.0, 11.0, 11.0, 10.0, 10.0, 10.0}, {11.0, 12.0, 11.0, 11.0, 11.0, 10.0}},
  ["gd-st-fp"] = {{10.0, 11.0, 13.0, 14.0, 10.0, 9.0}, {13.0, 11.0, 11.0, 12.0, 10.0, 7.0}, {11.0, 13.0, 14.0, 10.0, 12.0, 13.0}, {11.0, 11.0, 12.0, 10.0, 10.0, 11.0}, {13.0, 14.0, 10.0, 12.0, 13.0, 12.0}},
  ["gd-st-u8"] = {{181, 180, 201, 202, 201, 121}, {182, 200, 201, 201, 200, 181}, {181, 201, 202, 201, 181, 182}, {200, 201, 201, 200, 181, 181}, {201, 202, 201, 181, 182, 181}},
  ["ge-st-u8"] = {{0, 0, 0, 1, 0, 0}, {0, 0, 2, 0, 1, 1}, {1, 0, 0, 0, 0, 0}, {0, 2, 0, 1, 1, 2}, {1, 0, 1, 0, 1, 0}},
  ["gopen"] = {{0, 1, 1, 1, 1, 0}, {1, 1, 1, 1, 1, 0}, {1, 1, 1, 1, 1, 0}, {1, 1, 1, 1, 0, 0}, {1, 1, 1, 1, 0, 0}},
  ["gclose"] = {{9, 8, 8, 8, 4, 4}, {9, 8, 6, 8, 4, 4}, {7, 6, 10, 6, 7, 9}, {7, 6, 8, 7, 5, 7}, {6, 10, 6, 5, 9, 5}},
  ["grad"] = {{9, 9, 9, 9, 10, 6}, {9, 10, 9, 9, 10, 9}, {8, 9, 9, 10, 9, 9}, {9, 9, 9, 10, 9, 9}, {9, 9, 9, 9, 9, 9}},
  ["mlap"] = {{9.0, -7.0, 5.0, -9.0, -2.0, -2.0}, {-9.0, 0.0, 9.0, -5.0, 3.0, 9.0}, {0.0, 5.0, -9.0, -3.0, 5.0, -9.0}, {3.0, 9.0, -5.0, 3.0, 9.0, -5.0}, {7.0, -9.0, -3.0, 7.0, -9.0, -3.0}},
  ["wth"] = {{0, 6, 2, 9, 5, 2}, {8, 4, 0, 7, 3, 0}, {6, 2, 9, 5, 1, 9}, {4, 0, 7, 3, 0, 7}, {2, 9, 5, 1, 9, 5}},
  ["bth"] = {{8, 0, 5, 0, 0, 3}, {0, 3, 8, 1, 3, 6}, {1, 6, 0, 3, 6, 0}, {3, 8, 1, 4, 8, 1}, {6, 0, 3, 6, 0, 3}},
  ["wth-u8"] = {{0, 6, 0, 7, 3, 0}, {4, 0, 0, 3, 2, 0}, {2, 0, 5, 3, 0, 7}, {0, 0, 3, 0, 0, 3}, {254, 5, 1, 254, 5, 1}},
  ["wth-bool"] = {{false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, false}, {false, false, false, false, false, false, true}},
  ["lab4"] = {{{1, 0, 0, 0, 0, 0, 0}, {0, 2, 2, 2, 2, 0, 0}, {0, 2, 2, 2, 2, 2, 0}, {0, 2, 2, 0, 2, 2, 2}, {0, 2, 2, 2, 2, 2, 0}, {0, 2, 2, 2, 0, 0, 3}}, 3},
  ["lab8"] = {{{1, 0, 0, 0, 0, 0, 0}, {0, 1, 1, 1, 1, 0, 0}, {0, 1, 1, 1, 1, 1, 0}, {0, 1, 1, 0, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 0}, {0, 1, 1, 1, 0, 0, 1}}, 1},
  ["x3"] = {{{true, true, false, false, false, false}, {false, false, false, true, true, false}, {false, true, true, true, false, false}, {true, false, false, false, true, false}, {true, true, false, true, true, false}}, {{true, false, false, false, false, false}, {true, false, false, true, false, true}, {false, false, true, false, false, false}, {false, true, false, true, false, true}, {false, true, false, false, true, true}}, {{true, false, false, true, false, true}, {true, false, true, false, false, true}, {false, true, true, true, true, true}, {true, false, true, true, false, false}, {false, true, false, false, false, false}}, {{true, true, true, false, true, false}, {true, false, false, false, true, true}, {false, false, false, false, false, false}, {true, false, false, false, false, false}, {false, true, true, false, false, true}}},
  ["lab3"] = {{{{1, 1, 0, 0, 0, 0}, {0, 0, 0, 2, 2, 0}, {0, 2, 2, 2, 0, 0}, {3, 0, 0, 0, 4, 0}, {3, 3, 0, 4, 4, 0}}, {{1, 0, 0, 0, 0, 0}, {1, 0, 0, 2, 0, 2}, {0, 0, 2, 0, 0, 0}, {0, 3, 0, 2, 0, 4}, {0, 3, 0, 0, 4, 4}}, {{1, 0, 0, 5, 0, 2}, {1, 0, 2, 0, 0, 2}, {0, 2, 2, 2, 2, 2}, {6, 0, 2, 2, 0, 0}, {0, 3, 0, 0, 0, 0}}, {{1, 1, 1, 0, 2, 0}, {1, 0, 0, 0, 2, 2}, {0, 0, 0, 0, 0, 0}, {6, 0, 0, 0, 0, 0}, {0, 3, 3, 0, 0, 7}}}, 7},
  ["lab3f"] = {{{{1, 1, 0, 0, 0, 0}, {0, 0, 0, 1, 1, 0}, {0, 1, 1, 1, 0, 0}, {1, 0, 0, 0, 1, 0}, {1, 1, 0, 1, 1, 0}}, {{1, 0, 0, 0, 0, 0}, {1, 0, 0, 1, 0, 1}, {0, 0, 1, 0, 0, 0}, {0, 1, 0, 1, 0, 1}, {0, 1, 0, 0, 1, 1}}, {{1, 0, 0, 1, 0, 1}, {1, 0, 1, 0, 0, 1}, {0, 1, 1, 1, 1, 1}, {1, 0, 1, 1, 0, 0}, {0, 1, 0, 0, 0, 0}}, {{1, 1, 1, 0, 1, 0}, {1, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}, {0, 1, 1, 0, 0, 2}}}, 2},
  ["lab1"] = {{1, 1, 0, 2, 0, 0, 3, 3}, 3},
  ["v"] = {{-3.0, 2.0, 7.0, -1.0, 4.0, 9.0}, {1.0, 6.0, -2.0, 3.0, 8.0, 0.0}, {5.0, -3.0, 2.0, 7.0, -1.0, 4.0}, {9.0, 1.0, 6.0, -2.0, 3.0, 8.0}, {0.0, 5.0, -3.0, 2.0, 7.0, -1.0}},
  ["L"] = {{1, 1, 0, 2, 2, 2}, {1, 0, 0, 2, 3, 3}, {0, 4, 4, 0, 3, 3}, {4, 4, 4, 0, 0, 0}, {0, 0, 0, 5, 5, 0}},
  ["sum_labels"] = {0.0, 15.0, 11.0, 15.0, 9.0, 0.0, 15.0},
  ["sum_labels1"] = 11.0,
  ["sum_labels0"] = 50.0,
  ["sum_labels-"] = 83.0,
  ["mean"] = {0.0, 3.75, 2.75, 3.0, 4.5, NAN, 3.75},
  ["mean1"] = 2.75,
  ["mean0"] = 2.7777777777777777,
  ["mean-"] = 2.7666666666666666,
  ["variance"] = {4.666666666666667, 12.6875, 12.6875, 17.2, 6.25, NAN, 12.6875},
  ["variance1"] = 12.6875,
  ["variance0"] = 13.728395061728397,
  ["variance-"] = 14.378888888888888,
  ["standard_deviation"] = {2.160246899469287, 3.5619517121937516, 3.5619517121937516, 4.147288270665544, 2.5, NAN, 3.5619517121937516},
  ["standard_deviation1"] = 3.5619517121937516,
  ["standard_deviation0"] = 3.7051848890073487,
  ["standard_deviation-"] = 3.7919505388241666,
  ["minimum"] = {-3.0, -1.0, -1.0, -3.0, 2.0, 0.0, -1.0},
  ["minimum1"] = -1.0,
  ["minimum0"] = -3.0,
  ["minimum-"] = -3.0,
  ["maximum"] = {2.0, 9.0, 8.0, 9.0, 7.0, 0.0, 9.0},
  ["maximum1"] = 8.0,
  ["maximum0"] = 9.0,
  ["maximum-"] = 9.0,
  ["minimum_position"] = {{0, 0}, {0, 3}, {2, 4}, {2, 1}, {4, 3}, {0, 0}, {0, 3}},
  ["minimum_position1"] = {2, 4},
  ["minimum_position-"] = {0, 0},
  ["maximum_position"] = {{0, 1}, {0, 5}, {1, 4}, {3, 0}, {4, 4}, {0, 0}, {0, 5}},
  ["maximum_position1"] = {1, 4},
  ["maximum_position-"] = {0, 5},
  ["center_of_mass"] = {{math.huge, math.huge}, {0.2, 4.466666666666667}, {1.2727272727272727, 4.363636363636363}, {3.066666666666667, 0.9333333333333333}, {4.0, 3.7777777777777777}, {NAN, NAN}, {0.2, 4.466666666666667}},
  ["center_of_mass1"] = {1.2727272727272727, 4.363636363636363},
  ["center_of_mass-"] = {1.9156626506024097, 2.9156626506024095},
  ["extrema"] = {{-1.0, -3.0, 0.0}, {9.0, 9.0, 0.0}, {{0, 3}, {2, 1}, {0, 0}}, {{0, 5}, {3, 0}, {0, 0}}},
  ["extrema1"] = {-1.0, 8.0, {2, 4}, {1, 4}},
  ["hist"] = {{1, 2, 0, 0}, {1, 1, 1, 1}},
  ["hist-"] = {4, 5, 4, 5, 4},
  ["objs"] = {{{1, 2}, {1, 2}}, {{1, 2}, {4, 6}}, {{2, 3}, {5, 6}}, {{3, 4}, {1, 3}}, {{5, 5}, {4, 5}}},
  ["objs3"] = {{{1, 2}, {1, 2}}, {{1, 2}, {4, 6}}, {{2, 3}, {5, 6}}, {{3, 4}, {1, 3}}, {{5, 5}, {4, 5}}, false, false},
}

-- got (a device array, a table of them or of numbers, a number) against want (nested
-- tables, numbers, booleans; false for scipy's None): within tol (relative), NaN where NaN
local function same(want, got, tol, at)
  at = at or "result"
  tol = tol or 0
  if gpu._is_array(got) then got = got:totable() end
  if type(want) == "table" then
    assert(type(got) == "table", ("%s: expected a table, got %s"):format(at, tostring(got)))
    assert(#got == #want, ("%s: expected %d elements, got %d"):format(at, #want, #got))
    for i = 1, #want do same(want[i], got[i], tol, at .. "[" .. i .. "]") end
  elseif type(want) ~= "number" or type(got) ~= "number" then
    assert(want == got, ("%s: expected %s, got %s"):format(at, tostring(want), tostring(got)))
  elseif want ~= want then
    assert(got ~= got, ("%s: expected nan, got %s"):format(at, tostring(got)))
  else
    local ok = want == got or math.abs(want - got) <= tol * math.max(1, math.abs(want))
    assert(ok, ("%s: expected %s, got %s"):format(at, tostring(want), tostring(got)))
  end
end

-- scipy's 0-based positions as gpuhost's 1-based ones
local function based(t)
  if type(t) == "number" then return t + 1 end
  local r = {}
  for i, v in ipairs(t) do r[i] = based(v) end
  return r
end

local b = gpu.array({
  {0, 0, 0, 0, 0, 0, 0}, {0, 1, 1, 1, 1, 0, 0}, {0, 1, 1, 1, 1, 1, 0}, {0, 1, 1, 0, 1, 1, 0},
  {0, 1, 1, 1, 1, 1, 0}, {0, 0, 1, 1, 0, 0, 1}}, "bool")
local m = gpu.ones({6, 7}, "bool")   -- m[:, 3] = False
m[{{}, 4}] = false
local s8 = nd.generate_binary_structure(2, 2)
local seed = gpu.arange(42):reshape({6, 7}):eq(8)   -- np.arange(42).reshape(6, 7) == 8
local g = gpu.array(REF.g, "int64")   -- (np.arange(30).reshape(5, 6) * 7) % 11
local gf = g:astype("float64")
local fp = {{1, 0, 1}, {0, 1, 0}}
local st = {{0, 1, 0}, {1, 2, 1}, {0, 1, 0}}

describe("gpu.ndimage.generate_binary_structure and iterate_structure", function()
  it("are scipy's structures", function()
    same(REF.gbs21, nd.generate_binary_structure(2, 1))
    same(REF.gbs22, s8)
    same(REF.gbs31, nd.generate_binary_structure(3, 1))
    same(REF.gbs1, nd.generate_binary_structure(1, 0))   -- connectivity < 1 is 1
    local z = nd.generate_binary_structure(0, 1)
    assert.are.same({}, z.shape)
    assert.is_true(z:item())
    same(REF.it2, nd.iterate_structure(nd.generate_binary_structure(2, 1), 2))
    local r, o = nd.iterate_structure({{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}, 3, {1, -1})
    same(REF.it3, r)
    same(REF.it3o, o)
    same({{true, false}}, nd.iterate_structure({{1, 0}}, 1))
  end)
end)

describe("gpu.ndimage's binary morphology", function()
  it("erodes and dilates by a structure, with border_value, iterations, mask and origin", function()
    same(REF.ero, nd.binary_erosion(b))
    same(REF.ero8, nd.binary_erosion(b, s8))
    same(REF["ero-bv"], nd.binary_erosion(b, {border_value = 1}))
    same(REF["ero-it2"], nd.binary_erosion(b, {iterations = 2, border_value = 1}))
    same(REF["ero-mask"], nd.binary_erosion(b, {mask = m}))
    same(REF["ero-even"], nd.binary_erosion(b, {{1, 1}}))
    same(REF["ero-origin"], nd.binary_erosion(b, s8, {origin = {1, 0}}))
    same(REF.dil, nd.binary_dilation(b))
    same(REF["dil8-it2"], nd.binary_dilation(b, {structure = s8, iterations = 2}))
    same(REF["dil-even"], nd.binary_dilation(b, {{1, 1}, {0, 1}}))
    same(REF["dil-origin"], nd.binary_dilation(b, {origin = {-1, 1}}))
    -- ndi.binary_dilation(seed, iterations=0, mask=b): until nothing changes
    same(REF["dil-mask-inf"], nd.binary_dilation(seed, {iterations = 0, mask = b}))
    -- (seed, iterations=0, mask=b, origin=[1, 0]): taps not symmetric, scipy's repeated dilation
    local only = gpu.zeros({6, 7}, "int32")
    only[{2, 2}] = 1
    same(only:totable(), nd.binary_dilation(seed, {iterations = 0, mask = b, origin = {1, 0}}):astype("int32"))
    same(gpu.zeros({6, 7}, "bool"):totable(), nd.binary_erosion(b, {iterations = -1}))   -- eroded away
    -- a structure without its centre swings 1 0 1 0 ... <-> 0 1 0 1 ... for ever: stopped
    local swing = nd.binary_erosion(gpu.arange(8):reshape({8}) % 2, {1, 0, 1}, {iterations = 0, border_value = 1})
    assert.are.same({8}, swing.shape)
  end)

  it("opens, closes, fills holes, propagates and hits or misses", function()
    same(REF.open, nd.binary_opening(b))
    same(REF.close, nd.binary_closing(b, s8))
    same(REF["open-it2"], nd.binary_opening(b, {iterations = 2}))
    same(REF.fill, nd.binary_fill_holes(b))
    same(REF.fill8, nd.binary_fill_holes(b, s8))
    -- the structure as an option too (it was read only as argument 2: the default cross)
    same(REF.fill8, nd.binary_fill_holes(b, {structure = s8}))
    local x = gpu.array({{1, 1, 1}, {1, 0, 1}, {0, 1, 1}}, "bool")
    same(x:totable(), nd.binary_fill_holes(x, {structure = nd.generate_binary_structure(2, 2)}))   -- (scipy: x)
    assert.has_error(function() nd.binary_fill_holes(x, s8, {structure = s8}) end,
                     "gpu.ndimage.binary_fill_holes: structure given twice (as argument 2 and as option structure)")
    -- b2 = b with [2, 2] and [3, 3] false: ndi.binary_fill_holes(b2, [[1, 1, 0], [0, 1, 0],
    -- [0, 1, 1]]) and (b2, origin=[1, 0]): structures whose taps are not symmetric (scipy's
    -- repeated dilation, not the components of the background)
    local b2 = b:copy()
    b2[{3, 3}] = false
    b2[{4, 4}] = false
    local filled = {{0, 0, 0, 0, 0, 0, 0}, {0, 1, 1, 1, 1, 0, 0}, {0, 1, 1, 1, 1, 1, 0}, {0, 1, 1, 1, 1, 1, 0},
                    {0, 1, 1, 1, 1, 1, 0}, {0, 0, 1, 1, 0, 0, 1}}
    same(filled, nd.binary_fill_holes(b2, {{1, 1, 0}, {0, 1, 0}, {0, 1, 1}}):astype("int32"))
    local shifted = {{0, 0, 1, 1, 0, 0, 0}, table.unpack(filled, 2)}
    same(shifted, nd.binary_fill_holes(b2, {origin = {1, 0}}):astype("int32"))
    same(filled, nd.binary_fill_holes(b2):astype("int32"))
    same(REF.prop, nd.binary_propagation(seed, {mask = b}))
    same(REF.hom, nd.binary_hit_or_miss(b, {{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}))
    same(REF.hom2, nd.binary_hit_or_miss(b, {{1, 1}}, {{0, 0}, {1, 1}}, {origin1 = {0, 0}, origin2 = {-1, 0}}))
  end)

  it("take any dtype and view (nonzero is true), give bool or output's dtype, and empty arrays", function()
    same(REF.ero, nd.binary_erosion(b:astype("float32")))
    same(REF.dil, nd.binary_dilation(b.T:copy().T))
    local e = nd.binary_erosion(b, {output = "uint8"})
    assert.are.equal("uint8", e.dtype)
    local out = gpu.zeros({6, 7}, "int32")
    assert.are.equal(out, nd.binary_dilation(b, {output = out}))
    same(nd.binary_dilation(b):astype("int32"):totable(), out)
    local z = nd.binary_erosion(gpu.zeros({0, 3}, "bool"))
    assert.are.same({0, 3}, z.shape)
    assert.are.same({0, 3}, nd.binary_fill_holes(gpu.zeros({0, 3})).shape)
  end)
end)

describe("gpu.ndimage's grey morphology", function()
  it("erodes and dilates by a size, a footprint or a non-flat structure, in every mode", function()
    same(REF.ge3, nd.grey_erosion(g, 3))
    same(REF.gd3, nd.grey_dilation(g, {size = {2, 3}}))
    same(REF["ge-fp"], nd.grey_erosion(g, {footprint = fp, mode = "constant", cval = -1}))
    same(REF["gd-fp"], nd.grey_dilation(g, {footprint = fp, mode = "nearest", origin = {0, 1}}))
    same(REF["ge-st"], nd.grey_erosion(gf, {structure = st}))
    same(REF["gd-st"], nd.grey_dilation(gf, {structure = st, mode = "wrap"}))
    same(REF["gd-st-fp"], nd.grey_dilation(gf, {structure = {{1, 2}, {3, 4}}, footprint = {{1, 0}, {1, 1}}, mode = "mirror"}))
    -- uint8: the result cast as scipy's C casts it (wrapped)
    same(REF["gd-st-u8"], nd.grey_dilation(g:astype("uint8") * 20, {structure = st}))
    same(REF["ge-st-u8"], nd.grey_erosion(g:astype("uint8"), {structure = st}))
  end)

  it("open, close, and make gradients, Laplacians and top-hats", function()
    same(REF.gopen, nd.grey_opening(g, 3))
    same(REF.gclose, nd.grey_closing(g, {footprint = fp}))
    same(REF.grad, nd.morphological_gradient(g, 3))
    same(REF.mlap, nd.morphological_laplace(gf, {3, 2}))
    same(REF.wth, nd.white_tophat(g, 3))
    same(REF.bth, nd.black_tophat(g, {structure = st}))
    same(REF["wth-u8"], nd.white_tophat(g:astype("uint8"), {footprint = fp}))
    same(REF["wth-bool"], nd.white_tophat(b, 2))
    local out = gpu.zeros({5, 6}, "float32")
    assert.are.equal(out, nd.morphological_gradient(g, 3, {output = out}))
    same(REF.grad, out)
    assert.are.same({0, 4}, nd.grey_erosion(gpu.zeros({0, 4}), {structure = st}).shape)
  end)
end)

describe("gpu.ndimage.label", function()
  local x = b:logical_or((gpu.arange(42):reshape({6, 7}) % 9):eq(0))
  it("numbers connected components in the order of their first elements, as scipy's", function()
    local l, n = nd.label(x)
    assert.are.equal("int32", l.dtype)
    same(REF.lab4, {l, n})
    same(REF.lab8, {nd.label(x, s8)})
    local x3 = gpu.array(REF.x3, "bool")
    same(REF.lab3, {nd.label(x3)})
    same(REF.lab3f, {nd.label(x3, gpu.ones({3, 3, 3}))})
    same(REF.lab1, {nd.label(gpu.array({1, 1, 0, 2, 0, 0, 3, 3}, "int16"))})
  end)

  it("refuses an output dtype too narrow for the labels, as scipy's", function()
    local t = {}
    for i = 1, 260 do t[i] = i % 2 end
    local a = gpu.array(t, "uint8")
    for _, out in ipairs({"int8", "bool"}) do
      local ok, e = pcall(nd.label, a, {output = out})
      assert.is_false(ok)
      assert.matches("gpu.ndimage.label: insufficient bit-depth in the output type " .. out .. " for 130 labels", e, 1, true)
    end
    local l, n = nd.label(a, {output = gpu.zeros(260, "uint8")})
    assert.are.same({130, 130}, {n, l:max()})
  end)

  it("labels views, empty and 0-D arrays, and long snakes", function()
    same(REF.lab4, {nd.label(x.T:copy().T)})
    local l, n = nd.label(gpu.zeros({0, 3}))
    assert.are.same({0, 3}, l.shape)
    assert.are.equal(0, n)
    l, n = nd.label(gpu.full({}, 5, "float64"))
    assert.are.equal(1, l:item())
    assert.are.equal(1, n)
    -- a serpentine of 1 component over 16 rows (a worst case for label propagation)
    local t = {}
    for i = 1, 16 do
      t[i] = {}
      for j = 1, 16 do t[i][j] = (i % 2 == 1 or (i % 4 == 2 and j == 16) or (i % 4 == 0 and j == 1)) and 1 or 0 end
    end
    l, n = nd.label(gpu.array(t, "uint8"))
    assert.are.equal(1, n)
    assert.are.equal(136, gpu.sum(l))
    local out = gpu.zeros({16, 16}, "int64")
    local r = nd.label(gpu.array(t, "uint8"), {output = out})
    assert.are.equal(out, r)
  end)
end)

describe("gpu.ndimage.label of many components", function()
  it("numbers each point of a checkerboard (4-connected) in C order, and joins them all (8-connected)", function()
    local want, list, n = {}, {}, 0
    for i = 0, 39 do
      for j = 0, 49 do
        local on = (i + j) % 2 == 0
        list[#list + 1] = on
        if on then n = n + 1 end
        want[#want + 1] = on and n or 0
      end
    end
    local x = gpu.array(list, "bool"):reshape({40, 50})
    local l, count = nd.label(x)
    assert.are.same({1000, want}, {count, l:reshape({-1}):totable()})
    -- structures with and without the left tap (ndm_label_merge's rows of taps; scipy's numbers)
    local y = gpu.array({{1, 0, 1, 0, 0, 1, 0, 1, 1}, {0, 1, 1, 1, 1, 0, 0, 1, 0}, {0, 0, 0, 1, 1, 1, 1, 1, 1},
                         {1, 0, 0, 0, 1, 1, 1, 1, 1}, {0, 0, 0, 1, 0, 0, 0, 1, 1}, {0, 0, 1, 0, 1, 0, 0, 0, 0}}, "bool")
    same({{{1, 0, 1, 0, 0, 2, 0, 3, 1}, {0, 1, 2, 1, 2, 0, 0, 1, 0}, {0, 0, 0, 2, 1, 2, 1, 2, 1}, {4, 0, 0, 0, 2, 1, 2, 1, 2},
           {0, 0, 0, 2, 0, 0, 0, 2, 1}, {0, 0, 2, 0, 2, 0, 0, 0, 0}}, 4}, {nd.label(y, {{1, 0, 1}, {0, 1, 0}, {1, 0, 1}})})
    same({{{1, 0, 1, 0, 0, 1, 0, 1, 1}, {0, 1, 1, 1, 1, 0, 0, 1, 0}, {0, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 0, 0, 0, 1, 1, 1, 1, 1},
           {0, 0, 0, 1, 0, 0, 0, 1, 1}, {0, 0, 1, 0, 1, 0, 0, 0, 0}}, 2}, {nd.label(y, s8)})
    same({{{1, 0, 2, 0, 0, 2, 0, 2, 2}, {0, 2, 2, 2, 2, 0, 0, 2, 0}, {0, 0, 0, 2, 2, 2, 2, 2, 2}, {3, 0, 0, 0, 2, 2, 2, 2, 2},
           {0, 0, 0, 2, 0, 0, 0, 2, 2}, {0, 0, 2, 0, 4, 0, 0, 0, 0}}, 4}, {nd.label(y, {{0, 1, 1}, {1, 1, 1}, {1, 1, 0}})})
    -- the same structure as a bool device array, a float64 one and a table: one result
    for _, st in ipairs({s8, s8:astype("float64"), {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}}) do
      l, count = nd.label(x, st)
      assert.are.same({1, x:astype("int32"):totable()}, {count, l:totable()})
    end
  end)
end)

describe("gpu.ndimage's measurements", function()
  local v = gpu.array(REF.v, "float64")
  local L = gpu.array(REF.L, "int32")
  local idx = {1, 2, 3, 4, 5, 7, 2}
  it("are scipy's statistics of each label of index (an array for a table or array, a number else)", function()
    for _, f in ipairs({"sum_labels", "mean", "variance", "standard_deviation", "minimum", "maximum"}) do
      local r = nd[f](v, L, idx)
      assert.is_true(gpu._is_array(r), f)
      same(REF[f], r, 1e-12, f)
      same(REF[f], nd[f](v, L, gpu.array(idx, "int64")), 1e-12, f)
      same(REF[f .. "1"], nd[f](v, L, 3), 1e-12, f)
      same(REF[f .. "0"], nd[f](v, L), 1e-12, f)
      same(REF[f .. "-"], nd[f](v), 1e-12, f)
    end
    same(REF.sum_labels, nd.sum(v, L, idx))
    -- empty inputs: scipy's sum 0 and mean NaN; bool labels; labels broadcast to input
    same(0, nd.sum(gpu.zeros({0})))
    same(NAN, nd.mean(gpu.zeros({0}), gpu.zeros({0}, "int32"), 1))
    same(2, nd.sum(gpu.ones({3}), gpu.array({true, false, true}, "bool")))
    same({4, 0}, nd.sum(gpu.ones({2, 3}), gpu.array({1, 2, 2}, "int32"), {2, 1.5}))
    assert.are.equal("uint8", nd.maximum(gpu.array({1, 2}, "uint8"), gpu.array({1, 1}, "int32"), {1}).dtype)
  end)

  it("give medians and labeled_comprehension's values of a Lua function", function()
    -- ndi.median(v, L, [1, 2, 3, 4, 5, 2]), ndi.median(v, L, 3), ndi.median(v, L), ndi.median(v)
    same({1.0, 3.5, 2.0, 2.0, 4.5, 3.5}, nd.median(v, L, {1, 2, 3, 4, 5, 2}))
    same(2.0, nd.median(v, L, 3))
    same(2.0, nd.median(v, L))
    same(2.5, nd.median(v))
    same({NAN}, nd.median(v, L, {7}))   -- scipy's gives another region's value
    same({1.0, 2.0}, nd.median(v:astype("float32"), L, {1, 3}))
    assert.are.equal("float32", nd.median(v:astype("float32"), L, {1, 3}).dtype)
    -- ndi.labeled_comprehension(v, L, [1, 2, 7], np.ptp, float, -1); (v, L, 4, np.ptp, ...)
    local function ptp(a) return gpu.max(a) - gpu.min(a) end
    same({5.0, 10.0, -1.0}, nd.labeled_comprehension(v, L, {1, 2, 7}, ptp, "float64", -1))
    same(12.0, nd.labeled_comprehension(v, L, 4, ptp, "float64", -1))
    -- (v, L, [1, 5], lambda a, p: p.sum(), int, 0, True): 7 and 55, 0-based
    local r = nd.labeled_comprehension(v, L, {1, 5}, function(_, p) return gpu.sum(p) end, "int64", 0, true)
    assert.are.equal("int64", r.dtype)
    same({7 + 3, 55 + 2}, r)
    same(30, nd.labeled_comprehension(v, nil, nil, function(a) return a.size end, "int64", 0))
  end)

  it("give positions (1-based), extrema, centres of mass, histograms and objects' boxes", function()
    same(based(REF.minimum_position), nd.minimum_position(v, L, idx))
    same(based(REF.minimum_position1), nd.minimum_position(v, L, 3))
    same(based(REF["minimum_position-"]), nd.minimum_position(v))
    same(based(REF.maximum_position), nd.maximum_position(v, L, idx))
    same(based(REF.maximum_position1), nd.maximum_position(v, L, 3))
    same(based(REF["maximum_position-"]), nd.maximum_position(v))
    local lo, hi, plo, phi = nd.extrema(v, L, {2, 4, 9})
    same(REF.extrema[1], lo)
    same(REF.extrema[2], hi)
    same(based(REF.extrema[3]), plo)
    same(based(REF.extrema[4]), phi)
    lo, hi, plo, phi = nd.extrema(v, L, 3)
    same(REF.extrema1[1], lo)
    same(REF.extrema1[2], hi)
    same(based(REF.extrema1[3]), plo)
    same(based(REF.extrema1[4]), phi)
    same(based(REF.center_of_mass), nd.center_of_mass(v, L, idx), 1e-12)
    same(based(REF.center_of_mass1), nd.center_of_mass(v, L, 3), 1e-12)
    same(based(REF["center_of_mass-"]), nd.center_of_mass(v), 1e-12)
    same(REF.hist, nd.histogram(v, -3, 9, 4, L, {1, 3}))
    same(REF["hist-"], nd.histogram(v, 0, 10, 5))
    same(REF.objs, nd.find_objects(L))
    same(REF.objs3, nd.find_objects(L, 7))
    local box = nd.find_objects(L)[2]
    same({{2, 2, 2}, {2, 3, 3}}, L[box])   -- scipy's L[objs[1]]
  end)
end)

describe("gpu.ndimage.find_objects", function()
  -- the boxes of labels 1 .. nl of a C-ordered host list of labels, by a walk over it
  local function boxes(list, shape, nl)
    local r = {}
    for l = 1, nl do r[l] = false end
    for i, l in ipairs(list) do
      if l >= 1 and l <= nl then
        local c, q = {}, i - 1
        for d = #shape, 1, -1 do c[d], q = q % shape[d] + 1, q // shape[d] end
        if not r[l] then
          r[l] = {}
          for d = 1, #shape do r[l][d] = {c[d], c[d]} end
        end
        for d = 1, #shape do
          r[l][d][1], r[l][d][2] = math.min(r[l][d][1], c[d]), math.max(r[l][d][2], c[d])
        end
      end
    end
    return r
  end
  local function runs(size, len, step, first)
    local list = {}
    for i = 1, size do list[i] = ((i - 1) // len) % step + first end
    return list
  end

  it("boxes runs of a label that cross lines and planes, and labels that go past 32 in a row", function()
    for _, c in ipairs({{{70}, 40, 3}, {{7, 9}, 13, 4}, {{3, 4, 5}, 7, 5}, {{2, 3, 2, 5}, 11, 6}, {{5, 1, 7}, 3, 9}}) do
      local shape, list = c[1], runs(c[1][1] * (c[1][2] or 1) * (c[1][3] or 1) * (c[1][4] or 1), c[2], c[3], 0)
      local L = gpu.array(list, "int32"):reshape(shape)
      assert.are.same(boxes(list, shape, math.max(table.unpack(list))), nd.find_objects(L))
    end
  end)

  it("boxes many labels, labels past max_label, negative and very large ones, and any view", function()
    local list = runs(40 * 50, 2, 1000, 1)   -- 1000 labels of two points each
    local L = gpu.array(list, "int32"):reshape({40, 50})
    local want = boxes(list, {40, 50}, 1000)
    assert.are.same(want, nd.find_objects(L))
    assert.are.same({table.unpack(want, 1, 600)}, nd.find_objects(L, 600))
    local more = nd.find_objects(L, 1003)
    assert.are.same({1003, false, false, false}, {#more, more[1001], more[1002], more[1003]})
    -- a transposed view: its own C order
    local t = {}
    for j = 1, 50 do for i = 1, 40 do t[#t + 1] = list[(i - 1) * 50 + j] end end
    assert.are.same(boxes(t, {50, 40}, 1000), nd.find_objects(L:transpose()))
    -- int8 with negative labels (never boxed), bool (label 1)
    local neg = {-3, 2, 0, -1, 2, 5, -128, 5, 1, 1, 0, 2}
    assert.are.same(boxes(neg, {3, 4}, 5), nd.find_objects(gpu.array(neg, "int8"):reshape({3, 4})))
    assert.are.same({{{2, 3}, {1, 4}}}, nd.find_objects(gpu.array({{false, false, false, false}, {false, true, false, false},
                                                                    {true, false, false, true}}, "bool")))
    -- uint64 labels at or above 2^63 count as negative (int64's order): not the greatest
    local big = gpu.array({0, 2, -5, 1}, "int64"):astype("uint64")
    assert.are.same({{{4, 4}}, {{2, 2}}}, nd.find_objects(big))
    -- none, empty
    assert.are.same({}, nd.find_objects(gpu.zeros({3, 4}, "int16")))
    assert.are.same({false, false}, nd.find_objects(gpu.zeros({0, 4}, "int32"), 2))
    assert.are.same({}, nd.find_objects(gpu.zeros({0, 4}, "int32")))
  end)
end)

describe("gpu.ndimage's morphology and measurement errors", function()
  local x = gpu.zeros({3, 4}, "float64")
  local function err(pattern, f, ...) assert.matches(pattern, S.errof(f, ...), 1, true) end
  -- before: a kernel's argument was named ("kernel 'ndi_line<double, double>' argument 1 ...")
  it("#multi name the function and the argument on another device", function()
    local b = gpu.with_device(1, gpu.zeros, {3, 4}, "float64")
    local l = gpu.with_device(1, gpu.ones, {3, 4}, "int32")
    err("gpu.ndimage.grey_erosion: input on device 1, and device 0 is current: run it with gpu.with_device(1, f), or copy it here with a:to(0)",
        nd.grey_erosion, b, {size = 2})
    err("gpu.ndimage.binary_erosion: input on device 1", nd.binary_erosion, b)
    err("gpu.ndimage.sum: labels on device 1", nd.sum, x, l)
    err("gpu.ndimage.binary_dilation: mask on device 1", nd.binary_dilation, x, {mask = l})
    err("gpu.ndimage.distance_transform_edt: input on device 1", nd.distance_transform_edt, b)
  end)
  it("name the function and what was wrong", function()
    err("gpu.ndimage.binary_erosion: input must be a device array, got table", nd.binary_erosion, {{1}})
    err("gpu.ndimage.binary_erosion: input is complex64: complex arrays are not supported", nd.binary_erosion, gpu.zeros(3, "complex64"))
    err("gpu.ndimage.binary_dilation: structure must have input's number of dims (2), got 1", nd.binary_dilation, x, {1, 1})
    err("gpu.ndimage.binary_dilation: input is 0-D: give an array of at least one dim", nd.binary_dilation, gpu.full({}, 1))
    err("gpu.ndimage.binary_erosion: iterations must be an integer, got 1.5", nd.binary_erosion, x, {iterations = 1.5})
    err("gpu.ndimage.binary_erosion: iterations must be an integer, got string", nd.binary_erosion, x, {iterations = "2"})
    err("gpu.ndimage.binary_erosion: mask must have input's shape {3, 4}, got {4, 3}", nd.binary_erosion, x, {mask = gpu.ones({4, 3})})
    err("gpu.ndimage.binary_erosion: origin[2] must lie in -(size // 2) .. (size - 1) // 2 = -1 .. 1 for a filter of size 3, got 2",
        nd.binary_erosion, x, {origin = {0, 2}})
    err("gpu.ndimage.binary_erosion: unknown option 'axes'", nd.binary_erosion, x, {axes = 1})
    err("gpu.ndimage.binary_hit_or_miss: origin2 must be one value or a table of 2 (one a dim), got a table of 3",
        nd.binary_hit_or_miss, x, {origin2 = {0, 0, 0}})
    err("gpu.ndimage.binary_opening: structure must not be empty", nd.binary_opening, x, gpu.zeros({0, 3}))
    err("gpu.ndimage.binary_propagation: unknown option 'iterations'", nd.binary_propagation, x, {iterations = 2})
    err("gpu.ndimage.generate_binary_structure: rank must be a non-negative integer, got -1", nd.generate_binary_structure, -1, 1)
    err("gpu.ndimage.iterate_structure: iterations must be an integer, got nil", nd.iterate_structure, {1, 1})
    err("gpu.ndimage.iterate_structure: structure must not be empty", nd.iterate_structure, gpu.zeros({0, 3}), 3)
    err("gpu.ndimage.grey_erosion: give a size, a footprint or a structure", nd.grey_erosion, x)
    err("gpu.ndimage.grey_dilation: footprint must have input's number of dims (2), got 1", nd.grey_dilation, x, {footprint = {1, 1}})
    err("gpu.ndimage.grey_erosion: footprint must have structure's shape {3, 3}, got {2, 2}", nd.grey_erosion, x,
        {structure = st, footprint = {{1, 1}, {1, 1}}})
    err("gpu.ndimage.grey_opening: size must be a positive integer, got 0", nd.grey_opening, x, 0)
    err("gpu.ndimage.grey_dilation: origin[2] must lie in -(size // 2) .. (size - 1) // 2 = -1 .. 0 for a filter of size 2, got 1",
        nd.grey_dilation, x, {2, 2}, {origin = {0, 1}})
    err("gpu.ndimage.minimum_position: input is empty: it has no least or greatest value", nd.minimum_position, gpu.zeros({0, 2}))
    err("gpu.ndimage.white_tophat: mode must be 'reflect'", nd.white_tophat, x, 3, {mode = "edge"})
    err("gpu.ndimage.label: structure must be 3 along every dim, got {2, 2}", nd.label, x, {{1, 1}, {1, 1}})
    err("gpu.ndimage.label: structure must be symmetric (through its centre)", nd.label, x, {{0, 0, 1}, {1, 1, 1}, {0, 0, 0}})
    err("gpu.ndimage.mean: labels must be of an integer or bool dtype, got float64", nd.mean, x, x)
    err("gpu.ndimage.sum: labels of shape {2} do not broadcast to input's shape {3, 4}", nd.sum, x, gpu.zeros(2, "int32"))
    err("gpu.ndimage.minimum: index must be a number, a table of numbers or a device array, got string", nd.minimum, x, gpu.zeros({3, 4}, "int32"), "1")
    err("gpu.ndimage.histogram: max must be greater than min, got min 1 and max 1", nd.histogram, x, 1, 1, 3)
    err("gpu.ndimage.find_objects: input must be of an integer or bool dtype (labels), got float64", nd.find_objects, x)
    err("gpu.ndimage.labeled_comprehension: func must be a function, got nil", nd.labeled_comprehension, x, nil, nil)
    -- func giving nil was taken for an empty region ([42, 42]); an array of two elements
    -- said 'item: an array of 2 elements needs one index per dimension (1)'
    local lab = gpu.array({1, 1, 2, 2}, "int32")
    err("gpu.ndimage.labeled_comprehension: func must give a number, got nil (of a region of 2 values)",
        nd.labeled_comprehension, gpu.arange(4, "float64"), lab, {1, 2}, function() end, "float64", 42)
    err("gpu.ndimage.labeled_comprehension: func must give a number, got nil (of a region of 2 values)",
        nd.labeled_comprehension, gpu.arange(4, "float64"), lab, 2, function() end, "float64", 42)
    err("gpu.ndimage.labeled_comprehension: func must give a number, got an array of 2 elements (of a region of 2 values)",
        nd.labeled_comprehension, gpu.arange(4, "float64"), lab, {1, 2}, function(v) return v end, "float64", 42)
    -- pass_positions a boolean (0 and "false" passed the positions)
    err("gpu.ndimage.labeled_comprehension: pass_positions must be a boolean, got number",
        nd.labeled_comprehension, gpu.arange(4, "float64"), lab, {1, 2}, function(v) return v:sum() end, "float64", 42, 0)
    err("gpu.ndimage.labeled_comprehension: pass_positions must be a boolean, got string",
        nd.labeled_comprehension, gpu.arange(4, "float64"), lab, 1, function(v) return v:sum() end, "float64", 42, "false")
    -- an argument beyond the parameters is refused, as gpu.cross's (it was dropped)
    err("gpu.ndimage.sum takes 3 arguments, got a table as argument 4 (it takes no options)", nd.sum, x, nil, nil, {output = "float32"})
    err("gpu.ndimage.generate_binary_structure takes 2 arguments, got a table as argument 3 (it takes no options)",
        nd.generate_binary_structure, 2, 1, {})
    err("gpu.ndimage.find_objects takes 2 arguments, got a number as argument 3 (not one it takes)", nd.find_objects, gpu.ones({3}, "int32"), 1, 5)
    err("gpu.ndimage.label takes 3 arguments, got a number as argument 4 (not one it takes)", nd.label, x, nil, {}, 5)
    err("gpu.ndimage.binary_erosion takes 3 arguments, got a table as argument 4 (options go in argument 3)", nd.binary_erosion, x, nil, {}, {})
    err("gpu.ndimage.distance_transform_edt takes 2 arguments, got a number as argument 3 (not one it takes)", nd.distance_transform_edt, x, {}, 1)
    local f = gpu.zeros({3, 3})
    f:free()
    err("attempt to use a freed array", nd.binary_erosion, f)
    err("attempt to use a freed array", nd.label, f)
    err("attempt to use a freed array", nd.sum_labels, x, f)
  end)
end)

describe("gpu.ndimage, where a scipy differential pass found otherwise", function()
  it("takes structures as nested tables of booleans, as scipy takes [[True, ...]]", function()
    local T = {{true, true, true}, {true, true, true}, {true, true, true}}
    local x = gpu.ones({3, 3}, "bool")
    assert.are.same({{false, false, false}, {false, true, false}, {false, false, false}},
                    nd.binary_erosion(x, T):totable())
    local labels, n = nd.label(x, T)
    assert.are.equal(1, n)
    assert.are.same({{4, 5, 5}, {7, 8, 8}, {7, 8, 8}},
                    nd.grey_dilation(gpu.arange(9, "float64"):reshape(3, 3), {footprint = {{true, false}, {true, true}}}):totable())
  end)

  it("gives NaN for the least and greatest of a region holding a NaN, as scipy", function()
    local x = gpu.array({3, NAN, 1}, "float64")
    local l = gpu.array({1, 1, 2}, "int32")
    for _, v in ipairs({nd.minimum(x), nd.maximum(x), nd.minimum(x, l, 1), nd.maximum(x, gpu.ones(3, "int32"))}) do
      assert.is_true(v ~= v)
    end
    local both = nd.minimum(x, l, {1, 2}):totable()   -- (the minimum passed over the NaN: 1)
    assert.is_true(both[1] ~= both[1])
    assert.are.equal(1, both[2])
  end)

  it("takes a scalar index that is no integer as a label not found (it gave nil, or raised on a nil 'p')", function()
    local x = gpu.array({1, 2, 3, 4, 5}, "float64")
    local lab = gpu.array({1, 2, 2, 3, 0}, "int32")
    -- ndi.sum(x, lab, 2.5) 0.0, ndi.mean nan, ndi.variance nan, ndi.median nan (its minimum,
    -- positions and extrema raise ValueError: gpuhost's label not found, 0 and (0,))
    same(0.0, nd.sum(x, lab, 2.5))
    for _, f in ipairs({"mean", "variance", "median"}) do same(NAN, nd[f](x, lab, 2.5), 0, f) end
    same(0.0, nd.minimum(x, lab, 2.5))
    same(-7, nd.labeled_comprehension(x, lab, 2.5, function() return 1 end, "float64", -7))
    same({1}, nd.minimum_position(x, lab, 2.5))
    same({1}, select(4, nd.extrema(x, lab, 2.5)))
    same({0, 0}, nd.histogram(x, 0, 5, 2, lab, 2.5))
    -- ndi.mean(x, lab, 7) and ndi.mean of an empty array: nan (Lua's 0 / 0 prints -nan)
    assert.are.equal("nan", tostring(nd.mean(x, lab, 7)))
    assert.are.equal("nan", tostring(nd.mean(gpu.zeros({0}, "float64"))))
  end)

  it("take the first greatest value without an index or with a number, as scipy's single group", function()
    -- ndi.maximum_position([5, 1, 5, 2], lab) (0,), (..., lab, 1) (0,), extrema's (0,);
    -- with an index list [1] scipy's argsort path gives (2,)
    local x = gpu.array({5, 1, 5, 2}, "float64")
    local lab = gpu.array({1, 1, 1, 1}, "int32")
    same({1}, nd.maximum_position(x, lab))
    same({1}, nd.maximum_position(x, lab, 1))
    same({1}, select(4, nd.extrema(x, lab, 1)))
    same({{3}}, nd.maximum_position(x, lab, {1}))
  end)

  it("keeps the reversed structure's first tap uncast in a grey dilation, as scipy's C", function()
    -- ndi.grey_dilation(np.zeros(4, np.uint8), structure=[0, -1]) [0 0 0 0], [-1, 0] [255 ...]
    -- (scipy reverses the structure: its first tap is the last element)
    local x = gpu.zeros({4}, "uint8")
    same({0, 0, 0, 0}, nd.grey_dilation(x, {structure = {0, -1}}))
    same({255, 255, 255, 255}, nd.grey_dilation(x, {structure = {-1, 0}}))
    -- x = [[3, 7, 1], [200, 5, 9]] uint8, s = [[-4, 2], [250, -9]], footprint [[1, 0], [1, 1]]
    local y = gpu.array({{3, 7, 1}, {200, 5, 9}}, "uint8")
    same({{1, 251, 251}, {255, 5, 5}}, nd.grey_dilation(y, {structure = {{-4, 2}, {250, -9}}, footprint = {{1, 0}, {1, 1}}}))
  end)

  it("refuses a filter longer than 2^20 at once (its taps filled the host's memory)", function()
    local x = gpu.zeros({3, 3})
    assert.matches("a filter of 1000000000000 taps along a dimension is more than gpuhost makes",
                   S.errof(nd.uniform_filter, x, 1e12), 1, true)
    assert.matches("makes a radius of 40000000000, more than gpuhost takes",
                   S.errof(nd.gaussian_filter, x, 1e10), 1, true)
    assert.matches("a window of 1000000000000 elements is more than gpuhost makes",
                   S.errof(nd.median_filter, x, 1e6), 1, true)
  end)
end)

-- gpu.ndimage's distance transforms against scipy 1.11's numbers (computed with numpy 1.24
-- and written below: REF["edt"] is ndi.distance_transform_edt(m), REF["edt_i"] its indices
-- plus 1 (gpuhost's are 1-based), ... the calls are next to each test), and on random masks
-- against a brute-force search written here; then the errors.
local S = require("spec.support")
local nd = gpu.ndimage

local REF = {
  ["m"] = {{0, 1, 1, 1, 0, 1}, {1, 0, 1, 0, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 0, 1, 1, 1}, {1, 1, 1, 1, 0, 1}},
  ["m3"] = {{{1, 0, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 0, 1, 1}}, {{1, 0, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}}, {{1, 1, 1, 1, 0}, {1, 0, 1, 1, 1}, {0, 1, 1, 1, 1}, {1, 1, 1, 1, 0}}},
  ["edt"] = {{0.0, 1.0, 1.4142135623730951, 1.0, 0.0, 1.0}, {1.0, 0.0, 1.0, 0.0, 1.0, 1.4142135623730951}, {1.4142135623730951, 1.0, 1.0, 1.0, 1.4142135623730951, 2.23606797749979}, {2.0, 1.0, 0.0, 1.0, 1.0, 1.4142135623730951}, {2.23606797749979, 1.4142135623730951, 1.0, 1.0, 0.0, 1.0}},
  ["edt_i"] = {{{1, 1, 2, 2, 1, 1}, {1, 2, 2, 2, 2, 1}, {2, 2, 4, 2, 2, 2}, {4, 4, 4, 4, 5, 5}, {4, 4, 4, 5, 5, 5}}, {{1, 1, 2, 4, 5, 5}, {1, 2, 2, 4, 4, 5}, {2, 2, 3, 4, 4, 4}, {3, 3, 3, 3, 5, 5}, {3, 3, 3, 5, 5, 5}}},
  ["edt_s"] = {{0.0, 0.5, 1.0, 0.5, 0.0, 0.5}, {0.5, 0.0, 0.5, 0.0, 0.5, 1.0}, {2.0615528128088303, 2.0, 2.0, 2.0, 2.0615528128088303, 2.23606797749979}, {1.0, 0.5, 0.0, 0.5, 1.0, 1.5}, {2.0, 1.5, 1.0, 0.5, 0.0, 0.5}},
  ["edt_s_i"] = {{{1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}, {2, 2, 4, 2, 2, 2}, {4, 4, 4, 4, 4, 4}, {5, 5, 5, 5, 5, 5}}, {{1, 1, 1, 5, 5, 5}, {2, 2, 2, 4, 4, 4}, {2, 2, 3, 4, 4, 4}, {3, 3, 3, 3, 3, 3}, {5, 5, 5, 5, 5, 5}}},
  ["edt_s1"] = {{0.0, 1.5, 2.1213203435596424, 1.5, 0.0, 1.5}, {1.5, 0.0, 1.5, 0.0, 1.5, 2.1213203435596424}, {2.1213203435596424, 1.5, 1.5, 1.5, 2.1213203435596424, 3.3541019662496847}, {3.0, 1.5, 0.0, 1.5, 1.5, 2.1213203435596424}, {3.3541019662496847, 2.1213203435596424, 1.5, 1.5, 0.0, 1.5}},
  ["edt3"] = {{{1.0, 0.0, 1.0, 2.0, 2.0}, {1.4142135623730951, 1.0, 1.4142135623730951, 2.23606797749979, 2.23606797749979}, {2.0, 1.4142135623730951, 1.0, 1.4142135623730951, 2.23606797749979}, {2.0, 1.0, 0.0, 1.0, 2.0}}, {{1.0, 0.0, 1.0, 1.4142135623730951, 1.0}, {1.4142135623730951, 1.0, 1.4142135623730951, 1.7320508075688772, 1.4142135623730951}, {1.0, 1.4142135623730951, 1.4142135623730951, 1.7320508075688772, 1.4142135623730951}, {1.4142135623730951, 1.4142135623730951, 1.0, 1.4142135623730951, 1.0}}, {{1.4142135623730951, 1.0, 1.4142135623730951, 1.0, 0.0}, {1.0, 0.0, 1.0, 1.4142135623730951, 1.0}, {0.0, 1.0, 1.4142135623730951, 1.4142135623730951, 1.0}, {1.0, 1.4142135623730951, 2.0, 1.0, 0.0}}},
  ["edt3_i"] = {{{{1, 1, 1, 1, 3}, {1, 1, 1, 1, 3}, {3, 1, 1, 1, 1}, {1, 1, 1, 1, 1}}, {{2, 2, 2, 3, 3}, {3, 2, 2, 3, 3}, {3, 3, 1, 1, 3}, {3, 1, 1, 1, 3}}, {{2, 2, 2, 3, 3}, {3, 3, 3, 3, 3}, {3, 3, 3, 3, 3}, {3, 3, 1, 3, 3}}}, {{{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {3, 4, 4, 4, 4}, {4, 4, 4, 4, 4}}, {{1, 1, 1, 1, 1}, {3, 1, 1, 1, 1}, {3, 3, 4, 4, 4}, {3, 4, 4, 4, 4}}, {{1, 1, 1, 1, 1}, {3, 2, 2, 1, 1}, {3, 3, 2, 4, 4}, {3, 3, 4, 4, 4}}}, {{{2, 2, 2, 2, 5}, {2, 2, 2, 2, 5}, {1, 3, 3, 3, 3}, {3, 3, 3, 3, 3}}, {{2, 2, 2, 5, 5}, {1, 2, 2, 5, 5}, {1, 1, 3, 3, 5}, {1, 3, 3, 3, 5}}, {{2, 2, 2, 5, 5}, {1, 2, 2, 5, 5}, {1, 1, 2, 5, 5}, {1, 1, 3, 5, 5}}}},
  ["edt3_s"] = {{{0.7, 0.0, 0.7, 1.4, 2.0}, {2.118962010041709, 2.0, 2.118962010041709, 2.4413111231467406, 2.8284271247461903}, {2.0, 2.118962010041709, 2.0, 2.118962010041709, 2.4413111231467406}, {1.4, 0.7, 0.0, 0.7, 1.4}}, {{0.7, 0.0, 0.7, 1.2206555615733703, 1.0}, {1.2206555615733703, 1.0, 1.2206555615733703, 1.7204650534085253, 2.23606797749979}, {1.0, 1.2206555615733703, 1.7204650534085253, 2.325940669922601, 2.23606797749979}, {1.7204650534085253, 1.2206555615733703, 1.0, 1.2206555615733703, 1.0}}, {{1.2206555615733703, 1.0, 1.2206555615733703, 0.7, 0.0}, {0.7, 0.0, 0.7, 1.4, 2.0}, {0.0, 0.7, 1.4, 2.0999999999999996, 2.0}, {2.0, 2.0999999999999996, 1.4, 0.7, 0.0}}},
  ["edt1"] = {2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0},
  ["edt_ones"] = {{2.0, 3.605551275463989, 6.324555320336759}, {4.0, 5.0, 7.211102550927978}},
  ["edt_ones_i"] = {{{0, 0, 0}, {0, 0, 0}}, {{1, 1, 1}, {1, 1, 1}}},
  ["cdt_cb"] = {{0, 1, 1, 1, 0, 1}, {1, 0, 1, 0, 1, 1}, {1, 1, 1, 1, 1, 2}, {2, 1, 0, 1, 1, 1}, {2, 1, 1, 1, 0, 1}},
  ["cdt_tc"] = {{0, 1, 2, 1, 0, 1}, {1, 0, 1, 0, 1, 2}, {2, 1, 1, 1, 2, 3}, {2, 1, 0, 1, 1, 2}, {3, 2, 1, 1, 0, 1}},
  ["cdt3_tc"] = {{{1, 0, 1, 2, 2}, {2, 1, 2, 3, 3}, {2, 2, 1, 2, 3}, {2, 1, 0, 1, 2}}, {{1, 0, 1, 2, 1}, {2, 1, 2, 3, 2}, {1, 2, 2, 3, 2}, {2, 2, 1, 2, 1}}, {{2, 1, 2, 1, 0}, {1, 0, 1, 2, 1}, {0, 1, 2, 2, 1}, {1, 2, 2, 1, 0}}},
  ["cdt_st"] = {{0, 1, 1, 1, 0, 2}, {1, 0, 2, 0, 1, 1}, {2, 1, 1, 1, 1, 2}, {3, 2, 0, 1, 1, 2}, {4, 3, 1, 1, 0, 3}},
  ["cdt_st_i"] = {{{1, 2, 2, 2, 1, 1}, {1, 2, 2, 2, 1, 1}, {1, 2, 2, 2, 2, 1}, {1, 2, 4, 5, 5, 2}, {1, 2, 4, 4, 5, 2}}, {{1, 2, 4, 4, 5, 5}, {1, 2, 4, 4, 5, 5}, {1, 2, 2, 4, 4, 5}, {1, 2, 3, 5, 5, 4}, {1, 2, 3, 3, 5, 4}}},
  ["cdt_st2"] = {{0, 1, 1, 1, 0, 1}, {1, 0, 1, 0, 1, 2}, {1, 2, 1, 1, 2, 3}, {2, 1, 0, 1, 2, 1}, {2, 1, 2, 1, 0, 1}},
  ["cdt_st2_i"] = {{{1, 1, 2, 1, 1, 1}, {2, 2, 2, 2, 2, 2}, {2, 2, 2, 4, 4, 4}, {4, 4, 4, 4, 4, 5}, {4, 4, 4, 5, 5, 5}}, {{1, 1, 2, 5, 5, 5}, {2, 2, 2, 4, 4, 4}, {2, 2, 4, 3, 3, 3}, {3, 3, 3, 3, 3, 5}, {3, 3, 3, 5, 5, 5}}},
  ["cdt_ones"] = {{-1, -1, -1}, {-1, -1, -1}},
  ["cdt_ones_i"] = {{{1, 1, 1}, {2, 2, 2}}, {{1, 2, 3}, {1, 2, 3}}},
  ["bf_s"] = {{0.0, 1.0, 1.8027756377319946, 1.0, 0.0, 1.5}, {1.0, 0.0, 1.5, 0.0, 1.0, 1.8027756377319946}, {1.8027756377319946, 1.0, 1.0, 1.0, 1.8027756377319946, 2.5}, {2.5, 1.5, 0.0, 1.5, 1.0, 1.8027756377319946}, {3.1622776601683795, 1.8027756377319946, 1.0, 1.5, 0.0, 1.5}},
  ["bf_s_i"] = {{{1, 2, 2, 2, 1, 1}, {1, 2, 2, 2, 1, 1}, {2, 2, 4, 2, 2, 5}, {2, 4, 4, 4, 5, 5}, {4, 4, 4, 5, 5, 5}}, {{1, 2, 4, 4, 5, 5}, {1, 2, 4, 4, 5, 5}, {2, 2, 3, 4, 4, 5}, {2, 3, 3, 3, 5, 5}, {3, 3, 3, 5, 5, 5}}},
  ["bf_tc"] = {{0, 1, 2, 1, 0, 1}, {1, 0, 1, 0, 1, 2}, {2, 1, 1, 1, 2, 3}, {2, 1, 0, 1, 1, 2}, {3, 2, 1, 1, 0, 1}},
  ["bf_tc_i"] = {{{1, 2, 2, 2, 1, 1}, {2, 2, 2, 2, 2, 2}, {2, 2, 4, 2, 5, 5}, {4, 4, 4, 4, 5, 5}, {4, 4, 4, 5, 5, 5}}, {{1, 2, 4, 4, 5, 5}, {2, 2, 4, 4, 4, 4}, {2, 2, 3, 4, 5, 5}, {3, 3, 3, 3, 5, 5}, {3, 3, 3, 5, 5, 5}}},
  ["bf_cb"] = {{{1, 0, 1, 2, 2}, {1, 1, 1, 2, 2}, {2, 1, 1, 1, 2}, {2, 1, 0, 1, 2}}, {{1, 0, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}}, {{1, 1, 1, 1, 0}, {1, 0, 1, 1, 1}, {0, 1, 1, 1, 1}, {1, 1, 2, 1, 0}}},
  ["bf3"] = {{{1.0, 0.0, 1.0, 2.0, 2.0}, {1.4142135623730951, 1.0, 1.4142135623730951, 2.23606797749979, 2.23606797749979}, {2.0, 1.4142135623730951, 1.0, 1.4142135623730951, 2.23606797749979}, {2.0, 1.0, 0.0, 1.0, 2.0}}, {{1.0, 0.0, 1.0, 1.4142135623730951, 1.0}, {1.4142135623730951, 1.0, 1.4142135623730951, 1.7320508075688772, 1.4142135623730951}, {1.0, 1.4142135623730951, 1.4142135623730951, 1.7320508075688772, 1.4142135623730951}, {1.4142135623730951, 1.4142135623730951, 1.0, 1.4142135623730951, 1.0}}, {{1.4142135623730951, 1.0, 1.4142135623730951, 1.0, 0.0}, {1.0, 0.0, 1.0, 1.4142135623730951, 1.0}, {0.0, 1.0, 1.4142135623730951, 1.4142135623730951, 1.0}, {1.0, 1.4142135623730951, 2.0, 1.0, 0.0}}},
  ["bf3_i"] = {{{{1, 1, 1, 1, 3}, {1, 1, 1, 1, 3}, {3, 1, 1, 1, 3}, {1, 1, 1, 1, 3}}, {{2, 2, 2, 3, 3}, {3, 3, 3, 3, 3}, {3, 3, 1, 3, 3}, {3, 1, 1, 3, 3}}, {{3, 3, 3, 3, 3}, {3, 3, 3, 3, 3}, {3, 3, 3, 3, 3}, {3, 3, 3, 3, 3}}}, {{{1, 1, 1, 1, 1}, {1, 1, 1, 4, 1}, {3, 4, 4, 4, 4}, {4, 4, 4, 4, 4}}, {{1, 1, 1, 1, 1}, {3, 2, 2, 1, 1}, {3, 3, 4, 4, 4}, {3, 4, 4, 4, 4}}, {{2, 2, 2, 1, 1}, {3, 2, 2, 1, 1}, {3, 3, 2, 4, 4}, {3, 3, 4, 4, 4}}}, {{{2, 2, 2, 2, 5}, {2, 2, 2, 3, 5}, {1, 3, 3, 3, 5}, {3, 3, 3, 3, 5}}, {{2, 2, 2, 5, 5}, {1, 2, 2, 5, 5}, {1, 1, 3, 5, 5}, {1, 3, 3, 5, 5}}, {{2, 2, 2, 5, 5}, {1, 2, 2, 5, 5}, {1, 1, 2, 5, 5}, {1, 1, 5, 5, 5}}}},
  ["bf_ones"] = {{1.3407807929942596e+154, 1.3407807929942596e+154, 1.3407807929942596e+154}, {1.3407807929942596e+154, 1.3407807929942596e+154, 1.3407807929942596e+154}},
  ["bf_ones_i"] = {{{1, 1, 1}, {1, 1, 1}}, {{1, 1, 1}, {1, 1, 1}}},
  ["bf_ones_cb"] = {{4294967295, 4294967295, 4294967295}, {4294967295, 4294967295, 4294967295}},
  ["bf_ones_cb_i"] = {{{1, 1, 1}, {1, 1, 1}}, {{1, 1, 1}, {1, 1, 1}}},
  -- re, rf: 3 x 70 (0-based i, j), re[i][j] = 0 where j % 10 == 0 and i != 1, rf also where
  -- i == 0 and j % 8 == 0 or i == 2 and j % 12 == 5, else 1; in numpy:
  -- ndi.distance_transform_edt(rf, sampling=[1, 1.3], return_indices=True) (edt_r),
  -- sampling=[1.3, 0.7] (edt_r2); ndi.distance_transform_bf(re.T.copy(), sampling=[1.3, 1],
  -- return_indices=True) (bf_r)
  ["edt_r_i"] = {{{1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3}, {1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3}, {3, 3, 3, 3, 3, 3, 3, 1, 1, 3, 3, 3, 3, 3, 1, 1, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 3, 3, 3, 3, 3, 1, 3, 3, 3, 3, 3, 3}}, {{1, 1, 1, 6, 6, 6, 6, 9, 9, 9, 11, 11, 11, 11, 17, 17, 17, 17, 18, 21, 21, 21, 21, 25, 25, 25, 25, 30, 30, 31, 31, 31, 33, 33, 33, 33, 33, 41, 41, 41, 41, 41, 42, 42, 42, 49, 49, 49, 49, 49, 51, 51, 54, 54, 54, 57, 57, 57, 57, 61, 61, 61, 61, 65, 65, 65, 66, 66, 66, 66}, {1, 1, 1, 6, 6, 6, 6, 9, 9, 9, 11, 11, 11, 11, 17, 17, 17, 18, 18, 21, 21, 21, 21, 25, 25, 25, 25, 30, 30, 30, 31, 31, 33, 33, 33, 33, 33, 41, 41, 41, 41, 42, 42, 42, 42, 49, 49, 49, 49, 49, 51, 51, 54, 54, 54, 57, 57, 57, 57, 61, 61, 61, 61, 65, 65, 66, 66, 66, 66, 66}, {1, 1, 1, 6, 6, 6, 6, 9, 9, 11, 11, 11, 11, 11, 17, 17, 18, 18, 18, 21, 21, 21, 21, 25, 25, 25, 25, 30, 30, 30, 31, 31, 33, 33, 33, 33, 41, 41, 41, 41, 41, 42, 42, 42, 42, 49, 49, 49, 49, 51, 51, 51, 54, 54, 54, 57, 57, 57, 61, 61, 61, 61, 61, 65, 66, 66, 66, 66, 66, 66}}},
  ["edt_r"] = {{0.0, 1.3, 2.6, 3.2802438933713454, 2.3853720883753127, 2.0, 2.3853720883753127, 1.3, 0.0, 1.3, 0.0, 1.3, 2.6, 3.9000000000000004, 2.6, 1.3, 0.0, 1.3, 2.3853720883753127, 1.3, 0.0, 1.3, 2.6, 1.3, 0.0, 1.3, 2.6, 3.2802438933713454, 2.3853720883753127, 1.3, 0.0, 1.3, 0.0, 1.3, 2.6, 3.9000000000000004, 5.2, 3.9000000000000004, 2.6, 1.3, 0.0, 1.3, 2.3853720883753127, 3.2802438933713454, 4.382921400162226, 3.9000000000000004, 2.6, 1.3, 0.0, 1.3, 0.0, 1.3, 2.3853720883753127, 2.0, 2.3853720883753127, 1.3, 0.0, 1.3, 2.6, 1.3, 0.0, 1.3, 2.6, 1.3, 0.0, 1.3, 2.3853720883753127, 3.2802438933713454, 4.382921400162226, 5.571355310873648}, {1.0, 1.6401219466856727, 2.785677655436824, 2.785677655436824, 1.6401219466856727, 1.0, 1.6401219466856727, 1.6401219466856727, 1.0, 1.6401219466856727, 1.0, 1.6401219466856727, 2.785677655436824, 4.026164427839479, 2.785677655436824, 1.6401219466856727, 1.0, 1.0, 1.6401219466856727, 1.6401219466856727, 1.0, 1.6401219466856727, 2.785677655436824, 1.6401219466856727, 1.0, 1.6401219466856727, 2.785677655436824, 2.785677655436824, 1.6401219466856727, 1.0, 1.0, 1.6401219466856727, 1.0, 1.6401219466856727, 2.785677655436824, 4.026164427839479, 5.295280917949491, 4.026164427839479, 2.785677655436824, 1.6401219466856727, 1.0, 1.0, 1.6401219466856727, 2.785677655436824, 4.026164427839479, 4.026164427839479, 2.785677655436824, 1.6401219466856727, 1.0, 1.6401219466856727, 1.0, 1.6401219466856727, 1.6401219466856727, 1.0, 1.6401219466856727, 1.6401219466856727, 1.0, 1.6401219466856727, 2.785677655436824, 1.6401219466856727, 1.0, 1.6401219466856727, 2.785677655436824, 1.6401219466856727, 1.0, 1.0, 1.6401219466856727, 2.785677655436824, 4.026164427839479, 5.295280917949491}, {0.0, 1.3, 2.6, 2.6, 1.3, 0.0, 1.3, 2.3853720883753127, 2.0, 1.3, 0.0, 1.3, 2.6, 3.9000000000000004, 3.2802438933713454, 2.3853720883753127, 1.3, 0.0, 1.3, 1.3, 0.0, 1.3, 2.6, 2.3853720883753127, 2.0, 2.3853720883753127, 3.2802438933713454, 2.6, 1.3, 0.0, 0.0, 1.3, 2.0, 2.3853720883753127, 3.2802438933713454, 4.382921400162226, 5.2, 3.9000000000000004, 2.6, 1.3, 0.0, 0.0, 1.3, 2.6, 3.9000000000000004, 4.382921400162226, 3.2802438933713454, 2.3853720883753127, 2.0, 1.3, 0.0, 1.3, 1.3, 0.0, 1.3, 2.3853720883753127, 2.0, 2.3853720883753127, 2.6, 1.3, 0.0, 1.3, 2.6, 2.3853720883753127, 1.3, 0.0, 1.3, 2.6, 3.9000000000000004, 5.2}},
  ["edt_r2_i"] = {{{1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3}, {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}}, {{1, 1, 1, 1, 6, 9, 9, 9, 9, 9, 11, 11, 11, 11, 17, 17, 17, 17, 17, 21, 21, 21, 21, 25, 25, 25, 25, 25, 31, 31, 31, 31, 33, 33, 33, 33, 33, 41, 41, 41, 41, 41, 41, 41, 41, 49, 49, 49, 49, 49, 51, 51, 51, 51, 57, 57, 57, 57, 57, 61, 61, 61, 61, 65, 65, 65, 65, 65, 65, 65}, {1, 1, 1, 6, 6, 6, 6, 9, 9, 9, 11, 11, 11, 11, 17, 17, 17, 18, 18, 21, 21, 21, 21, 25, 25, 25, 25, 30, 30, 30, 31, 31, 33, 33, 33, 33, 33, 41, 41, 41, 41, 42, 42, 42, 42, 49, 49, 49, 49, 49, 51, 51, 54, 54, 54, 57, 57, 57, 57, 61, 61, 61, 61, 65, 65, 66, 66, 66, 66, 66}, {1, 1, 1, 6, 6, 6, 6, 6, 11, 11, 11, 11, 11, 11, 18, 18, 18, 18, 18, 21, 21, 21, 21, 21, 25, 25, 30, 30, 30, 30, 31, 31, 31, 31, 31, 33, 41, 41, 41, 41, 41, 42, 42, 42, 42, 42, 51, 51, 51, 51, 51, 51, 54, 54, 54, 54, 54, 61, 61, 61, 61, 61, 61, 66, 66, 66, 66, 66, 66, 66}}},
  ["edt_r2"] = {{0.0, 0.7, 1.4, 2.0999999999999996, 2.6925824035672523, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 1.4, 0.7, 0.0, 0.7, 1.4, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.8, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.8, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 1.4, 0.7, 0.0, 0.7, 1.4, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.8, 3.5}, {1.3, 1.47648230602334, 1.91049731745428, 1.91049731745428, 1.47648230602334, 1.3, 1.47648230602334, 1.47648230602334, 1.3, 1.47648230602334, 1.3, 1.47648230602334, 1.91049731745428, 2.4698178070456938, 1.91049731745428, 1.47648230602334, 1.3, 1.3, 1.47648230602334, 1.47648230602334, 1.3, 1.47648230602334, 1.91049731745428, 1.47648230602334, 1.3, 1.47648230602334, 1.91049731745428, 1.91049731745428, 1.47648230602334, 1.3, 1.3, 1.47648230602334, 1.3, 1.47648230602334, 1.91049731745428, 2.4698178070456938, 3.087069808086626, 2.4698178070456938, 1.91049731745428, 1.47648230602334, 1.3, 1.3, 1.47648230602334, 1.91049731745428, 2.4698178070456938, 2.4698178070456938, 1.91049731745428, 1.47648230602334, 1.3, 1.47648230602334, 1.3, 1.47648230602334, 1.47648230602334, 1.3, 1.47648230602334, 1.47648230602334, 1.3, 1.47648230602334, 1.91049731745428, 1.47648230602334, 1.3, 1.47648230602334, 1.91049731745428, 1.47648230602334, 1.3, 1.3, 1.47648230602334, 1.91049731745428, 2.4698178070456938, 3.087069808086626}, {0.0, 0.7, 1.4, 1.4, 0.7, 0.0, 0.7, 1.4, 1.4, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.6, 2.6925824035672523, 2.0999999999999996, 1.4, 0.7, 0.0, 0.0, 0.7, 1.4, 2.0999999999999996, 2.8, 3.3421549934136805, 2.8, 2.0999999999999996, 1.4, 0.7, 0.0, 0.0, 0.7, 1.4, 2.0999999999999996, 2.8, 2.8, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.0999999999999996, 1.4, 0.7, 0.0, 0.7, 1.4, 1.4, 0.7, 0.0, 0.7, 1.4, 2.0999999999999996, 2.8}},
  ["bf_r_i"] = {{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {11, 11, 11}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {21, 21, 21}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {31, 31, 31}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {41, 41, 41}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {51, 51, 51}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}, {61, 61, 61}}, {{1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}, {1, 3, 3}}},
  ["bf_r"] = {{0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {5.2, 5.295280917949491, 5.2}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {2.6, 2.785677655436824, 2.6}, {1.3, 1.6401219466856727, 1.3}, {0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {5.2, 5.295280917949491, 5.2}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {2.6, 2.785677655436824, 2.6}, {1.3, 1.6401219466856727, 1.3}, {0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {5.2, 5.295280917949491, 5.2}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {2.6, 2.785677655436824, 2.6}, {1.3, 1.6401219466856727, 1.3}, {0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {5.2, 5.295280917949491, 5.2}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {2.6, 2.785677655436824, 2.6}, {1.3, 1.6401219466856727, 1.3}, {0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {5.2, 5.295280917949491, 5.2}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {2.6, 2.785677655436824, 2.6}, {1.3, 1.6401219466856727, 1.3}, {0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {5.2, 5.295280917949491, 5.2}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {2.6, 2.785677655436824, 2.6}, {1.3, 1.6401219466856727, 1.3}, {0.0, 1.0, 0.0}, {1.3, 1.6401219466856727, 1.3}, {2.6, 2.785677655436824, 2.6}, {3.9000000000000004, 4.026164427839479, 3.9000000000000004}, {5.2, 5.295280917949491, 5.2}, {6.5, 6.576473218982953, 6.5}, {7.800000000000001, 7.863841300535, 7.800000000000001}, {9.1, 9.154780172128657, 9.1}, {10.4, 10.447966309287182, 10.4}, {11.700000000000001, 11.742657280190034, 11.700000000000001}},
}

-- got (a device array or a table) against want (nested tables of numbers), exactly
local function same(want, got, at)
  at = at or "result"
  if gpu._is_array(got) then got = got:totable() end
  if type(want) == "table" then
    assert(type(got) == "table", ("%s: expected a table, got %s"):format(at, tostring(got)))
    assert(#got == #want, ("%s: expected %d elements, got %d"):format(at, #want, #got))
    for i = 1, #want do same(want[i], got[i], at .. "[" .. i .. "]") end
  else
    assert(want == got, ("%s: expected %s, got %s"):format(at, tostring(want), tostring(got)))
  end
end

-- distances d and indices i against REF[name] and REF[name .. "_i"]
local function pair(name, d, i)
  same(REF[name], d, name)
  same(REF[name .. "_i"], i, name .. "_i")
end

local m = gpu.array(REF.m, "int32")
local m3 = gpu.array(REF.m3, "int32")

describe("gpu.ndimage.distance_transform_edt", function()
  it("gives scipy's distances and 1-based indices, with sampling, in 1 to 3 dims", function()
    -- ndi.distance_transform_edt(m, return_indices=True); (m, sampling=[2, 0.5], ...)
    local d, i = nd.distance_transform_edt(m, {return_indices = true})
    assert.are.equal("float64", d.dtype)
    assert.are.equal("int32", i.dtype)
    pair("edt", d, i)
    d, i = nd.distance_transform_edt(m, {sampling = {2, 0.5}, return_indices = true})
    pair("edt_s", d, i)
    same(REF.edt_s1, nd.distance_transform_edt(m, {sampling = 1.5}))
    d, i = nd.distance_transform_edt(m3, {return_indices = true})
    pair("edt3", d, i)
    same(REF.edt3_s, nd.distance_transform_edt(m3, {sampling = {1, 2, 0.7}}))
    same(REF.edt1, nd.distance_transform_edt(gpu.array({1, 1, 0, 1, 1, 1, 0, 1})))
    -- bool, float and a view's input read as nonzero or not
    same(REF.edt, nd.distance_transform_edt(m:astype("bool")))
    same(REF.edt, nd.distance_transform_edt(m:astype("float32") * 0.25))
    same(REF.edt, nd.distance_transform_edt(gpu.ascontiguousarray(m.T).T))
  end)

  it("gives scipy's leftovers for an input without zeros", function()
    -- ndi.distance_transform_edt(np.ones((2, 3)), sampling=[2, 3], return_indices=True)
    local d, i = nd.distance_transform_edt(gpu.ones({2, 3}), {sampling = {2, 3}, return_indices = true})
    pair("edt_ones", d, i)
  end)

  it("writes distances and indices into given arrays, returning the others", function()
    local d = gpu.zeros({5, 6}, "float64")
    local i = gpu.zeros({2, 5, 6}, "int32")
    assert.are.equal(0, select("#", nd.distance_transform_edt(m, {return_indices = true, distances = d, indices = i})))
    pair("edt", d, i)
    local i2 = gpu.zeros({2, 5, 6}, "int32")
    local r = table.pack(nd.distance_transform_edt(m, {return_indices = true, indices = i2}))
    assert.are.equal(1, r.n)
    same(REF.edt, r[1])
    same(REF.edt_i, i2)
    local only = nd.distance_transform_edt(m, {return_distances = false, return_indices = true})
    same(REF.edt_i, only)
    local dv = gpu.zeros({6, 5}, "float64").T   -- a view
    nd.distance_transform_edt(m, {distances = dv})
    same(REF.edt, dv)
    local e = nd.distance_transform_edt(gpu.zeros({0, 3}))
    assert.are.same({0, 3}, e.shape)
  end)
end)

-- distances against want (nested tables) to a relative 2^-50 (a sum of squares may round
-- otherwise where the device fuses a multiply and an add)
local function close(want, got, at)
  if gpu._is_array(got) then got = got:totable() end
  if type(want) == "table" then
    for k = 1, #want do close(want[k], got[k], at .. "[" .. k .. "]") end
  else
    assert(math.abs(got - want) <= want * 2 ^ -50, ("%s: expected %s, got %s"):format(at, want, got))
  end
end

describe("gpu.ndimage.distance_transform_edt with a sampling whose products round", function()
  it("gives scipy's indices (ties and near ties) where its later passes go by bands", function()
    -- (lines of 70 places along the later pass: three bands of 32; near ties across bands)
    local te, tf = {}, {}
    for i = 0, 2 do
      te[i + 1], tf[i + 1] = {}, {}
      for j = 0, 69 do
        local z = j % 10 == 0 and i ~= 1
        te[i + 1][j + 1] = z and 0 or 1
        tf[i + 1][j + 1] = (z or i == 0 and j % 8 == 0 or i == 2 and j % 12 == 5) and 0 or 1
      end
    end
    local re, rf = gpu.array(te, "uint8"), gpu.array(tf, "uint8")
    local d, i = nd.distance_transform_edt(rf, {sampling = {1, 1.3}, return_indices = true})
    same(REF.edt_r_i, i, "edt_r_i")
    close(REF.edt_r, d, "edt_r")
    d, i = nd.distance_transform_edt(rf, {sampling = {1.3, 0.7}, return_indices = true})
    same(REF.edt_r2_i, i, "edt_r2_i")
    close(REF.edt_r2, d, "edt_r2")
    d, i = nd.distance_transform_bf(gpu.ascontiguousarray(re.T), {sampling = {1.3, 1}, return_indices = true})
    same(REF.bf_r_i, i, "bf_r_i")
    close(REF.bf_r, d, "bf_r")
  end)
end)

describe("gpu.ndimage.distance_transform_cdt", function()
  it("gives scipy's chessboard and taxicab distances", function()
    -- ndi.distance_transform_cdt(m); (m, metric="taxicab"); (m3, metric="taxicab")
    local d = nd.distance_transform_cdt(m)
    assert.are.equal("int32", d.dtype)
    same(REF.cdt_cb, d)
    same(REF.cdt_tc, nd.distance_transform_cdt(m, {metric = "taxicab"}))
    same(REF.cdt_tc, nd.distance_transform_cdt(m, {metric = "cityblock"}))
    same(REF.cdt3_tc, nd.distance_transform_cdt(m3, {metric = "taxicab"}))
    same(REF.cdt_cb, nd.distance_transform_cdt(m, {metric = nd.generate_binary_structure(2, 2)}))
    same(REF.cdt_tc, nd.distance_transform_cdt(m, {metric = {{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}}))
  end)

  it("runs scipy's raster passes for another structure, its indices too", function()
    -- ndi.distance_transform_cdt(m, metric=np.array([[1, 1, 0], [0, 1, 0], [0, 0, 0]], bool), return_indices=True)
    -- (a bool structure: scipy 1.11 reads another dtype's bytes as bools)
    local d, i = nd.distance_transform_cdt(m, {metric = {{1, 1, 0}, {0, 1, 0}, {0, 0, 0}}, return_indices = true})
    -- a C-contiguous bool input is the passes' own input: left to its caller, not freed
    local b = m:gt(0)
    nd.distance_transform_cdt(b, {metric = {{1, 1, 0}, {0, 1, 0}, {0, 0, 0}}})
    assert.are.equal(m:gt(0):sum(), b:sum())
    pair("cdt_st", d, i)
    d, i = nd.distance_transform_cdt(m, {metric = gpu.array({{0, 0, 1}, {1, 1, 0}, {0, 0, 0}}), return_indices = true})
    pair("cdt_st2", d, i)
  end)

  it("gives -1 and each element itself where no zero is reached", function()
    -- ndi.distance_transform_cdt(np.ones((2, 3)), return_indices=True)
    local d, i = nd.distance_transform_cdt(gpu.ones({2, 3}), {return_indices = true})
    pair("cdt_ones", d, i)
    local into = gpu.zeros({2, 3}, "int32")
    nd.distance_transform_cdt(gpu.ones({2, 3}), {metric = {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}}, distances = into})
    same(REF.cdt_ones, into)
  end)
end)

describe("gpu.ndimage.distance_transform_bf", function()
  it("gives scipy's distances and indices (the last nearest zero in C order)", function()
    -- ndi.distance_transform_bf(m, return_indices=True, sampling=[1, 1.5]); (m, metric="taxicab", ...)
    local d, i = nd.distance_transform_bf(m, {sampling = {1, 1.5}, return_indices = true})
    pair("bf_s", d, i)
    d, i = nd.distance_transform_bf(m, {metric = "taxicab", return_indices = true})
    assert.are.equal("uint32", d.dtype)
    pair("bf_tc", d, i)
    same(REF.bf_cb, nd.distance_transform_bf(m3, {metric = "chessboard"}))
    same(REF.bf_cb, nd.distance_transform_bf(m3, {metric = "Chessboard"}))
    d, i = nd.distance_transform_bf(m3, {return_indices = true})
    pair("bf3", d, i)
  end)

  it("gives scipy's leftovers for an input without zeros", function()
    local d, i = nd.distance_transform_bf(gpu.ones({2, 3}), {return_indices = true})
    pair("bf_ones", d, i)
    d, i = nd.distance_transform_bf(gpu.ones({2, 3}), {metric = "chessboard", return_indices = true})
    pair("bf_ones_cb", d, i)
  end)
end)

-- A brute-force search on the host: for each element of a mask (a flat list, C order, of
-- shape), every zero's distance by metric ("euclidean", "taxicab", "chessboard"), as scipy's
-- distance_transform_bf computes it; the least, and the zeros at it (1-based coordinates)
local function coords(k, shape)
  local c = {}
  for d = #shape, 1, -1 do
    c[d] = k % shape[d] + 1
    k = k // shape[d]
  end
  return c
end

local function brute(flat, shape, metric, sampling)
  local zeros = {}
  for k, v in ipairs(flat) do if v == 0 then zeros[#zeros + 1] = coords(k - 1, shape) end end
  local out = {}
  for k = 1, #flat do
    local x = coords(k - 1, shape)
    local best, at = math.huge, {}
    for _, z in ipairs(zeros) do
      local dist = 0.0
      for d = 1, #shape do
        local t = x[d] - z[d]
        if metric == "euclidean" then
          t = t * (sampling and sampling[d] or 1)
          dist = dist + t * t
        elseif metric == "taxicab" then
          dist = dist + math.abs(t)
        else
          dist = math.max(dist, math.abs(t))
        end
      end
      if dist < best then best, at = dist, {z} elseif dist == best then at[#at + 1] = z end
    end
    out[k] = {metric == "euclidean" and math.sqrt(best) or best, at}
  end
  return out
end

-- the flat list (C order) of a device array
local function flat_of(a)
  local h = gpu.ascontiguousarray(a):reshape({-1}):tohost()
  local t = {}
  for k = 1, a.size do t[k] = h[k] end
  return t
end

-- whether zero z precedes zero w in the order that picks ties: scipy's edt takes the least
-- by the last coordinate, then the one before ...; its bf the last in C order
local function before(z, w, last_dim_first)
  local n = #z
  for k = 1, n do
    local d = last_dim_first and n + 1 - k or k
    if z[d] ~= w[d] then return z[d] < w[d] end
  end
  return false
end

describe("gpu.ndimage's distance transforms on random masks", function()
  it("equal a brute-force search, ties picked as scipy's edt and bf pick them", function()
    -- (long lines too: where a later candidate takes over is found along 300 places; lines
    -- of several bands of 32 places; "none": no sampling, whose later passes go by bands)
    gpu.random.seed(5)
    local shapes = {{9, 11}, {5, 6, 7}, {13}, {300}, {4, 90}, {3, 4, 75}}
    local samplings = {{"none", {2, 0.5}}, {"none", {0.5, 1, 2}}, {{1}, {2}}, {"none", {0.5}}, {"none", {4, 0.25}},
                       {"none", {1, 1, 1}}}
    for s, shape in ipairs(shapes) do
      for _, density in ipairs({0.1, 0.5}) do
        local a = gpu.random.uniform(0, 1, shape):gt(density):astype("uint8")
        local flat = flat_of(a)
        local n = #shape
        for _, sampling in ipairs(samplings[s]) do
          if sampling == "none" then sampling = nil end
          local want = brute(flat, shape, "euclidean", sampling)
          local d, i = nd.distance_transform_edt(a, {sampling = sampling, return_indices = true})
          local bd, bi = nd.distance_transform_bf(a, {sampling = sampling, return_indices = true})
          d, i, bd, bi = flat_of(d), flat_of(i), flat_of(bd), flat_of(bi)
          for k = 1, #flat do
            assert(d[k] == want[k][1] and bd[k] == want[k][1], ("edt %s at %d: %s, %s, want %s"):format(table.concat(shape, "x"), k, d[k], bd[k], want[k][1]))
            local first, last = want[k][2][1], want[k][2][1]
            for _, z in ipairs(want[k][2]) do
              if before(z, first, true) then first = z end
              if before(last, z, false) then last = z end
            end
            for dd = 1, n do
              assert(i[(dd - 1) * #flat + k] == first[dd], ("edt's index at %d"):format(k))
              assert(bi[(dd - 1) * #flat + k] == last[dd], ("bf's index at %d"):format(k))
            end
          end
        end
        for _, metric in ipairs({"taxicab", "chessboard"}) do
          local want = brute(flat, shape, metric)
          local d, i = nd.distance_transform_cdt(a, {metric = metric, return_indices = true})
          local bd, bi = nd.distance_transform_bf(a, {metric = metric, return_indices = true})
          d, i, bd, bi = flat_of(d), flat_of(i), flat_of(bd), flat_of(bi)
          for k = 1, #flat do
            assert(d[k] == want[k][1] and bd[k] == want[k][1], ("%s at %d: %s, %s, want %s"):format(metric, k, d[k], bd[k], want[k][1]))
            -- the indices: a zero of the input at that distance
            for _, ind in ipairs({i, bi}) do
              local z, dist = {}, 0
              for dd = 1, n do
                z[dd] = ind[(dd - 1) * #flat + k]
                local t = math.abs(z[dd] - coords(k - 1, shape)[dd])
                dist = metric == "taxicab" and dist + t or math.max(dist, t)
              end
              local at = 0
              for dd = 1, n do at = at * shape[dd] + z[dd] - 1 end
              assert(flat[at + 1] == 0 and dist == want[k][1], ("%s's index at %d"):format(metric, k))
            end
          end
        end
      end
    end
  end)

  it("equal a brute-force search to the last bits with a sampling whose products round", function()
    -- (the later passes by bands of 32 places: lines of 90 and 75; the search sums the
    -- squares in its own order, so a distance may differ in its last bits and a near tie go
    -- either way: the index must be a zero as near)
    gpu.random.seed(7)
    for _, case in ipairs({{{4, 90}, {1.3, 0.7}}, {{3, 4, 75}, {1 / 3, 1.3, 7.77}}, {{75, 3}, {-0.1, 1.3}}}) do
      local shape, sampling = case[1], case[2]
      for _, density in ipairs({0.1, 0.5, 0.95}) do
        local a = gpu.random.uniform(0, 1, shape):gt(density):astype("uint8")
        local flat = flat_of(a)
        local want = brute(flat, shape, "euclidean", sampling)
        for _, f in ipairs({nd.distance_transform_edt, nd.distance_transform_bf}) do
          local d, i = f(a, {sampling = sampling, return_indices = true})
          d, i = flat_of(d), flat_of(i)
          for k = 1, #flat do
            local w = want[k][1]
            assert(math.abs(d[k] - w) <= w * 2 ^ -48, ("%s at %d: %s, want %s"):format(table.concat(shape, "x"), k, d[k], w))
            local at, dist = 0, 0.0
            for dd = 1, #shape do
              local z = i[(dd - 1) * #flat + k]
              local t = (z - coords(k - 1, shape)[dd]) * sampling[dd]
              dist = dist + t * t
              at = at * shape[dd] + z - 1
            end
            assert(flat[at + 1] == 0 and math.abs(math.sqrt(dist) - w) <= w * 2 ^ -48, ("index at %d"):format(k))
          end
        end
      end
    end
  end)
end)

describe("gpu.ndimage's distance transform errors", function()
  local function err(pattern, f, ...) assert.matches(pattern, S.errof(f, ...), 1, true) end
  it("name the function and what was wrong", function()
    err("gpu.ndimage.distance_transform_edt: input must be a device array, got table", nd.distance_transform_edt, {{1}})
    err("gpu.ndimage.distance_transform_edt: input is complex64: complex arrays are not supported",
        nd.distance_transform_edt, gpu.zeros(3, "complex64"))
    err("gpu.ndimage.distance_transform_cdt: input is 0-D: give an array of at least one dim", nd.distance_transform_cdt, gpu.full({}, 1))
    err("gpu.ndimage.distance_transform_edt: sampling has 3 values, expected 2 (one a dim)", nd.distance_transform_edt, m, {sampling = {1, 2, 3}})
    err("gpu.ndimage.distance_transform_bf: sampling[2] must be a number, got string", nd.distance_transform_bf, m, {sampling = {1, "2"}})
    err("gpu.ndimage.distance_transform_edt: sampling must be a number or a table of numbers (one a dim), got string",
        nd.distance_transform_edt, m, {sampling = "1"})
    err("gpu.ndimage.distance_transform_edt: at least one of return_distances and return_indices must be true",
        nd.distance_transform_edt, m, {return_distances = false})
    err("gpu.ndimage.distance_transform_cdt: return_indices must be true where indices is given",
        nd.distance_transform_cdt, m, {indices = gpu.zeros({2, 5, 6}, "int32")})
    err("gpu.ndimage.distance_transform_edt: return_indices must be a boolean, got number", nd.distance_transform_edt, m, {return_indices = 1})
    err("gpu.ndimage.distance_transform_edt: distances must be float64, got float32", nd.distance_transform_edt, m, {distances = gpu.zeros({5, 6}, "float32")})
    err("gpu.ndimage.distance_transform_edt: distances must have shape {5, 6}, got {6, 5}", nd.distance_transform_edt, m, {distances = gpu.zeros({6, 5})})
    err("gpu.ndimage.distance_transform_edt: indices must have shape {2, 5, 6}, got {5, 6}",
        nd.distance_transform_edt, m, {return_indices = true, indices = gpu.zeros({5, 6}, "int32")})
    err("gpu.ndimage.distance_transform_edt: indices must be int32, got int64",
        nd.distance_transform_edt, m, {return_indices = true, indices = gpu.zeros({2, 5, 6}, "int64")})
    err("gpu.ndimage.distance_transform_edt: distances must be a device array, got table", nd.distance_transform_edt, m, {distances = {}})
    err("gpu.ndimage.distance_transform_cdt: distances must be int32, got float64", nd.distance_transform_cdt, m, {distances = gpu.zeros({5, 6}, "float64")})
    err("gpu.ndimage.distance_transform_bf: distances must be uint32, got float64",
        nd.distance_transform_bf, m, {metric = "taxicab", distances = gpu.zeros({5, 6}, "float64")})
    err("gpu.ndimage.distance_transform_bf: metric must be 'euclidean', 'taxicab' (or 'cityblock', 'manhattan') or 'chessboard', got 'foo'",
        nd.distance_transform_bf, m, {metric = "foo"})
    err("gpu.ndimage.distance_transform_cdt: metric must be 'chessboard', 'taxicab' (or 'cityblock', 'manhattan') or a structure, got 'euclidean'",
        nd.distance_transform_cdt, m, {metric = "euclidean"})
    err("gpu.ndimage.distance_transform_cdt: metric must have input's number of dims (2), got 1", nd.distance_transform_cdt, m, {metric = {1, 1, 1}})
    err("gpu.ndimage.distance_transform_cdt: metric's sizes must all be 3, got {3, 2}", nd.distance_transform_cdt, m, {metric = {{1, 1}, {1, 1}, {1, 1}}})
    err("gpu.ndimage.distance_transform_cdt: metric is complex64: complex arrays are not supported",
        nd.distance_transform_cdt, m, {metric = gpu.zeros({3, 3}, "complex64")})
    err("gpu.ndimage.distance_transform_edt: unknown option 'metric'", nd.distance_transform_edt, m, {metric = "taxicab"})
    err("gpu.ndimage.distance_transform_edt: argument 2 must be a table of options, got number", nd.distance_transform_edt, m, 2)
  end)
end)

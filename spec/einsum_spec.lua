-- gpu.einsum and gpu.vdot (lua/einsum.lua) against numpy.einsum: the CASES are what NumPy 1.24
-- gave for them (operands of small integers, so every dtype compares exactly), printed by the
-- generator at the end of this file; then views, out=, the products it makes, and errors.
local S = require("spec.support")

-- {subscripts, {operand, ...}, expected}: an operand is a Lua number or {dtype, shape, data
-- (C order; complex as {re, im}), view}, the view taken of the array so made
local CASES = {
  {"ij,jk->ik", {{dtype = "float32", shape = {2, 3}, data = {3.0, 1.0, 1.0, 3.0, 1.0, 2.0}}, {dtype = "float32", shape = {3, 4}, data = {2.0, -2.0, -3.0, -1.0, -2.0, 3.0, 3.0, -3.0, 0.0, 2.0, -3.0, 2.0}}},
   {dtype = "float32", shape = {2, 4}, data = {4.0, -1.0, -9.0, -4.0, 4.0, 1.0, -12.0, -2.0}}},
  {"ij,jk", {{dtype = "float64", shape = {3, 2}, data = {-3.0, 0.0, 2.0, -1.0, -1.0, -2.0}, view = "T"}, {dtype = "float64", shape = {3, 2}, data = {2.0, -2.0, 3.0, 0.0, 0.0, 0.0}}},
   {dtype = "float64", shape = {2, 2}, data = {0.0, 6.0, -3.0, 0.0}}},
  {"ij,jk->ki", {{dtype = "float32", shape = {6, 2}, data = {1.0, 0.0, 0.0, 3.0, 2.0, 2.0, 1.0, 1.0, -1.0, 3.0, 0.0, -2.0}, view = "step"}, {dtype = "float32", shape = {2, 4}, data = {2.0, -2.0, 3.0, 1.0, -3.0, -3.0, 0.0, -3.0}, view = "rev"}},
   {dtype = "float32", shape = {4, 3}, data = {-3.0, -2.0, 9.0, -3.0, -10.0, -3.0, 0.0, 6.0, 9.0, -3.0, -4.0, 6.0}}},
  {"bij,bjk->bik", {{dtype = "float32", shape = {2, 2, 3}, data = {-3.0, 0.0, 3.0, 0.0, 2.0, 3.0, 2.0, 1.0, 0.0, 0.0, -2.0, 0.0}}, {dtype = "float32", shape = {2, 3, 2}, data = {-1.0, -2.0, 3.0, -3.0, -3.0, -2.0, 3.0, 1.0, 3.0, -2.0, 2.0, -1.0}}},
   {dtype = "float32", shape = {2, 2, 2}, data = {-6.0, 0.0, -3.0, -12.0, 9.0, 0.0, -6.0, 4.0}}},
  {"ii", {{dtype = "float32", shape = {3, 3}, data = {0.0, -3.0, 1.0, 2.0, 1.0, -2.0, 0.0, -2.0, 3.0}}},
   {dtype = "float32", shape = {}, data = {4.0}}},
  {"ii->i", {{dtype = "int32", shape = {3, 3}, data = {3, -2, 0, 3, 2, 1, 1, -3, 2}}},
   {dtype = "int32", shape = {3}, data = {3, 2, 2}}},
  {"iij->ji", {{dtype = "float64", shape = {2, 2, 3}, data = {0.0, -3.0, -2.0, 0.0, 2.0, 0.0, 1.0, 3.0, 1.0, -1.0, 1.0, 1.0}}},
   {dtype = "float64", shape = {3, 2}, data = {0.0, -1.0, -3.0, 1.0, -2.0, 1.0}}},
  {"iii->i", {{dtype = "int64", shape = {2, 2, 2}, data = {-3, -3, 1, -1, 1, -1, -2, -2}}},
   {dtype = "int64", shape = {2}, data = {-3, -2}}},
  {"jii", {{dtype = "float32", shape = {2, 3, 3}, data = {-1.0, 2.0, -1.0, -1.0, 1.0, 3.0, -1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 3.0, -2.0, 0.0, 0.0}}},
   {dtype = "float32", shape = {2}, data = {0.0, 2.0}}},
  {"ij->ji", {{dtype = "int32", shape = {2, 3}, data = {-1, -2, -3, -1, 2, -3}}},
   {dtype = "int32", shape = {3, 2}, data = {-1, -1, -2, 2, -3, -3}}},
  {"ij->", {{dtype = "int64", shape = {2, 3}, data = {-1, 3, 3, -2, -3, 1}}},
   {dtype = "int64", shape = {}, data = {1}}},
  {"ij->j", {{dtype = "bool", shape = {2, 3}, data = {false, false, false, true, false, true}}},
   {dtype = "bool", shape = {3}, data = {true, false, true}}},
  {"i,j->ij", {{dtype = "float32", shape = {3}, data = {0.0, -3.0, 2.0}}, {dtype = "float32", shape = {2}, data = {2.0, 0.0}}},
   {dtype = "float32", shape = {3, 2}, data = {0.0, 0.0, -6.0, 0.0, 4.0, 0.0}}},
  {"i,j", {{dtype = "int32", shape = {3}, data = {3, 1, 3}}, {dtype = "int32", shape = {2}, data = {3, 0}}},
   {dtype = "int32", shape = {3, 2}, data = {9, 0, 3, 0, 9, 0}}},
  {"i,i", {{dtype = "float32", shape = {4}, data = {-2.0, -2.0, 0.0, -2.0}}, {dtype = "float32", shape = {4}, data = {2.0, 3.0, -2.0, 0.0}, view = "rev"}},
   {dtype = "float32", shape = {}, data = {0.0}}},
  {"i,i->i", {{dtype = "int32", shape = {4}, data = {-3, -2, -1, 3}}, {dtype = "int32", shape = {4}, data = {3, 1, 1, 0}}},
   {dtype = "int32", shape = {4}, data = {-9, -2, -1, 0}}},
  {"ij,ij->i", {{dtype = "float32", shape = {3, 4}, data = {-3.0, -1.0, 3.0, -1.0, -2.0, -2.0, 1.0, -3.0, 3.0, 3.0, 0.0, 0.0}}, {dtype = "float32", shape = {3, 4}, data = {2.0, 0.0, 0.0, -1.0, 0.0, 2.0, -3.0, -3.0, 2.0, -1.0, 2.0, -3.0}}},
   {dtype = "float32", shape = {3}, data = {-5.0, 2.0, 3.0}}},
  {"ij,jk,kl->il", {{dtype = "float32", shape = {2, 3}, data = {3.0, -3.0, -1.0, 3.0, -3.0, 1.0}}, {dtype = "float32", shape = {3, 4}, data = {2.0, -1.0, -3.0, 0.0, 0.0, 3.0, 1.0, -1.0, -3.0, 1.0, -2.0, 1.0}}, {dtype = "float32", shape = {4, 2}, data = {3.0, -1.0, 3.0, 0.0, 0.0, 2.0, 2.0, 3.0}}},
   {dtype = "float32", shape = {2, 2}, data = {-8.0, -23.0, -16.0, -19.0}}},
  {"a,ab,bc,c->", {{dtype = "float64", shape = {2}, data = {3.0, -2.0}}, {dtype = "float64", shape = {2, 3}, data = {-1.0, 3.0, -1.0, -3.0, 1.0, 2.0}}, {dtype = "float64", shape = {3, 2}, data = {2.0, 2.0, 1.0, -3.0, 2.0, -1.0}}, {dtype = "float64", shape = {2}, data = {2.0, 2.0}}},
   {dtype = "float64", shape = {}, data = {-18.0}}},
  {"ijk,jil->kl", {{dtype = "float32", shape = {3, 2, 4}, data = {3.0, -3.0, 3.0, 1.0, 0.0, 2.0, 3.0, 0.0, -3.0, 2.0, -2.0, -2.0, -2.0, -2.0, 3.0, -1.0, -3.0, -2.0, -1.0, -1.0, -1.0, 3.0, 3.0, 1.0}}, {dtype = "float32", shape = {2, 3, 2}, data = {3.0, -1.0, -3.0, -2.0, -3.0, 3.0, -2.0, 0.0, -2.0, 3.0, -2.0, 0.0}}},
   {dtype = "float32", shape = {4, 2}, data = {33.0, -12.0, -15.0, -13.0, 0.0, 7.0, 12.0, -3.0}}},
  {"...ij,...jk->...ik", {{dtype = "float32", shape = {2, 2, 3}, data = {3.0, 0.0, 3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 2.0, -1.0, 3.0, 3.0}}, {dtype = "float32", shape = {3, 2}, data = {-1.0, -1.0, 2.0, 3.0, -3.0, -3.0}}},
   {dtype = "float32", shape = {2, 2, 2}, data = {-12.0, -12.0, -5.0, -3.0, -5.0, -4.0, -2.0, 1.0}}},
  {"...i,...i", {{dtype = "float32", shape = {2, 3}, data = {-2.0, 0.0, -2.0, 0.0, 0.0, 3.0}}, {dtype = "float32", shape = {1, 3}, data = {2.0, -2.0, 2.0}}},
   {dtype = "float32", shape = {2}, data = {-8.0, 6.0}}},
  {"i...->...", {{dtype = "int32", shape = {3, 2}, data = {2, 1, 1, -1, 2, -3}}},
   {dtype = "int32", shape = {2}, data = {5, -3}}},
  {"...", {{dtype = "float32", shape = {2, 3}, data = {1.0, 3.0, 3.0, -1.0, -1.0, 1.0}}},
   {dtype = "float32", shape = {2, 3}, data = {1.0, 3.0, 3.0, -1.0, -1.0, 1.0}}},
  {"i...i", {{dtype = "float64", shape = {2, 3, 2}, data = {-1.0, 2.0, -2.0, -2.0, -3.0, 0.0, -2.0, -1.0, 3.0, 2.0, 2.0, 1.0}}},
   {dtype = "float64", shape = {3}, data = {-2.0, 0.0, -2.0}}},
  {"ij,jk", {{dtype = "float32", shape = {2, 1}, data = {-3.0, 2.0}}, {dtype = "float32", shape = {3, 2}, data = {1.0, 3.0, 0.0, -2.0, 1.0, 0.0}}},
   {dtype = "float32", shape = {2, 2}, data = {-6.0, -3.0, 4.0, 2.0}}},
  {"ij,ij->ij", {{dtype = "int32", shape = {1, 3}, data = {1, -1, -1}}, {dtype = "int32", shape = {2, 3}, data = {-3, 3, 2, 0, -2, 1}}},
   {dtype = "int32", shape = {2, 3}, data = {-3, -3, -2, 0, 2, -1}}},
  {"ij,jk->ik", {{dtype = "int32", shape = {2, 3}, data = {-1, 1, -3, -2, 2, -3}}, {dtype = "int32", shape = {3, 2}, data = {1, -1, -3, 2, 1, 2}}},
   {dtype = "int32", shape = {2, 2}, data = {-7, -3, -11, 0}}},
  {"ij,jk->ik", {{dtype = "int64", shape = {2, 3}, data = {3, 2, 2, -3, 3, 3}}, {dtype = "int32", shape = {3, 2}, data = {1, 2, 2, 3, 3, 0}}},
   {dtype = "int64", shape = {2, 2}, data = {13, 12, 12, 3}}},
  {"ij,jk->ik", {{dtype = "bool", shape = {2, 3}, data = {true, true, false, false, false, false}}, {dtype = "bool", shape = {3, 2}, data = {false, false, false, false, true, false}}},
   {dtype = "bool", shape = {2, 2}, data = {false, false, false, false}}},
  {"i->", {{dtype = "bool", shape = {5}, data = {true, false, true, true, false}}},
   {dtype = "bool", shape = {}, data = {true}}},
  {"ij,jk->ik", {{dtype = "int32", shape = {2, 3}, data = {-3, -1, 1, -3, -2, -3}}, {dtype = "float32", shape = {3, 2}, data = {1.0, -3.0, -3.0, 0.0, -1.0, 0.0}}},
   {dtype = "float64", shape = {2, 2}, data = {-1.0, 9.0, 6.0, 9.0}}},
  {"ij,jk->ik", {{dtype = "complex64", shape = {2, 3}, data = {{3, 1}, {3, -2}, {0, 1}, {1, -2}, {2, -2}, {0, 2}}}, {dtype = "complex64", shape = {3, 2}, data = {{1, 3}, {-1, 3}, {-3, 2}, {-2, -3}, {2, -3}, {0, 1}}}},
   {dtype = "complex64", shape = {2, 2}, data = {{-2, 24}, {-19, 3}, {11, 15}, {-7, 3}}}},
  {"ij,j->i", {{dtype = "complex64", shape = {2, 3}, data = {{-1, 1}, {2, -3}, {-1, 2}, {-2, -1}, {-3, -1}, {-1, 1}}}, {dtype = "float32", shape = {3}, data = {3.0, 0.0, 2.0}}},
   {dtype = "complex64", shape = {2}, data = {{-5, 7}, {-8, -1}}}},
  {"ij,ji", {{dtype = "complex64", shape = {3, 2}, data = {{-1, 0}, {-3, -2}, {2, 1}, {2, 1}, {2, -1}, {3, 1}}, view = "T"}, {dtype = "complex64", shape = {2, 3}, data = {{-2, -3}, {1, 1}, {2, 3}, {-3, 2}, {0, 1}, {1, 2}}, view = "T"}},
   {dtype = "complex64", shape = {}, data = {{23, 19}}}},
  {"i,i", {{dtype = "complex64", shape = {3}, data = {{-1, 2}, {-1, -1}, {-3, 3}}}, {dtype = "bool", shape = {3}, data = {false, true, false}}},
   {dtype = "complex64", shape = {}, data = {{-1, -1}}}},
  {",", {{dtype = "float32", shape = {}, data = {-2.0}}, {dtype = "float32", shape = {}, data = {-1.0}}},
   {dtype = "float32", shape = {}, data = {2.0}}},
  {"->", {{dtype = "int32", shape = {}, data = {-3}}},
   {dtype = "int32", shape = {}, data = {-3}}},
  {",ij->ij", {{dtype = "float64", shape = {}, data = {0.0}}, {dtype = "float64", shape = {2, 2}, data = {1.0, 1.0, -2.0, -2.0}}},
   {dtype = "float64", shape = {2, 2}, data = {0.0, 0.0, 0.0, 0.0}}},
  {"i,->i", {{dtype = "float32", shape = {3}, data = {0.0, 1.0, 3.0}}, 2},
   {dtype = "float32", shape = {3}, data = {0.0, 2.0, 6.0}}},
  {"i,->i", {{dtype = "int32", shape = {3}, data = {3, -1, -2}}, 2.5},
   {dtype = "float64", shape = {3}, data = {7.5, -2.5, -5.0}}},
  {"ij,jk->ik", {{dtype = "float32", shape = {2, 0}, data = {}}, {dtype = "float32", shape = {0, 3}, data = {}}},
   {dtype = "float32", shape = {2, 3}, data = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}}},
  {"ij,jk->ik", {{dtype = "float32", shape = {0, 3}, data = {}}, {dtype = "float32", shape = {3, 2}, data = {-2.0, 3.0, 0.0, 3.0, 1.0, 1.0}}},
   {dtype = "float32", shape = {0, 2}, data = {}}},
  {"ij->i", {{dtype = "int32", shape = {3, 0}, data = {}}},
   {dtype = "int32", shape = {3}, data = {0, 0, 0}}},
  {"ii->i", {{dtype = "float32", shape = {0, 0}, data = {}}},
   {dtype = "float32", shape = {0}, data = {}}},
  {"ij,jk->", {{dtype = "int64", shape = {2, 0}, data = {}}, {dtype = "int64", shape = {0, 3}, data = {}}},
   {dtype = "int64", shape = {}, data = {0}}},
  {"ab,cd,bc->ad", {{dtype = "float32", shape = {2, 3}, data = {-3.0, 1.0, -1.0, 2.0, -3.0, -2.0}}, {dtype = "float32", shape = {4, 2}, data = {1.0, 1.0, 2.0, 0.0, -1.0, -1.0, -1.0, 1.0}}, {dtype = "float32", shape = {3, 4}, data = {0.0, -1.0, -2.0, 1.0, -2.0, -2.0, -1.0, 2.0, 0.0, 1.0, -3.0, -1.0}}},
   {dtype = "float32", shape = {2, 2}, data = {-10.0, -10.0, 7.0, -1.0}}},
  {"ba", {{dtype = "float32", shape = {2, 3}, data = {2.0, 2.0, 1.0, 3.0, -1.0, -2.0}}},
   {dtype = "float32", shape = {3, 2}, data = {2.0, 3.0, 2.0, -1.0, 1.0, -2.0}}},
  {"Ab,bA", {{dtype = "float32", shape = {2, 3}, data = {-3.0, -2.0, 2.0, 3.0, -3.0, 0.0}}, {dtype = "float32", shape = {3, 2}, data = {-3.0, 2.0, -3.0, 1.0, -3.0, 2.0}}},
   {dtype = "float32", shape = {}, data = {12.0}}},
  {"bA", {{dtype = "float32", shape = {2, 3}, data = {3.0, 2.0, -2.0, 2.0, -1.0, 2.0}}},
   {dtype = "float32", shape = {3, 2}, data = {3.0, 2.0, 2.0, -1.0, -2.0, 2.0}}},
  {"i j ,j k", {{dtype = "float32", shape = {2, 3}, data = {2.0, 0.0, 1.0, 2.0, -2.0, -3.0}}, {dtype = "float32", shape = {3, 2}, data = {0.0, -2.0, 3.0, 3.0, -1.0, -1.0}}},
   {dtype = "float32", shape = {2, 2}, data = {-1.0, -5.0, -3.0, -7.0}}},
  {"ijk,ikl->ijl", {{dtype = "float32", shape = {3, 1, 2}, data = {1.0, 0.0, -3.0, 1.0, 2.0, -3.0}, view = "rev"}, {dtype = "float32", shape = {3, 2, 2}, data = {2.0, 0.0, 2.0, 2.0, 1.0, -1.0, -1.0, 2.0, -3.0, -2.0, 0.0, 3.0}}},
   {dtype = "float32", shape = {3, 1, 2}, data = {-2.0, -6.0, -4.0, 5.0, -3.0, -2.0}}},
  {"bn,anm,bm->ba", {{dtype = "float64", shape = {2, 3}, data = {2.0, 2.0, -2.0, -2.0, -2.0, 2.0}}, {dtype = "float64", shape = {2, 3, 3}, data = {0.0, -2.0, 2.0, 1.0, 3.0, 0.0, -3.0, 3.0, -2.0, -3.0, 2.0, 0.0, 1.0, -3.0, 2.0, -1.0, 3.0, 1.0}}, {dtype = "float64", shape = {2, 3}, data = {3.0, 2.0, 2.0, -3.0, 2.0, 1.0}}},
   {dtype = "float64", shape = {2, 2}, data = {32.0, -18.0, 24.0, 8.0}}},
  {"i,i,i->", {{dtype = "int32", shape = {3}, data = {-1, -1, 1}}, {dtype = "int32", shape = {3}, data = {-2, -2, 3}}, {dtype = "int32", shape = {3}, data = {2, 1, 2}}},
   {dtype = "int32", shape = {}, data = {12}}},
  {"ij,kl->ijkl", {{dtype = "int64", shape = {2, 2}, data = {-1, 2, -2, 0}}, {dtype = "int64", shape = {2, 1}, data = {-2, -1}}},
   {dtype = "int64", shape = {2, 2, 2, 1}, data = {2, 1, -4, -2, 4, 2, 0, 0}}},
}

local function value(v, dtype)
  if dtype:match("complex") then return gpu.complex(v[1], v[2]) end
  return v
end

local function operand(o)
  if type(o) == "number" then return o end
  local t = {}
  for i, v in ipairs(o.data) do t[i] = value(v, o.dtype) end
  local a = #t == 0 and gpu.empty(o.shape, o.dtype) or gpu.array(t, o.dtype):reshape(o.shape)
  if o.view == "T" then return a.T end
  if o.view == "step" then return a[{{1, -1, 2}}] end
  if o.view == "rev" then return a[{{-1, 1, -1}}] end
  return a
end

local function flat(r)
  local t = r.size > 0 and r:reshape(r.size):totable() or {}
  for i, v in ipairs(t) do
    if type(v) ~= "number" and type(v) ~= "boolean" then t[i] = {v.re, v.im} end
  end
  return t
end

local function errline(f)
  local ok, e = pcall(f)
  assert(not ok, "expected an error")
  return e
end

describe("gpu.einsum", function()
  it("gives numpy.einsum's dtype, shape and values", function()
    for _, c in ipairs(CASES) do
      local ops = {}
      for k, o in ipairs(c[2]) do ops[k] = operand(o) end
      local r, want = gpu.einsum(c[1], table.unpack(ops)), c[3]
      assert.are.equal(want.dtype, r.dtype, c[1])
      assert.are.same(want.shape, r.shape, c[1])
      assert.are.same(want.data, flat(r), c[1])
    end
  end)

  it("gives a view for a transpose alone, as NumPy's, and copies otherwise", function()
    local a = gpu.arange(6, "float64"):reshape(2, 3)
    local t = gpu.einsum("ij->ji", a)
    assert.are.same({1, 3}, t.strides)
    t[{1, 2}] = 40                                  -- a view: a[2][1] changes
    assert.are.equal(40, a:item(2, 1))
    local same = gpu.einsum("ij", a)
    assert.are_not.equal(a, same)                   -- a view, not the operand itself
    assert.are.same({3, 1}, same.strides)
    local d = gpu.einsum("ii->i", gpu.arange(9):reshape(3, 3))
    assert.are.same({0, 4, 8}, d:totable())
  end)

  it("writes into out, in a dtype the result casts to, from a copy where it overlaps", function()
    local a, b = gpu.arange(6):reshape(2, 3), gpu.arange(6):reshape(3, 2)
    local o = gpu.zeros({2, 2}, "float64")
    assert.are.equal(o, gpu.einsum("ij,jk->ik", a, b, {out = o}))
    assert.are.same({{10, 13}, {28, 40}}, o:totable())
    local sq = gpu.arange(9, "int32"):reshape(3, 3)
    gpu.einsum("ij->ji", sq, {out = sq})
    assert.are.same({{0, 3, 6}, {1, 4, 7}, {2, 5, 8}}, sq:totable())
    local c = gpu.zeros({2}, "complex64")
    gpu.einsum("ij->i", a, {out = c})
    assert.are.same({{3, 0}, {12, 0}}, flat(c))
    assert.matches("gpu.einsum: out has shape {3, 2} but the result has shape {2, 2}",
      S.errof(gpu.einsum, "ij,jk", a, b, {out = gpu.zeros({3, 2})}), 1, true)
    assert.matches("gpu.einsum: out is int32, and the result (float32) cannot be cast to it",
      S.errof(gpu.einsum, "ij,jk", a, b, {out = gpu.zeros({2, 2}, "int32")}), 1, true)
    assert.matches("gpu.einsum: out must be a device array, got number", S.errof(gpu.einsum, "ij", a, {out = 2}), 1, true)
    assert.matches("gpu.einsum: unknown option 'dtype' (it takes out)",
      S.errof(gpu.einsum, "ij", a, {dtype = "float64"}), 1, true)
  end)

  it("contracts a shared summed index with one gpu.matmul, the cheapest pair first", function()
    local calls, matmul = {}, gpu.matmul
    gpu.matmul = function(x, y, ...)
      calls[#calls + 1] = {x.shape, y.shape}
      return matmul(x, y, ...)
    end
    local ok, e = pcall(function()
      local a, b = gpu.ones({4, 2, 3}), gpu.ones({4, 3, 5})
      assert.are.same({4, 2, 5}, gpu.einsum("bij,bjk->bik", a, b).shape)
      assert.are.same({{{4, 2, 3}, {4, 3, 5}}}, calls)
      -- (8, 2) @ (2, 8) would make an 8 x 8: (2, 8) @ (8, 2) goes first, a 2 x 2
      calls = {}
      local r = gpu.einsum("ij,jk,kl->il", gpu.ones({8, 2}), gpu.ones({2, 8}), gpu.ones({8, 2}))
      assert.are.same({{{2, 8}, {8, 2}}, {{8, 2}, {2, 2}}}, calls)
      assert.are.same({8, 2}, r.shape)
      assert.are.equal(16, r:item(1, 1))
      -- a Hadamard product is one multiplication, no product of matrices
      calls = {}
      gpu.einsum("ij,ij->ij", gpu.ones({2, 3}), gpu.ones({2, 3}))
      assert.are.same({}, calls)
    end)
    gpu.matmul = matmul
    assert(ok, e)
  end)

  it("takes Lua numbers as weak scalars, as gpuhost's operations do", function()
    local x = gpu.arange(3, "float32")
    assert.are.equal("float32", gpu.einsum("i,->i", x, 2).dtype)
    assert.are.same({0, 2, 4}, gpu.einsum(",i->i", 2, x):totable())
    assert.are.equal("float64", gpu.einsum("i,", gpu.arange(3, "int32"), 0.5).dtype)
    -- a 0-D array is not weak (NumPy 2's result_type; NumPy 1.24's einsum gave float32 here)
    assert.are.equal("float64", gpu.einsum(",i", gpu.full({}, 2, "float64"), x).dtype)
    -- a number out of the operands' dtype, named as an operand (it named 'full')
    assert.matches("gpu.einsum operand 1: 300 out of range for int8",
                   S.errof(gpu.einsum, ",i->i", 300, gpu.array({100, 1}, "int8")), 1, true)
  end)

  it("refuses bad subscripts and operands, naming the index and the caller's line", function()
    local a, b = gpu.ones({2, 3}), gpu.ones({3, 4})
    local function check(msg, ...) assert.matches(msg, S.errof(gpu.einsum, ...), 1, true) end
    check("gpu.einsum: the subscripts 'ij,jk->ik' name 2 operands, but 1 is given", "ij,jk->ik", a)
    check("gpu.einsum: the subscripts 'ij->ik' name 1 operand, but 2 are given", "ij->ik", a, b)
    check("gpu.einsum: index 'j' has size 3 in operand 1 but 2 in operand 2 (only a size of 1 broadcasts)",
      "ij,jk", a, gpu.ones({2, 4}))
    check("gpu.einsum: dim 2 of the ellipsis ('...') has size 3 in operand 1 but 2 in operand 2", "...,...", a, gpu.ones(2))
    check("gpu.einsum: index 'i' is repeated in operand 1 with sizes 2 and 3: a diagonal needs them equal", "ii", a)
    check("gpu.einsum: operand 1 has 2 dimensions but its subscripts 'i' name 1 and no ellipsis ('...') stands for the others",
      "i", a)
    check("gpu.einsum: operand 1 has 2 dimensions but its subscripts 'ijk' name 3", "ijk", a)
    check("gpu.einsum: the output's subscripts name 'i' more than once", "i->ii", gpu.ones(3))
    check("gpu.einsum: the output's subscript 'j' is in no operand's subscripts", "i->j", gpu.ones(3))
    check("gpu.einsum: 'i-i' has a '-' or '>' that is not one '->' before the output", "i-i", gpu.ones(3))
    check("gpu.einsum: 'i->i->' has a '-' or '>'", "i->i->", gpu.ones(3))
    check("gpu.einsum: invalid subscript '1' in the subscripts of operand 1 ('1'): subscripts are letters", "1", gpu.ones(3))
    check("gpu.einsum: a '.' that is not part of an ellipsis ('...') in the subscripts of operand 1 ('..i')", "..i", gpu.ones(3))
    check("gpu.einsum: more than one ellipsis ('...') in the subscripts of operand 1", "......", a)
    check("gpu.einsum: an ellipsis ('...') stands for dims of the operands, but the output's subscripts have none", "...i->i", a)
    check("gpu.einsum: the subscripts must be a string, got number", 5, a)
    check("gpu.einsum: no operands given after the subscripts", "ij")
    check("gpu.einsum: operand 1 must be a device array or a number, got table", "ij", {1, 2})
    check("gpu.einsum: operand 2 must be a device array or a number, got nil", "ij,jk", a, nil)
    check("gpu.einsum: operand 1 must be a device array or a number, got host array", "i", gpu.host.array({1, 2}))
    local f = gpu.ones(3)
    f:free()
    check("gpu.einsum: operand 1 is a freed array", "i", f)
    -- past 8 dims it said the shape's words ("shape must have 0 to 8 dimensions, got 16")
    local d8 = gpu.ones({1, 1, 1, 1, 1, 1, 1, 1})
    check("gpu.einsum: the result would have 16 dimensions, more than an array has (8)", "abcdefgh,ijklmnop->abcdefghijklmnop", d8, d8)
    local line = debug.getinfo(1, "l").currentline + 1
    local e = errline(function() gpu.einsum("ij,jk", a, a) end)
    assert.matches("einsum_spec.lua:" .. line .. ": gpu.einsum: index 'j'", e, 1, true)
  end)
end)

describe("gpu.vdot", function()
  it("is NumPy's vdot: conj(a) times b, both flattened, a 0-D array", function()
    local a = gpu.array({gpu.complex(1, 2), gpu.complex(3, -1)}, "complex64")
    local b = gpu.array({gpu.complex(0, 1), 2}, "complex64")
    local r = gpu.vdot(a, b)                                   -- NumPy: (8+3j)
    assert.are.same({}, r.shape)
    assert.are.equal("complex64", r.dtype)
    assert.are.same({{8, 3}}, flat(r))
    local m = gpu.vdot(gpu.arange(6, "int32"):reshape(2, 3), gpu.arange(6, "int32").T)
    assert.are.equal("int32", m.dtype)
    assert.are.equal(55, m:item())
    assert.are.equal("float64", gpu.vdot(gpu.ones(2, "int32"), gpu.ones(2, "float32")).dtype)
    assert.are.equal(true, gpu.vdot(gpu.array({true, false}, "bool"), gpu.array({true, true}, "bool")):item())
    assert.matches("gpu.vdot: a has 6 elements and b 12: they must have as many",
      S.errof(gpu.vdot, gpu.ones({2, 3}), gpu.ones({3, 4})), 1, true)
    assert.matches("gpu.vdot: argument 2 must be a device array, got number", S.errof(gpu.vdot, gpu.ones(2), 3), 1, true)
    -- b left out was "attempt to index a nil value (local 'b')" (ipairs stopped at it)
    assert.are.equal("gpu.vdot: argument 2 must be a device array, got nil", S.errof(gpu.vdot, gpu.ones(2)))
  end)
end)

--[==[ The generator of CASES (run with NumPy 1.24; the output is pasted above):
# Cases for spec/einsum_spec.lua: numpy.einsum on small integer-valued operands, printed as Lua
import numpy as np, sys
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
VIEWS = {"": lambda a: a, "T": lambda a: a.T, "step": lambda a: a[::2], "rev": lambda a: a[::-1]}
def base_shape(shape, view):
    if view == "T": return tuple(reversed(shape))
    if view == "step": return (2 * shape[0],) + tuple(shape[1:])
    return tuple(shape)
def data(shape, dt):
    n = int(np.prod(shape, dtype=np.int64))
    if dt == "bool": return rng.integers(0, 2, n).astype(bool).reshape(shape)
    v = rng.integers(-3, 4, n)
    if dt.startswith("uint"): v = np.abs(v)
    if dt.startswith("complex"): v = v + 1j * rng.integers(-3, 4, n)
    return v.astype(dt).reshape(shape)
def lua_val(x, dt):
    if dt == "bool": return "true" if x else "false"
    if dt.startswith("complex"): return "{%d, %d}" % (int(x.real), int(x.imag))
    if dt.startswith("float"): return repr(float(x))
    return "%d" % int(x)
def lua_arr(a):
    dt = str(a.dtype)
    return '{dtype = "%s", shape = {%s}, data = {%s}' % (dt, ", ".join(map(str, a.shape)),
        ", ".join(lua_val(x, dt) for x in a.ravel()))
def case(sub, specs):
    ops, args = [], []
    for shape, dt, view in specs:
        if shape is None:            # a Lua number
            ops.append(str(dt)); args.append(dt); continue
        b = data(base_shape(shape, view), dt)
        a = VIEWS[view](b)
        ops.append(lua_arr(b) + (', view = "%s"}' % view if view else "}"))
        args.append(a)
    r = np.asarray(np.einsum(sub, *args))
    return '  {"%s", {%s},\n   %s}},' % (sub, ", ".join(ops), lua_arr(r))
CASES = [
  ("ij,jk->ik", [((2, 3), "float32", ""), ((3, 4), "float32", "")]),
  ("ij,jk", [((2, 3), "float64", "T"), ((3, 2), "float64", "")]),
  ("ij,jk->ki", [((3, 2), "float32", "step"), ((2, 4), "float32", "rev")]),
  ("bij,bjk->bik", [((2, 2, 3), "float32", ""), ((2, 3, 2), "float32", "")]),
  ("ii", [((3, 3), "float32", "")]),
  ("ii->i", [((3, 3), "int32", "")]),
  ("iij->ji", [((2, 2, 3), "float64", "")]),
  ("iii->i", [((2, 2, 2), "int64", "")]),
  ("jii", [((2, 3, 3), "float32", "")]),
  ("ij->ji", [((2, 3), "int32", "")]),
  ("ij->", [((2, 3), "int64", "")]),
  ("ij->j", [((2, 3), "bool", "")]),
  ("i,j->ij", [((3,), "float32", ""), ((2,), "float32", "")]),
  ("i,j", [((3,), "int32", ""), ((2,), "int32", "")]),
  ("i,i", [((4,), "float32", ""), ((4,), "float32", "rev")]),
  ("i,i->i", [((4,), "int32", ""), ((4,), "int32", "")]),
  ("ij,ij->i", [((3, 4), "float32", ""), ((3, 4), "float32", "")]),
  ("ij,jk,kl->il", [((2, 3), "float32", ""), ((3, 4), "float32", ""), ((4, 2), "float32", "")]),
  ("a,ab,bc,c->", [((2,), "float64", ""), ((2, 3), "float64", ""), ((3, 2), "float64", ""), ((2,), "float64", "")]),
  ("ijk,jil->kl", [((3, 2, 4), "float32", ""), ((2, 3, 2), "float32", "")]),
  ("...ij,...jk->...ik", [((2, 2, 3), "float32", ""), ((3, 2), "float32", "")]),
  ("...i,...i", [((2, 3), "float32", ""), ((1, 3), "float32", "")]),
  ("i...->...", [((3, 2), "int32", "")]),
  ("...", [((2, 3), "float32", "")]),
  ("i...i", [((2, 3, 2), "float64", "")]),
  ("ij,jk", [((2, 1), "float32", ""), ((3, 2), "float32", "")]),
  ("ij,ij->ij", [((1, 3), "int32", ""), ((2, 3), "int32", "")]),
  ("ij,jk->ik", [((2, 3), "int32", ""), ((3, 2), "int32", "")]),
  ("ij,jk->ik", [((2, 3), "int64", ""), ((3, 2), "int32", "")]),
  ("ij,jk->ik", [((2, 3), "bool", ""), ((3, 2), "bool", "")]),
  ("i->", [((5,), "bool", "")]),
  ("ij,jk->ik", [((2, 3), "int32", ""), ((3, 2), "float32", "")]),
  ("ij,jk->ik", [((2, 3), "complex64", ""), ((3, 2), "complex64", "")]),
  ("ij,j->i", [((2, 3), "complex64", ""), ((3,), "float32", "")]),
  ("ij,ji", [((2, 3), "complex64", "T"), ((3, 2), "complex64", "T")]),
  ("i,i", [((3,), "complex64", ""), ((3,), "bool", "")]),
  (",", [((), "float32", ""), ((), "float32", "")]),
  ("->", [((), "int32", "")]),
  (",ij->ij", [((), "float64", ""), ((2, 2), "float64", "")]),
  ("i,->i", [((3,), "float32", ""), (None, 2, "")]),
  ("i,->i", [((3,), "int32", ""), (None, 2.5, "")]),
  ("ij,jk->ik", [((2, 0), "float32", ""), ((0, 3), "float32", "")]),
  ("ij,jk->ik", [((0, 3), "float32", ""), ((3, 2), "float32", "")]),
  ("ij->i", [((3, 0), "int32", "")]),
  ("ii->i", [((0, 0), "float32", "")]),
  ("ij,jk->", [((2, 0), "int64", ""), ((0, 3), "int64", "")]),
  ("ab,cd,bc->ad", [((2, 3), "float32", ""), ((4, 2), "float32", ""), ((3, 4), "float32", "")]),
  ("ba", [((2, 3), "float32", "")]),
  ("Ab,bA", [((2, 3), "float32", ""), ((3, 2), "float32", "")]),
  ("bA", [((2, 3), "float32", "")]),
  ("i j ,j k", [((2, 3), "float32", ""), ((3, 2), "float32", "")]),
  ("ijk,ikl->ijl", [((3, 1, 2), "float32", "rev"), ((3, 2, 2), "float32", "")]),
  ("bn,anm,bm->ba", [((2, 3), "float64", ""), ((2, 3, 3), "float64", ""), ((2, 3), "float64", "")]),
  ("i,i,i->", [((3,), "int32", ""), ((3,), "int32", ""), ((3,), "int32", "")]),
  ("ij,kl->ijkl", [((2, 2), "int64", ""), ((2, 1), "int64", "")]),
]
print("local CASES = {")
for sub, specs in CASES: print(case(sub, specs))
print("}")
]==]

-- Type promotion against NumPy 2 (NEP 50): every pair of dtypes, dtypes with weak Lua
-- numbers, and what each operation gives, from the table scripts/gen_promotion.py wrote
-- with NumPy (spec/data/promotion.lua). No kernel runs here: u:result_dtype asks the same
-- C code a call uses.
local T = require("spec.data.promotion")

local function operand(s)
  if s == "int" then return 1 elseif s == "float" then return 1.5 elseif s == "true" then return true end
  return s
end

local function split(key)
  local parts = {}
  for p in key:gmatch("[^,]+") do parts[#parts + 1] = operand(p) end
  return parts
end

describe("type promotion against NumPy 2", function()
  it("gives NumPy's result_type for every pair of dtypes and weak scalars", function()
    local n = 0
    for key, want in pairs(T.result_type) do
      assert.are.equal(want, gpu.result_type(table.unpack(split(key))), key)
      n = n + 1
    end
    assert.are.equal(14 * 14 + 3 * 14, n)
  end)

  it("gives NumPy's dtype for each operation, or refuses where NumPy raises", function()
    local checked, refused = 0, 0
    for op, cases in pairs(T.ops) do
      local u = assert(gpu[op], op)
      for key, want in pairs(cases) do
        local ok, got = pcall(u.result_dtype, u, table.unpack(split(key)))
        if want == "error" then
          assert.is_false(ok, op .. "(" .. key .. ") should be refused, gave " .. tostring(got))
          refused = refused + 1
        else
          assert.is_true(ok, op .. "(" .. key .. "): " .. tostring(got))
          assert.are.equal(want, got, op .. "(" .. key .. ")")
        end
        checked = checked + 1
      end
    end
    assert.is_true(checked > 4000 and refused > 200, checked .. " " .. refused)
  end)

  it("refuses weak integers out of the array's range, as NumPy 2 does", function()
    for key, want in pairs(T.overflow) do
      local dt, v = key:match("^(%w+),(-?%d+)$")
      assert.are.equal("error", want)
      local ok, err = pcall(gpu.add.result_dtype, gpu.add, dt, math.tointeger(tonumber(v)))
      assert.is_false(ok, key)
      assert.matches("is out of range for " .. dt, err, 1, true)
    end
  end)

  it("keeps float32 with a Lua float and int32 with a Lua integer (weak scalars)", function()
    assert.are.equal("float32", gpu.multiply:result_dtype("float32", 2.5))
    assert.are.equal("int32", gpu.add:result_dtype("int32", 1))
    assert.are.equal("float64", gpu.divide:result_dtype("int32", 2))
    assert.are.equal("float64", gpu.add:result_dtype("int32", 2.5))
    assert.are.equal("int64", gpu.add:result_dtype("bool", 1))
    assert.are.equal("float64", gpu.result_type(1, 2.5))
    assert.are.equal("int64", gpu.result_type(1, 2))
  end)

  -- Before: the arrays' dtypes were folded in the order given, and promotion is not
  -- associative across kinds: int8, uint8, float16 gave float32 (int16 first), NumPy float16
  it("gives one result_type of three dtypes in every order, NumPy's (and einsum's)", function()
    local function orders(t)
      return {{t[1], t[2], t[3]}, {t[1], t[3], t[2]}, {t[2], t[1], t[3]}, {t[2], t[3], t[1]}, {t[3], t[1], t[2]}, {t[3], t[2], t[1]}}
    end
    for _, c in ipairs({{{"int8", "uint8", "float16"}, "float16"}, {{"uint16", "int8", "float16"}, "float32"},
                        {{"int16", "uint16", "float32"}, "float32"}, {{"uint64", "int8", "complex64"}, "complex128"},
                        {{"bool", "uint8", "int8"}, "int16"}}) do
      for _, o in ipairs(orders(c[1])) do
        assert.are.equal(c[2], gpu.result_type(o[1], o[2], o[3]), table.concat(o, " "))
        local xs = {}
        for i = 1, 3 do xs[i] = gpu.ones(2, o[i]) end
        assert.are.equal(c[2], gpu.einsum("i,i,i->i", xs[1], xs[2], xs[3]).dtype, table.concat(o, " "))
      end
    end
  end)
end)


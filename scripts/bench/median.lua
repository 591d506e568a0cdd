-- median.lua: reads name<TAB>value lines from arg[1] and prints each name's median.
local v, order = {}, {}
for line in io.lines(arg[1]) do
  local k, x = line:match("^(%S+)\t(%S+)")
  if k then
    if not v[k] then v[k] = {}; order[#order + 1] = k end
    table.insert(v[k], tonumber(x))
  end
end
for _, k in ipairs(order) do
  table.sort(v[k])
  print(("%s\t%.4f"):format(k, v[k][(#v[k] + 1) // 2]))
end

-- scripts/toc.lua: writes README.md's "## Contents" from its ## and ### titles, with
-- GitHub's anchors (lower case, punctuation dropped, spaces as hyphens, -1, -2 for
-- repeats). Run as `lua5.4 scripts/toc.lua` after adding or renaming a section;
-- spec/docs_spec.lua checks that the contents match the sections.
local path = arg[1] or "README.md"
local f = assert(io.open(path))
local text = f:read("a")
f:close()

local lines, used = {}, {}
for level, title in text:gmatch("\n(##+) ([^\n]+)") do
  if #level <= 3 and title ~= "Contents" then
    local anchor = title:lower():gsub("[^%w%- _]", ""):gsub(" ", "-")
    local n = used[anchor]
    used[anchor] = (n or 0) + 1
    if n then anchor = anchor .. "-" .. n end
    lines[#lines + 1] = ("%s- [%s](#%s)"):format(#level == 3 and "  " or "", title, anchor)
  end
end
local toc = "## Contents\n\n" .. table.concat(lines, "\n") .. "\n\n"

local start = text:find("\n## Contents\n", 1, true)
if start then
  local stop = assert(text:find("\n## ", start + 1, true), "a section after the contents")
  text = text:sub(1, start) .. toc .. text:sub(stop + 1)
else
  local first = assert(text:find("\n## ", 1, true), "a first section")
  text = text:sub(1, first) .. toc .. text:sub(first + 1)
end
f = assert(io.open(path, "w"))
f:write(text)
f:close()

-- GET one path after another from the file PATHS (one per line), in order, round and round.
-- Every connection shares the list; TOKEN is sent as the bearer.
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local headers = { ["Authorization"] = "Bearer " .. os.getenv("TOKEN") }
local next_index = 0
request = function()
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index], headers)
end

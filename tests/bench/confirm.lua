-- POST /orders/<id>/confirm once for every id in IDS, spread over the connections;
-- when the list is used up, connections fall back to GET /health/live until wrk stops.
local ids = {}
for line in io.lines(os.getenv("IDS")) do ids[#ids + 1] = line end
local headers = { ["Authorization"] = "Bearer " .. os.getenv("TOKEN") }
local next_index = 0
request = function()
  next_index = next_index + 1
  if next_index <= #ids then
    return wrk.format("POST", "/api/v1/order-mgmt/orders/" .. ids[next_index] .. "/confirm", headers)
  end
  return wrk.format("GET", "/health/live")
end

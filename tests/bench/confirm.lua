-- POST /orders/<id>/confirm once for every id in IDS, spread over the connections; the thread stops
-- when every id has been sent and answered, so nothing else loads the server while the events run.
local ids = {}
for line in io.lines(os.getenv("IDS")) do ids[#ids + 1] = line end
local headers = { ["Authorization"] = "Bearer " .. os.getenv("TOKEN") }
-- wrk calls request() once before connecting, to check the script; that call gets index 0.
local sent, answered = 0, 0
request = function()
  local index = sent
  sent = sent + 1
  if index >= 1 and index <= #ids then
    return wrk.format("POST", "/api/v1/order-mgmt/orders/" .. ids[index] .. "/confirm", headers)
  end
  -- The check, or every id is out: a request the router refuses at once.
  return wrk.format("GET", "/bench-no-such-route")
end
response = function(status, headers, body)
  answered = answered + 1
  if answered >= #ids then wrk.thread:stop() end
end

-- POSTs every line of REQUESTS once, spread over the connections: a path, then optionally one space and
-- a JSON body without spaces. The thread stops when every line has been sent and answered, so nothing
-- else loads the server while the events run (the order-flow benchmark, the crash storms).
local requests = {}
for line in io.lines(os.getenv("REQUESTS")) do
  local path, body = line:match("^(%S+) (%S+)$")
  requests[#requests + 1] = { path = path or line, body = body }
end
local headers = { ["Authorization"] = "Bearer " .. os.getenv("TOKEN"), ["Content-Type"] = "application/json" }
-- wrk calls request() once before connecting, to check the script; that call gets index 0.
local sent, answered = 0, 0
request = function()
  local index = sent
  sent = sent + 1
  local r = requests[index]
  if index >= 1 and r then return wrk.format("POST", r.path, headers, r.body) end
  -- The check, or every line is out: a request the router refuses at once.
  return wrk.format("GET", "/crash-no-such-route")
end
response = function(status, headers, body)
  answered = answered + 1
  if answered >= #requests then wrk.thread:stop() end
end

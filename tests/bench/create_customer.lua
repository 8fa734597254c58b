-- POST a new customer with an email no other request uses (RUN keeps separate runs apart).
local headers = { ["Authorization"] = "Bearer " .. os.getenv("TOKEN"), ["Content-Type"] = "application/json" }
local run = os.getenv("RUN") or "0"
local count = 0
request = function()
  count = count + 1
  local body = string.format('{"name":"Bench Buyer %d","email":"buyer-%s-%d@bench.test"}', count, run, count)
  return wrk.format("POST", "/api/v1/customer-mgmt/customers", headers, body)
end

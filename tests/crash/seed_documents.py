"""Seeds the mixed crash storm (tests/crash/mixed.sh) through the HTTP API: one supplier, purchase
orders submitted for the scarce products, draft transfers of them to a second location. Writes the
storm's requests (one `PATH [BODY]` a line, tests/support/posts.lua) to stdout: every order's confirmation,
three partial receipts of 2 units for every 5-unit purchase order line (so the third must be refused),
every transfer's shipment, shuffled together; then, last, receipts and in-transit cancellations of
some transfers. Per product, receipts bring 8 units and transfers take 6: less than the orders lack. Usage: seed_documents.py BASE TOKEN ORDER_IDS_FILE WAREHOUSE_ID STORE_ID SCARCE_PRODUCT_IDS_FILE"""
import json
import random
import sys
import urllib.request

base, token, order_ids, warehouse, store, products = sys.argv[1:7]
api = base + "/api/v1"


def post(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(api + path, data=data, method="POST", headers={
        "Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        return json.load(res)["data"]


products = [line.strip() for line in open(products) if line.strip()]
supplier = post("/warehouse/suppliers", {"name": "Crash Supplier", "currency": "USD"})["id"]
storm = ["/api/v1/order-mgmt/orders/%s/confirm" % line.strip() for line in open(order_ids) if line.strip()]
for product in products:
    for _ in range(2):
        po = post("/warehouse/purchase-orders", {
            "supplier_id": supplier, "location_id": warehouse, "currency": "USD",
            "lines": [{"product_id": product, "quantity": 5, "unit_cost": 100}]})
        post("/warehouse/purchase-orders/%s/submit" % po["id"])
        receipt = json.dumps({"lines": [{"line_id": po["lines"][0]["id"], "quantity": 2}]}, separators=(",", ":"))
        storm += ["/api/v1/warehouse/purchase-orders/%s/receive %s" % (po["id"], receipt)] * 3
transfers = []
for product in products:
    for _ in range(3):
        transfers.append(post("/warehouse/transfers", {
            "from_location_id": warehouse, "to_location_id": store,
            "lines": [{"product_id": product, "quantity": 2}]})["id"])
storm += ["/api/v1/warehouse/transfers/%s/ship" % t for t in transfers]
random.shuffle(storm)
random.shuffle(transfers)
storm += ["/api/v1/warehouse/transfers/%s/receive" % t for t in transfers[:len(transfers) // 2]]
storm += ["/api/v1/warehouse/transfers/%s/cancel" % t for t in transfers[len(transfers) // 2:][:len(transfers) // 4]]
print("\n".join(storm))

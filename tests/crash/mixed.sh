#!/usr/bin/env bash
# `make crash-check`, second part: the warehouse's guarantees across a crash when order confirmations,
# purchase order receipts and transfers compete for the same stock. Two release instances share a
# throw-away database; ten products are stocked short and given a reorder point; purchase orders
# (5 units a line) and draft transfers of them are made through the API (tests/crash/seed_documents.py).
# The storm mixes every confirmation, three 2-unit receipts of every line (the third must be refused),
# every transfer's shipment, then receipts and in-transit cancellations of some transfers; it is split
# across the instances, A is killed with SIGKILL mid-storm and started again, and A's share is sent
# again through B. Once nothing moves, the checks below must hold.
# Exits 1 if any does not. Env: ORDERS (2000), KILL_AFTER (seconds, 1), PG (admin URL).
ORDERS=${ORDERS:-2000}; KILL_AFTER=${KILL_AFTER:-1}
DB=tally_crash_mixed
source "$(dirname "$0")/lib.sh"

fresh_database
pid_a=$(start $PORT_A)   # applies the migrations and seeds the reference data
pid_b=$(start $PORT_B)
sql -v orders="$ORDERS" -f "$root/tests/bench/seed_orders.sql" >/dev/null
scarce="SELECT md5('p' || n)::uuid FROM generate_series(1, 10) AS n"
# Stocked for four fifths of what the orders ask: reservations, shipments and receipts compete.
sql -c "UPDATE inventory i SET quantity_on_hand = (SELECT sum(l.quantity) * 4 / 5 FROM order_lines l WHERE l.product_id = i.product_id)
        WHERE i.product_id IN ($scarce)"
sql -c "UPDATE inventory SET reorder_point = quantity_on_hand / 4 WHERE product_id IN ($scarce)"
sql -c "INSERT INTO locations (id, code, name, type, country) VALUES (md5('bench-store')::uuid, 'BENCH-ST', 'Bench store', 'Retail', 'US')"
sql -c "CREATE TABLE crash_start AS SELECT product_id, sum(quantity_on_hand) AS on_hand FROM inventory GROUP BY product_id"
sql -c "SELECT id FROM orders WHERE order_number LIKE 'ORD-2099-%' ORDER BY random()" >"$work/ids"
sql -c "$scarce" >"$work/scarce"
token=$(access_token "http://127.0.0.1:$PORT_B" crash@tally.test Crash-Passw0rd)
python3 "$root/tests/crash/seed_documents.py" "http://127.0.0.1:$PORT_B" "$token" "$work/ids" \
  "$(sql -c "SELECT md5('bench-warehouse')::uuid")" "$(sql -c "SELECT md5('bench-store')::uuid")" "$work/scarce" >"$work/storm"
awk 'NR % 2 == 1' "$work/storm" >"$work/half_a"
awk 'NR % 2 == 0' "$work/storm" >"$work/half_b"

echo "== $(wc -l <"$work/storm") requests (confirmations, receipts, transfers) over two instances; A killed (SIGKILL) after ${KILL_AFTER}s"
storm $PORT_A "$work/half_a" "$work/storm_a.out" &
storm_a=$!
storm $PORT_B "$work/half_b" "$work/storm_b.out" &
storm_b=$!
sleep "$KILL_AFTER"
kill -9 "$pid_a"
echo "killed A with $(sql -c "SELECT (SELECT count(*) FROM orders WHERE status = 'confirmed') || ' orders confirmed, ' ||
  (SELECT coalesce(sum(quantity_received), 0) FROM purchase_order_lines) || ' units received, ' ||
  (SELECT count(*) FROM transfers WHERE shipped_at IS NOT NULL) || ' transfers shipped'")"
sleep 1
pid_a=$(start $PORT_A)
echo "A started again"
wait "$storm_b"
kill "$storm_a" 2>/dev/null || true   # its answers were lost to the crash, so it would not stop by itself
wait "$storm_a" 2>/dev/null || true
storm $PORT_B "$work/half_a" "$work/retry.out"   # A's share again, as a client would retry it

state() {
  sql -c "SELECT (SELECT count(*) FILTER (WHERE reservation_status = 'reserved') || ' reserved, ' ||
                         count(*) FILTER (WHERE reservation_status = 'failed') || ' failed, '
                  FROM orders WHERE order_number LIKE 'ORD-2099-%') ||
                 (SELECT string_agg(status || ' ' || n, ', ' ORDER BY status)
                  FROM (SELECT status, count(*) AS n FROM purchase_orders GROUP BY status) s) || '; ' ||
                 (SELECT string_agg(status || ' ' || n, ', ' ORDER BY status)
                  FROM (SELECT status, count(*) AS n FROM transfers GROUP BY status) s) || '; ' ||
                 $UNHANDLED || ' events unhandled'"
}
settle state

orders="FROM orders WHERE order_number LIKE 'ORD-2099-%'"
check "every order confirmed, and reserved or failed" \
  "SELECT bool_and(status = 'confirmed' AND reservation_status IN ('reserved', 'failed')) $orders"
check "some reservations failed on the scarce stock" \
  "SELECT count(*) FILTER (WHERE reservation_status = 'failed') > 0 $orders"
check_events_handled
check "nothing oversold" \
  "SELECT bool_and(quantity_on_hand >= 0 AND quantity_reserved BETWEEN 0 AND quantity_on_hand) FROM inventory"
check "stock reserved is exactly the reserved orders' lines" \
  "SELECT (SELECT coalesce(sum(quantity_reserved), 0) FROM inventory)
        = (SELECT coalesce(sum(l.quantity), 0) FROM order_lines l JOIN orders o ON o.id = l.order_id
           WHERE o.reservation_status = 'reserved')"
check "no purchase order line received more than ordered (the third 2-unit receipt of 5 is refused)" \
  "SELECT bool_and(quantity_received <= quantity_ordered) AND bool_or(quantity_received < quantity_ordered)
   FROM purchase_order_lines"
check "every unit received is one Receipt movement's, at the order's location" \
  "SELECT bool_and(l.quantity_received = (SELECT coalesce(sum(m.quantity), 0) FROM stock_movements m
                                           WHERE m.reference_type = 'purchase_order' AND m.reference_id = p.id
                                             AND m.type = 'Receipt' AND m.product_id = l.product_id
                                             AND m.location_id = p.location_id))
   FROM purchase_order_lines l JOIN purchase_orders p ON p.id = l.purchase_order_id"
check "every purchase order's status says what its lines received" \
  "SELECT bool_and(p.status = CASE WHEN received = 0 THEN 'ordered' WHEN received = ordered THEN 'received'
                                   ELSE 'partially_received' END)
   FROM purchase_orders p
   JOIN (SELECT purchase_order_id, sum(quantity_received) AS received, sum(quantity_ordered) AS ordered
         FROM purchase_order_lines GROUP BY purchase_order_id) l ON l.purchase_order_id = p.id"
check "every transfer moved its lines once at each end it reached" \
  "SELECT bool_and((SELECT count(*) FROM stock_movements m WHERE m.reference_type = 'transfer' AND m.reference_id = t.id)
                 = (SELECT count(*) FROM transfer_lines l WHERE l.transfer_id = t.id)
                   * CASE t.status WHEN 'draft' THEN 0 WHEN 'in_transit' THEN 1 WHEN 'received' THEN 2
                                   ELSE CASE WHEN t.shipped_at IS NULL THEN 0 ELSE 2 END END)
   FROM transfers t"
check "some transfers shipped, and some received" \
  "SELECT count(*) FILTER (WHERE shipped_at IS NOT NULL) > 0 AND count(*) FILTER (WHERE status = 'received') > 0
   FROM transfers"
check "no unit made or lost: on hand plus in transit is what was there plus what was received" \
  "SELECT bool_and(coalesce(h.on_hand, 0) + coalesce(t.moving, 0) = s.on_hand + coalesce(r.received, 0))
   FROM crash_start s
   LEFT JOIN (SELECT product_id, sum(quantity_on_hand) AS on_hand FROM inventory GROUP BY product_id) h USING (product_id)
   LEFT JOIN (SELECT l.product_id, sum(l.quantity) AS moving FROM transfer_lines l
              JOIN transfers t ON t.id = l.transfer_id WHERE t.status = 'in_transit' GROUP BY l.product_id) t USING (product_id)
   LEFT JOIN (SELECT product_id, sum(quantity_received) AS received FROM purchase_order_lines GROUP BY product_id) r USING (product_id)"
check "stock alerts: one low and one replenished a crossing, ending in the record's state, and some raised" \
  "SELECT bool_and(coalesce(a.low, 0) - coalesce(a.replenished, 0)
                   = CASE WHEN i.quantity_on_hand - i.quantity_reserved <= i.reorder_point THEN 1 ELSE 0 END)
          AND sum(coalesce(a.low, 0)) > 0
   FROM inventory i
   LEFT JOIN (SELECT (data->>'inventory_id')::uuid AS id,
                     count(*) FILTER (WHERE name = 'warehouse.stock_low') AS low,
                     count(*) FILTER (WHERE name = 'warehouse.stock_replenished') AS replenished
              FROM outbox_events WHERE name IN ('warehouse.stock_low', 'warehouse.stock_replenished')
              GROUP BY 1) a ON a.id = i.id
   WHERE i.reorder_point > 0"
echo "transfers: $(sql -c "SELECT string_agg(status || ' ' || n, ', ') FROM (SELECT status, count(*) n FROM transfers GROUP BY 1) s"); alerts: $(sql -c "SELECT count(*) FROM outbox_events WHERE name IN ('warehouse.stock_low', 'warehouse.stock_replenished')")"
verdict

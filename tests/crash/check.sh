#!/usr/bin/env bash
# `make crash-check`: the order flow's guarantees across a crash, checked from outside. Two release
# instances share a throw-away database; a storm of confirmations is split across them, instance A is
# killed with SIGKILL mid-storm and started again, and A's share is confirmed again through B (a client
# retrying what failed). Ten products are stocked short, so reservations compete and some must fail.
# Then, once nothing moves: every order confirmed, every confirmed order reserved or failed, no event
# left unhandled, no stock oversold, every reserved order holding exactly its lines once.
# Exits 1 if any of that does not hold. Env: ORDERS (3000), KILL_AFTER (seconds, 1), PG (admin URL),
# KILL_FOR_GOOD (1: A is never started again, and B must take over A's events in flight by itself,
# docs/bounded-work.md).
KILL_FOR_GOOD=${KILL_FOR_GOOD:-0}
ORDERS=${ORDERS:-3000}; KILL_AFTER=${KILL_AFTER:-1}
DB=tally_crash
source "$(dirname "$0")/lib.sh"

fresh_database
pid_a=$(start $PORT_A)   # applies the migrations and seeds the reference data
pid_b=$(start $PORT_B)
sql -v orders="$ORDERS" -f "$root/tests/bench/seed_orders.sql" >/dev/null
# Ten products stocked for four fifths of what the orders ask of them: some reservations must fail.
sql -c "UPDATE inventory i SET quantity_on_hand = (SELECT sum(l.quantity) * 4 / 5 FROM order_lines l WHERE l.product_id = i.product_id)
        WHERE i.product_id IN (SELECT md5('p' || n)::uuid FROM generate_series(1, 10) AS n)"
sql -c "SELECT '/api/v1/order-mgmt/orders/' || id || '/confirm' FROM orders WHERE order_number LIKE 'ORD-2099-%' ORDER BY random()" >"$work/ids"
split -n l/2 "$work/ids" "$work/half_"
token=$(access_token "http://127.0.0.1:$PORT_B" crash@tally.test Crash-Passw0rd)

echo "== $ORDERS confirmations over two instances; instance A killed (SIGKILL) after ${KILL_AFTER}s"
storm $PORT_A "$work/half_aa" "$work/storm_a.out" &
storm_a=$!
storm $PORT_B "$work/half_ab" "$work/storm_b.out" &
storm_b=$!
sleep "$KILL_AFTER"
kill -9 "$pid_a"
echo "killed A with $(sql -c "SELECT count(*) FILTER (WHERE status = 'confirmed') || ' confirmed, ' ||
  count(*) FILTER (WHERE reservation_status = 'reserved') || ' reserved' FROM orders WHERE order_number LIKE 'ORD-2099-%'")"
sleep 1
if [ "$KILL_FOR_GOOD" = 1 ]; then
  echo "A stays dead: B must take over its events in flight"
else
  pid_a=$(start $PORT_A)
  echo "A started again"
fi
wait "$storm_b"
# A's storm lost answers to the crash, so it would not stop by itself.
kill "$storm_a" 2>/dev/null || true
wait "$storm_a" 2>/dev/null || true
storm $PORT_B "$work/half_aa" "$work/retry.out"   # A's share again, as a client would retry it

# Settled when the counts have not moved for three seconds; with A dead for good, also only once no
# event is left unhandled (B takes A's over 30-40 s after A's last sign of life).
state() {
  sql -c "SELECT count(*) FILTER (WHERE status = 'confirmed') || ' confirmed, ' ||
            count(*) FILTER (WHERE reservation_status = 'reserved') || ' reserved, ' ||
            count(*) FILTER (WHERE reservation_status = 'failed') || ' failed, ' ||
            $UNHANDLED || ' events unhandled'
          FROM orders WHERE order_number LIKE 'ORD-2099-%'"
}
settle state

orders="FROM orders WHERE order_number LIKE 'ORD-2099-%'"
check "every order confirmed" "SELECT bool_and(status = 'confirmed') $orders"
check "every confirmed order reserved or failed" \
  "SELECT bool_and(reservation_status IN ('reserved', 'failed')) $orders"
check "some reservations failed on the scarce stock (the check has teeth)" \
  "SELECT count(*) FILTER (WHERE reservation_status = 'failed') > 0 $orders"
check_events_handled
check "nothing oversold" \
  "SELECT bool_and(quantity_reserved BETWEEN 0 AND quantity_on_hand) FROM inventory"
check "stock reserved is exactly the reserved orders' lines" \
  "SELECT (SELECT coalesce(sum(quantity_reserved), 0) FROM inventory)
        = (SELECT coalesce(sum(l.quantity), 0) FROM order_lines l JOIN orders o ON o.id = l.order_id
           WHERE o.reservation_status = 'reserved')"
check "every reserved order reserved once per line" \
  "SELECT bool_and((SELECT count(*) FROM stock_movements m WHERE m.reference_id = o.id)
                 = (SELECT count(*) FROM order_lines l WHERE l.order_id = o.id))
   FROM orders o WHERE o.reservation_status = 'reserved' AND o.order_number LIKE 'ORD-2099-%'"
check "a failed order holds no stock" \
  "SELECT NOT EXISTS (SELECT 1 FROM stock_movements m JOIN orders o ON o.id = m.reference_id
                      WHERE o.reservation_status = 'failed')"
verdict

#!/usr/bin/env bash
# `make crash-check`: the order flow's guarantees across a crash, checked from outside. Two release
# instances share a throw-away database; a storm of confirmations is split across them, instance A is
# killed with SIGKILL mid-storm and started again, and A's share is confirmed again through B (a client
# retrying what failed). Ten products are stocked short, so reservations compete and some must fail.
# Then, once nothing moves: every order confirmed, every confirmed order reserved or failed, no event
# left unhandled, no stock oversold, every reserved order holding exactly its lines once.
# Exits 1 if any of that does not hold. Env: ORDERS (3000), KILL_AFTER (seconds, 1), PG (admin URL),
# KILL_FOR_GOOD (1: A is never started again, and B must take over A's events in flight by itself,
# docs/bounded-work.md; docs/bounded-work.md).
KILL_FOR_GOOD=${KILL_FOR_GOOD:-0}
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ORDERS=${ORDERS:-3000}; KILL_AFTER=${KILL_AFTER:-1}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}
DB=tally_crash; URL=${PG%/*}/$DB; PORT_A=18721; PORT_B=18722
work=$(mktemp -d)
pid_a=; pid_b=

source "$root/tests/support/release.sh"
need_wrk crash-check
cd "$root"
build_release

cleanup() {
  kill "$pid_a" "$pid_b" 2>/dev/null || true
  wait 2>/dev/null || true
  psql "$PG" -qAtX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
sql() { psql "$URL" -qAtX -v ON_ERROR_STOP=1 "$@"; }

# Starts an instance on PORT in the background and waits until it is healthy; prints its pid.
start() {
  local port=$1
  DATABASE_URL=$URL BIND_ADDR=127.0.0.1:$port DATABASE_POOL_SIZE=16 RATE_LIMIT_ENABLED=false BCRYPT_COST=4 \
    JWT_SECRET=crash-check-secret-0123456789abcdefghijklmnopqrstuvwxyz ADMIN_EMAIL=crash@tally.test \
    ADMIN_PASSWORD=Crash-Passw0rd LOG_FORMAT=json RUST_LOG=warn "$bin" serve >>"$work/tally-$port.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 600); do
    if curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; then echo "$pid"; return; fi
    sleep 0.02
  done
  echo "crash-check: the instance on $port did not become healthy; its log:" >&2
  cat "$work/tally-$port.log" >&2
  exit 1
}
storm() {  # PORT IDS_FILE OUT_FILE
  env TOKEN="$token" IDS="$2" wrk -t1 -c16 -d120s -s "$root/tests/bench/confirm.lua" "http://127.0.0.1:$1" >"$3" 2>&1
}

PGOPTIONS="-c client_min_messages=warning" psql "$PG" -qAtX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
pid_a=$(start $PORT_A)   # applies the migrations and seeds the reference data
pid_b=$(start $PORT_B)
sql -v orders="$ORDERS" -f "$root/tests/bench/seed_orders.sql" >/dev/null
# Ten products stocked for four fifths of what the orders ask of them: some reservations must fail.
sql -c "UPDATE inventory i SET quantity_on_hand = (SELECT sum(l.quantity) * 4 / 5 FROM order_lines l WHERE l.product_id = i.product_id)
        WHERE i.product_id IN (SELECT md5('p' || n)::uuid FROM generate_series(1, 10) AS n)"
sql -c "SELECT id FROM orders WHERE order_number LIKE 'ORD-2099-%' ORDER BY random()" >"$work/ids"
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

# Settled when the counts have not moved for three seconds (at most two minutes); with A dead for good,
# also only once no event is left unhandled (B takes A's over 30-40 s after A's last sign of life).
state() {
  sql -c "SELECT count(*) FILTER (WHERE status = 'confirmed') || ' confirmed, ' ||
            count(*) FILTER (WHERE reservation_status = 'reserved') || ' reserved, ' ||
            count(*) FILTER (WHERE reservation_status = 'failed') || ' failed, ' ||
            ((SELECT count(*) FROM outbox_events WHERE published_at IS NULL) + (SELECT count(*) FROM outbox_in_flight)) || ' events unhandled'
          FROM orders WHERE order_number LIKE 'ORD-2099-%'"
}
last=; still=0
for _ in $(seq 1 120); do
  now=$(state)
  if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi
  if [ $still -ge 3 ] && { [ "$KILL_FOR_GOOD" != 1 ] || [[ "$now" == *" 0 events unhandled" ]]; }; then break; fi
  last=$now
  sleep 1
done
echo "settled: $now"

failed=0
check() {  # LABEL SQL (must answer t)
  if [ "$(sql -c "$2")" = t ]; then echo "ok:   $1"; else echo "FAIL: $1"; failed=1; fi
}
orders="FROM orders WHERE order_number LIKE 'ORD-2099-%'"
check "every order confirmed" "SELECT bool_and(status = 'confirmed') $orders"
check "every confirmed order reserved or failed" \
  "SELECT bool_and(reservation_status IN ('reserved', 'failed')) $orders"
check "some reservations failed on the scarce stock (the check has teeth)" \
  "SELECT count(*) FILTER (WHERE reservation_status = 'failed') > 0 $orders"
check "every event handled" \
  "SELECT NOT EXISTS (SELECT 1 FROM outbox_events WHERE published_at IS NULL)
     AND NOT EXISTS (SELECT 1 FROM outbox_in_flight)"
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
if [ $failed -ne 0 ]; then
  echo "crash-check: FAILED; the instances' logs:"; tail -n 20 "$work"/tally-*.log
  exit 1
fi
echo "crash-check: every guarantee held"

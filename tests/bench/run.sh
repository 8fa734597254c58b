#!/usr/bin/env bash
# `make bench-http`: what a maintainer runs before a release. Builds the release binary, serves it on a
# throw-away database and measures, from outside with wrk: start-up, the two hot paths (authenticated
# read, create with its outbox event) with the outbox lag under the write load, lists with filters and
# search over CUSTOMERS customers, the order flow end to end (ORDERS confirmations until every order is
# reserved), and peak memory. Prints figures and asserts nothing; docs/performance.md says how to read them.
# Env: DUR (seconds per load run, default 10), CONN (connections, 32), POOL (pool size, 16),
#      CUSTOMERS (1000000), ORDERS (5000), PG (admin URL), PORT (18710),
#      PARTS (which parts to run, default "hot lists flow"; start-up and memory are always reported).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/bench
DUR=${DUR:-10}; CONN=${CONN:-32}; POOL=${POOL:-16}; CUSTOMERS=${CUSTOMERS:-1000000}; ORDERS=${ORDERS:-5000}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}; PORT=${PORT:-18710}; PARTS=${PARTS:-hot lists flow}
DB=tally_bench; URL=${PG%/*}/$DB; BASE=http://127.0.0.1:$PORT
work=$(mktemp -d)
pid=

source "$root/tests/support/release.sh"
need_wrk bench
cd "$root"
build_release

stop() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=; fi; }
trap 'stop; rm -rf "$work"' EXIT
now_ms() { date +%s%3N; }
part() { [[ " $PARTS " == *" $1 "* ]]; }
sql() { psql "$URL" -qAtX -v ON_ERROR_STOP=1 "$@"; }

# Starts tally (not in a subshell: `pid` is kept); sets `started_ms`, spawn to a healthy /health.
start() {
  local began; began=$(now_ms)
  DATABASE_URL=$URL BIND_ADDR=127.0.0.1:$PORT DATABASE_POOL_SIZE=$POOL RATE_LIMIT_ENABLED=false BCRYPT_COST=4 \
    JWT_SECRET=bench-only-secret-$RANDOM-$RANDOM-$RANDOM-$RANDOM ADMIN_EMAIL=bench@tally.test \
    ADMIN_PASSWORD=Bench-Passw0rd LOG_FORMAT=json RUST_LOG=warn "$bin" serve >>"$work/tally.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    if curl -fs "$BASE/health" >/dev/null 2>&1; then started_ms=$(($(now_ms) - began)); return; fi
    sleep 0.01
  done
  echo "bench: tally did not become healthy; its log:" >&2; cat "$work/tally.log" >&2; exit 1
}

# CPU time used so far, in clock ticks: "<tally> <every PostgreSQL process>". Steadier than req/s on a
# machine whose speed drifts; PostgreSQL's share counts the whole server, so keep the machine idle.
tick=$(getconf CLK_TCK)
cpu_ticks() {
  local pg=0 p t
  for p in $(pgrep -x postgres); do t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) && pg=$((pg + t)); done
  echo "$(awk '{print $14 + $15}' "/proc/$pid/stat") $pg"
}
# CPU per unit between two cpu_ticks readings: "tally X ms  postgres Y ms".
cpu_per() {  # BEFORE AFTER UNITS
  awk -v b="$1" -v a="$2" -v n="$3" -v hz="$tick" 'BEGIN { split(b, x, " "); split(a, y, " ");
    printf "tally %.3f ms  postgres %.3f ms", (y[1] - x[1]) * 1000 / hz / n, (y[2] - x[2]) * 1000 / hz / n }'
}

# wrk over SCRIPT with env; prints "req/s p50_ms p99_ms non2xx" and the CPU per request.
load() {
  local script=$1 seconds=$2 before; shift 2
  before=$(cpu_ticks)
  env "$@" wrk -t1 -c"$CONN" -d"${seconds}s" --latency -s "$here/$script" "$BASE" >"$work/wrk.out" 2>&1
  local requests; requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
  awk 'function ms(v) { if (v ~ /us$/) { sub(/us/, "", v); return v / 1000 } if (v ~ /ms$/) { sub(/ms/, "", v); return v + 0 }
                        if (v ~ /s$/) { sub(/s/, "", v); return v * 1000 } return v }
       /Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) } /Non-2xx/ { bad = $5 }
       END { printf "%8.0f req/s  p50 %7.2f ms  p99 %7.2f ms  non-2xx %d", rps, p50, p99, bad }' "$work/wrk.out"
  echo "  cpu/request: $(cpu_per "$before" "$(cpu_ticks)" "${requests:-1}")"
}

psql "$PG" -qAtXc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
psql "$PG" -qAtXc "CREATE DATABASE $DB" >/dev/null
# One psql session for the loops that poll while load runs: a psql started per poll costs tens of
# milliseconds of CPU, which a loop polling every 20 ms would take from the server it measures.
coproc POLLER { psql "$URL" -qAtX; }
exec 7>&"${POLLER[1]}" 8<&"${POLLER[0]}"
poll() { echo "$1;" >&7; local line; IFS= read -r line <&8; echo "$line"; }
echo "== Start-up (release build, pool $POOL, $(nproc) cores)"
start; echo "first start, migrations applied on the way: $started_ms ms"
stop
start; echo "start-up to healthy, migrations already applied: $started_ms ms"
token=$(access_token "$BASE" bench@tally.test Bench-Passw0rd)

if part hot; then
echo "== Hot paths ($CONN connections, ${DUR}s each)"
# Scrape the outbox lag while the writes run.
( while :; do curl -fs "$BASE/metrics" | awk '$1 ~ /outbox_lag_milliseconds$/ {print $2}'; sleep 0.25; done ) >"$work/lag" 2>/dev/null &
scraper=$!
echo "POST /customers (row + outbox event): $(load create_customer.lua "$DUR" TOKEN="$token" RUN="$RANDOM")"
kill $scraper 2>/dev/null; wait $scraper 2>/dev/null || true
drain_began=$(now_ms)
until [ "$(poll "SELECT (SELECT count(*) FROM outbox_events WHERE published_at IS NULL) + (SELECT count(*) FROM outbox_in_flight)")" = 0 ]; do sleep 0.05; done
echo "outbox lag during the writes: max $(sort -g "$work/lag" | tail -1) ms (scraped every 0.25 s);" \
     "every event handled $(($(now_ms) - drain_began)) ms after the load stopped"
sql -c "SELECT '/api/v1/customer-mgmt/customers/' || id FROM customers ORDER BY random() LIMIT 20000" >"$work/reads"
echo "GET /customers/{id}:                 $(load paths.lua "$DUR" TOKEN="$token" PATHS="$work/reads")"
fi

if part lists; then
echo "== Lists over $CUSTOMERS customers (page of 20 with total; ${DUR}s each)"
began=$(now_ms)
# The hot paths' customers (all leads, all newer than the seeded ones) would sit at the head of every
# newest-first list, where no shape below matches them: the lists are measured over the seeded
# customers alone (docs/performance.md, "`make bench`").
sql -c "SET client_min_messages = warning; TRUNCATE customers CASCADE"
sql -v customers="$CUSTOMERS" -f "$here/seed_customers.sql"
sql -c "VACUUM (ANALYZE) customers, customer_tags"  # what autovacuum would have done by now: index-only counts
echo "(seeded in $(($(now_ms) - began)) ms)"
list=/api/v1/customer-mgmt/customers
rep=$(sql -c "SELECT md5('rep7')::uuid")
while read -r label query; do
  : >"$work/paths"
  for page in 1 2 3 4 5; do echo "$list?${query//PAGE/$page}" >>"$work/paths"; done
  printf '%-34s %s\n' "$label" "$(load paths.lua "$DUR" TOKEN="$token" PATHS="$work/paths")"
done <<EOF
newest-first               page=PAGE&page_size=20
status=customer            status=customer&page=PAGE
tier=pro,sort=name         tier=pro&sort=name&page=PAGE
tags=vip,status=lead       tags=vip&status=lead&page=PAGE
assigned_to=rep            assigned_to=$rep&page=PAGE
search=digits              search=12345&page=PAGE
search=email               search=c77777%40bench&page=PAGE
search=common-word         search=customer%2099&page=PAGE
EOF
fi

if part flow; then
echo "== Order flow ($ORDERS orders of two lines, confirmed by $CONN connections)"
sql -v orders="$ORDERS" -f "$here/seed_orders.sql"
sql -c "SELECT '/api/v1/order-mgmt/orders/' || id || '/confirm' FROM orders WHERE order_number LIKE 'ORD-2099-%' ORDER BY random()" >"$work/orders"
began=$(now_ms); flow_cpu=$(cpu_ticks)
env TOKEN="$token" REQUESTS="$work/orders" wrk -t1 -c"$CONN" -d600s -s "$here/../support/posts.lua" "$BASE" >"$work/confirm.out" 2>&1 &
storm=$!
counts() { poll "SELECT count(*) FILTER (WHERE status = 'confirmed'), count(*) FILTER (WHERE reservation_status = 'reserved')
                   FROM orders WHERE order_number LIKE 'ORD-2099-%'"; }
# Done when every order is confirmed and reserved; a count that stops moving for 3 s ends a phase too
# (a confirmation lost to a connection error, or a reservation that failed), and is reported as it is.
confirmed_ms=; reserved_ms=; last=; still_since=$(now_ms)
while [ -z "$reserved_ms" ]; do
  IFS='|' read -r confirmed reserved <<<"$(counts)"
  if [ "$confirmed|$reserved" != "$last" ]; then last="$confirmed|$reserved"; still_since=$(now_ms); fi
  stalled=$(( $(now_ms) - still_since > 3000 ))
  if [ -z "$confirmed_ms" ] && { [ "$confirmed" -ge "$ORDERS" ] || [ "$stalled" = 1 ]; }; then
    confirmed_ms=$(($(now_ms) - began - (stalled ? 3000 : 0))); kill $storm 2>/dev/null || true
  fi
  if [ -n "$confirmed_ms" ] && { [ "$reserved" -ge "$confirmed" ] || [ "$stalled" = 1 ]; }; then
    reserved_ms=$(($(now_ms) - began - (stalled ? 3000 : 0)))
  fi
  sleep 0.1  # each poll costs the database a few milliseconds; 0.1 s is within 2 % of a run
done
wait $storm 2>/dev/null || true
flow_cpu=$(cpu_per "$flow_cpu" "$(cpu_ticks)" "$ORDERS")
IFS='|' read -r confirmed reserved <<<"$(counts)"
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.0f", (t > 0 ? n * 1000 / t : 0)}'; }
echo "confirmed: $confirmed of $ORDERS in $confirmed_ms ms ($(rate "$confirmed" "$confirmed_ms") orders/s;" \
     "wrk: $(grep -o 'Socket errors.*' "$work/confirm.out" || echo 'no socket errors'))"
echo "reserved:  $reserved of $confirmed confirmed, the last $reserved_ms ms after the storm began" \
     "($(rate "$reserved" "$reserved_ms") orders/s reserved end to end)"
echo "cpu/order (confirmation to reservation, the polling included): $flow_cpu"
echo "stock check: $(sql -c "SELECT CASE WHEN bool_and(quantity_reserved <= quantity_on_hand) AND sum(quantity_reserved) = 3 * $reserved
                                 THEN 'every order reserved exactly once, nothing oversold'
                                 ELSE 'MISMATCH: ' || sum(quantity_reserved) || ' units reserved, orders need ' || 3 * $reserved END
                          FROM inventory WHERE location_id = md5('bench-warehouse')::uuid")"
fi

echo "== Memory"
echo "peak RSS of tally over the whole run: $(awk '/VmHWM/ {printf "%.1f MiB", $2 / 1024}' /proc/$pid/status)"

#!/usr/bin/env bash
# `make bench-import`: bulk data in and out, side by side with PostgreSQL's own COPY in the same run
# (docs/imports-and-exports.md, "Measured"). Builds the release binary, serves it on a throw-away
# database and measures:
#   - an import of ROWS customers from CSV (upload to job finished) against `COPY … FROM` of the same
#     rows into a copy of the customers table with its indexes (`LIKE customers INCLUDING ALL`);
#   - a CSV export of EXPORT customers against `COPY (SELECT …) TO STDOUT` of the same columns;
#   - tally's peak resident memory through each.
# Prints figures and asserts nothing.
# Env: ROWS (100000), EXPORT (1000000), PG (admin URL), PORT (18720), POOL (16).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ROWS=${ROWS:-100000}; EXPORT=${EXPORT:-1000000}; POOL=${POOL:-16}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}; PORT=${PORT:-18720}
DB=tally_bench_import; URL=${PG%/*}/$DB; BASE=http://127.0.0.1:$PORT
work=$(mktemp -d)
pid=
sampler=

source "$root/tests/support/release.sh"
cd "$root"
build_release

stop() {
  if [ -n "$sampler" ]; then kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; sampler=; fi
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=; fi
}
trap 'stop; rm -rf "$work"' EXIT
now_ms() { date +%s%3N; }
sql() { psql "$URL" -qAtX -v ON_ERROR_STOP=1 "$@"; }

psql "$PG" -qAtXc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null
psql "$PG" -qAtXc "CREATE DATABASE $DB" >/dev/null

DATABASE_URL=$URL BIND_ADDR=127.0.0.1:$PORT DATABASE_POOL_SIZE=$POOL RATE_LIMIT_ENABLED=false BCRYPT_COST=4 \
  JWT_SECRET=bench-only-secret-$RANDOM-$RANDOM-$RANDOM-$RANDOM ADMIN_EMAIL=bench@tally.test \
  ADMIN_PASSWORD=Bench-Passw0rd LOG_FORMAT=json RUST_LOG=warn "$bin" serve >>"$work/tally.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do curl -fs "$BASE/health" >/dev/null 2>&1 && break; sleep 0.05; done
curl -fs "$BASE/health" >/dev/null || { echo "bench-import: tally did not start; its log:" >&2; cat "$work/tally.log" >&2; exit 1; }
token=$(access_token "$BASE" bench@tally.test Bench-Passw0rd)

# Peak RSS (KiB) of tally while a part runs, sampled every 50 ms into a file.
sample_rss() {
  : >"$work/rss"
  ( peak=0; while kill -0 "$pid" 2>/dev/null; do
      rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
      [ "${rss:-0}" -gt "$peak" ] && peak=$rss && echo "$peak" >"$work/rss"
      sleep 0.05
    done ) &
  sampler=$!
}
peak_rss() {
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; sampler=
  awk '{printf "%.1f MiB", $1 / 1024}' "$work/rss"
}
rate() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.0f rows/s (%.2f s)", n * 1000 / (ms > 0 ? ms : 1), ms / 1000 }'; }

echo "== Import of $ROWS customers from CSV ($(nproc) cores)"
python3 - "$ROWS" "$work" <<'PY'
import sys, uuid
rows, work = int(sys.argv[1]), sys.argv[2]
with open(f"{work}/import.csv", "w") as upload, open(f"{work}/copy.csv", "w") as copy:
    upload.write("name,email,phone,tags,status,tier\n")
    for n in range(1, rows + 1):
        upload.write(f"Customer {n},c{n}@import.test,,vip;b2b,lead,free\n")
        copy.write(f"{uuid.uuid4()},Customer {n},c{n}@copy.test,\"{{vip,b2b}}\",lead,free\n")
PY
sql -c "CREATE TABLE bench_customers (LIKE customers INCLUDING ALL)"
began=$(now_ms)
sql -c "\\copy bench_customers (id, name, email, tags, status, tier) FROM '$work/copy.csv' WITH (FORMAT csv)"
copy_ms=$(($(now_ms) - began))
sample_rss
began=$(now_ms)
job=$(curl -fs -X POST "$BASE/api/v1/imports/customers" -H "authorization: Bearer $token" \
  -H 'content-type: text/csv' --data-binary "@$work/import.csv" \
  | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["id"])')
while :; do
  status=$(curl -fs "$BASE/api/v1/imports/$job" -H "authorization: Bearer $token" \
    | python3 -c 'import sys,json;d=json.load(sys.stdin)["data"];print(d["status"], d["created"], d["failed_rows"])')
  case $status in succeeded*|failed*|cancelled*) break ;; esac
  sleep 0.2
done
import_ms=$(($(now_ms) - began))
echo "COPY into a copy of customers:  $(rate "$ROWS" "$copy_ms")"
echo "tally import (upload to end):   $(rate "$ROWS" "$import_ms")  job: $status (status created failed)"
awk -v c="$copy_ms" -v i="$import_ms" 'BEGIN { printf "import speed / COPY speed:      %.2f\n", c / (i > 0 ? i : 1) }'
echo "tally peak RSS during import:   $(peak_rss)"

echo "== CSV export of $EXPORT customers"
sql -c "TRUNCATE bench_customers"
sql -v customers="$EXPORT" -f "$root/tests/bench/seed_customers.sql" >/dev/null
count=$(sql -c "SELECT count(*) FROM customers WHERE deleted_at IS NULL")
columns="id, user_id, company_id, CASE WHEN company_id IS NULL THEN 'individual' ELSE 'company' END, name, email, \
phone, status, tier, source, assigned_to, tags, created_at, updated_at, churned_at"
began=$(now_ms)
bytes_copy=$(sql -c "COPY (SELECT $columns FROM customers WHERE deleted_at IS NULL ORDER BY created_at DESC, id DESC) TO STDOUT WITH (FORMAT csv)" | wc -c)
copy_ms=$(($(now_ms) - began))
sample_rss
began=$(now_ms)
bytes_tally=$(curl -fs "$BASE/api/v1/exports/customers?format=csv" -H "authorization: Bearer $token" | wc -c)
export_ms=$(($(now_ms) - began))
echo "COPY (SELECT …) TO STDOUT:      $(rate "$count" "$copy_ms")  $bytes_copy bytes"
echo "tally export:                   $(rate "$count" "$export_ms")  $bytes_tally bytes"
awk -v c="$copy_ms" -v e="$export_ms" 'BEGIN { printf "export speed / COPY speed:      %.2f\n", c / (e > 0 ? e : 1) }'
echo "tally peak RSS during export:   $(peak_rss)"
stop
psql "$PG" -qAtXc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null

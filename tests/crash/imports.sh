#!/usr/bin/env bash
# `make crash-check`, third part: an import job killed with SIGKILL half-way ends with every row done
# exactly once. A CSV of ROWS customers (every 1 000th with a bad email, so row errors are stored too) is
# uploaded to instance A, the only runner; once A has committed a batch it is killed.
#   alone:  A is started again and resumes the job.
#   three:  B and C are running when A is killed for good; one of them takes the job over.
# Each scenario runs on both buses (in-process, and Redis streams). Checks, once the job has ended: it
# resumed within 60 s of the kill; it succeeded with every row processed once (created + failed = ROWS);
# one customer and one `customer.created` event per good row, one stored error per bad row, one
# `import.completed` event; every event handled. Exits 1 if any does not hold.
# Env: ROWS (60000), PG (admin URL), REDIS_URL (redis://127.0.0.1:6379).
ROWS=${ROWS:-60000}
DB=tally_crash_imports
source "$(dirname "$0")/lib.sh"
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}

python3 - "$ROWS" "$work/customers.csv" <<'PY'
import sys
rows, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    f.write("name,email,tags,status\n")
    for n in range(1, rows + 1):
        email = "not-an-email" if n % 1000 == 0 else f"c{n}@crash-import.test"
        f.write(f"Crash Customer {n},{email},vip;b2b,lead\n")
PY
bad=$((ROWS / 1000)); good=$((ROWS - bad))

job_field() {  # JOB FIELD
  sql -c "SELECT $2 FROM import_jobs WHERE id = '$1'"
}

scenario() {  # alone|three in-process|redis
  local layout=$1 bus=$2 prefix="crash-$RANDOM$RANDOM"
  local settings=(EVENT_BUS="$bus" REDIS_URL="$REDIS_URL" REDIS_KEY_PREFIX="$prefix")
  echo "== $ROWS rows, runner killed half-way: $layout, $bus bus"
  fresh_database
  pid_a=$(start $PORT_A "${settings[@]}")
  local token job done_at killed_at resumed_at=
  token=$(access_token "http://127.0.0.1:$PORT_A" crash@tally.test Crash-Passw0rd)
  job=$(curl -fs -X POST "http://127.0.0.1:$PORT_A/api/v1/imports/customers" -H "authorization: Bearer $token" \
    -H 'content-type: text/csv' --data-binary "@$work/customers.csv" \
    | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["id"])')
  if [ "$layout" = three ]; then
    pid_b=$(start $PORT_B "${settings[@]}")
    pid_c=$(start $PORT_C "${settings[@]}")
  fi
  for _ in $(seq 1 600); do
    [ "$(job_field "$job" processed_rows)" -gt 0 ] && break
    sleep 0.05
  done
  local at_kill
  at_kill=$(job_field "$job" processed_rows)
  kill -9 "$pid_a"; wait "$pid_a" 2>/dev/null || true; pid_a=
  killed_at=$(date +%s)
  echo "killed A with $at_kill of $ROWS rows processed"
  [ "$layout" = alone ] && { pid_a=$(start $PORT_A "${settings[@]}"); echo "A started again"; }
  for _ in $(seq 1 1800); do
    if [ -z "$resumed_at" ] && [ "$(job_field "$job" processed_rows)" -gt "$at_kill" ]; then resumed_at=$(date +%s); fi
    case $(job_field "$job" status) in succeeded|failed|cancelled) break ;; esac
    sleep 0.1
  done
  done_at=$(date +%s)
  state() { sql -c "SELECT $UNHANDLED || ' events unhandled'"; }
  settle state >/dev/null
  echo "job $(job_field "$job" "status || ', ' || processed_rows || ' processed, ' || created || ' created, ' || failed_rows || ' failed'")," \
    "resumed $(( ${resumed_at:-$done_at} - killed_at )) s after the kill, ended after $((done_at - killed_at)) s"
  check "resumed within 60 s of the kill" "SELECT ${resumed_at:-0} > 0 AND ${resumed_at:-0} - $killed_at <= 60"
  check "the job succeeded with every row processed once" \
    "SELECT status = 'succeeded' AND processed_rows = $ROWS AND total_rows = $ROWS AND created = $good
            AND failed_rows = $bad AND updated = 0 AND unchanged = 0 FROM import_jobs WHERE id = '$job'"
  check "one customer per good row" \
    "SELECT count(*) = $good AND count(DISTINCT lower(email)) = $good FROM customers WHERE email LIKE '%@crash-import.test'"
  check "one customer.created event per customer" \
    "SELECT count(*) = $good AND count(DISTINCT e.aggregate_id) = $good
     FROM outbox_events e JOIN customers c ON c.id = e.aggregate_id
     WHERE e.name = 'customer.created' AND c.email LIKE '%@crash-import.test'"
  check "one stored error per bad row, naming the email" \
    "SELECT count(*) = $bad AND count(DISTINCT row_number) = $bad AND bool_and(field = 'email')
     FROM import_row_errors WHERE job_id = '$job'"
  check "one import.completed event" \
    "SELECT count(*) = 1 FROM outbox_events WHERE name = 'import.completed' AND aggregate_id = '$job'"
  check_events_handled
  kill $pid_a $pid_b $pid_c 2>/dev/null || true; wait 2>/dev/null || true
  pid_a=; pid_b=; pid_c=
}

for bus in in-process redis; do
  scenario alone "$bus"
  scenario three "$bus"
done
verdict

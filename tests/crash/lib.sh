# Sourced by the crash checks (tests/crash/check.sh, tests/crash/mixed.sh): two release instances on a
# throw-away database DB, started, killed and started again from outside. Sets `root`, `URL`, `work`,
# `bin`; `pid_a`, `pid_b` and `pid_c` are the instances' pids, stopped (and the database dropped) on exit.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}
URL=${PG%/*}/$DB; PORT_A=18721; PORT_B=18722; PORT_C=18723
work=$(mktemp -d)
pid_a=; pid_b=; pid_c=; failed=0

source "$root/tests/support/release.sh"
need_wrk "$(basename "$0")"
cd "$root"
build_release

cleanup() {
  kill $pid_a $pid_b $pid_c 2>/dev/null || true
  wait 2>/dev/null || true
  psql "$PG" -qAtX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
sql() { psql "$URL" -qAtX -v ON_ERROR_STOP=1 "$@"; }

# A new, empty database DB.
fresh_database() {
  PGOPTIONS="-c client_min_messages=warning" psql "$PG" -qAtX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
    -c "CREATE DATABASE $DB" >/dev/null
}

# Starts an instance on PORT in the background, with any further VAR=value settings, and waits until
# it is healthy; prints its pid.
start() {
  local port=$1; shift
  env "$@" DATABASE_URL=$URL BIND_ADDR=127.0.0.1:$port DATABASE_POOL_SIZE=16 RATE_LIMIT_ENABLED=false BCRYPT_COST=4 \
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

# Waits until STATE_FUNCTION's answer has not moved for three seconds (at most two minutes); with
# KILL_FOR_GOOD=1, also until it ends in " 0 events unhandled". Prints the last answer.
settle() {  # STATE_FUNCTION
  local last= now still=0
  for _ in $(seq 1 120); do
    now=$($1)
    if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi
    if [ $still -ge 3 ] && { [ "${KILL_FOR_GOOD:-0}" != 1 ] || [[ "$now" == *" 0 events unhandled" ]]; }; then break; fi
    last=$now
    sleep 1
  done
  echo "settled: $now"
}

# SQL: how many events are not yet handed to the bus or not yet finished by its handlers.
UNHANDLED="((SELECT count(*) FROM outbox_events WHERE published_at IS NULL) + (SELECT count(*) FROM outbox_in_flight))"

# POSTs every line of REQUESTS_FILE (`PATH [BODY]`, tests/support/posts.lua) to the instance on
# PORT, 16 at a time, as the admin (`token`); wrk's report goes to OUT_FILE.
storm() {  # PORT REQUESTS_FILE OUT_FILE
  env TOKEN="$token" REQUESTS="$2" wrk -t1 -c16 -d120s -s "$root/tests/support/posts.lua" "http://127.0.0.1:$1" >"$3" 2>&1
}

check() {  # LABEL SQL (must answer t)
  if [ "$(sql -c "$2")" = t ]; then echo "ok:   $1"; else echo "FAIL: $1"; failed=1; fi
}
check_events_handled() {
  check "every event handled" "SELECT $UNHANDLED = 0"
}

# Exits 1 with the instances' logs if any check failed.
verdict() {
  if [ $failed -ne 0 ]; then
    echo "$(basename "$0"): FAILED; the instances' logs:"; tail -n 20 "$work"/tally-*.log
    exit 1
  fi
  echo "$(basename "$0"): every guarantee held"
}

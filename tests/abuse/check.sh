#!/usr/bin/env bash
# `make abuse`: the protections of docs/bounded-work.md checked from outside, all at once. One instance
# with the real rate limits on a throw-away database; tests/abuse/drive.py holds hundreds of stalled and
# trickled bodies, throws error-list bombs, floods /health and made-up API keys, while a well-behaved
# client keeps reading and writing. Exits 1 if the good client saw an error or the server's peak RSS
# passed MAX_RSS_MIB. docs/abuse.md says how to read the output.
# Env: DURATION (seconds, 30), BIN (a tally binary to use instead of building the release one),
#      STALLED (300), LORIS (50), BOMBS (2), HEALTH (16), KEYS (8), GOOD (2), MAX_RSS_MIB (256),
#      PG (admin URL), PORT (18731).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export DURATION=${DURATION:-30} MAX_RSS_MIB=${MAX_RSS_MIB:-256}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}; export PORT=${PORT:-18731}
DB=tally_abuse; URL=${PG%/*}/$DB; BASE=http://127.0.0.1:$PORT
EMAIL=abuse@tally.test; PASSWORD=Abuse-Passw0rd
work=$(mktemp -d)
pid=

source "$root/tests/support/release.sh"
cd "$root"
if [ -n "${BIN:-}" ]; then bin=$(realpath "$BIN"); else build_release; fi

cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  psql "$PG" -qAtX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# The attackers hold a few hundred sockets at once.
ulimit -n 4096 2>/dev/null || true

PGOPTIONS="-c client_min_messages=warning" psql "$PG" -qAtX -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
# The real limits (RATE_LIMIT_ENABLED=true). The driver reaches the server from loopback only, so
# loopback is a trusted proxy: each attacker is counted as the address it names in X-Forwarded-For and
# the good client as its own, as behind a real proxy. A short REQUEST_TIMEOUT makes the stalled bodies
# turn over many times in a run.
DATABASE_URL=$URL BIND_ADDR=127.0.0.1:$PORT RATE_LIMIT_ENABLED=true TRUSTED_PROXIES=127.0.0.1/32 \
  REQUEST_TIMEOUT=5s BCRYPT_COST=4 JWT_SECRET="abuse-$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')" \
  ADMIN_EMAIL=$EMAIL ADMIN_PASSWORD=$PASSWORD LOG_FORMAT=json RUST_LOG=warn "$bin" serve >>"$work/tally.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  curl -fs "$BASE/health" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { echo "abuse: tally exited at start-up; its log:" >&2; cat "$work/tally.log" >&2; exit 1; }
  sleep 0.05
done
curl -fs "$BASE/health" >/dev/null || { echo "abuse: tally did not become healthy; its log:" >&2; cat "$work/tally.log" >&2; exit 1; }

token=$(access_token "$BASE" $EMAIL $PASSWORD)
# The row the stalled conditional writes aim at, and the good client reads and writes.
customer=$(curl -fs -X POST "$BASE/api/v1/customer-mgmt/customers" -H "authorization: Bearer $token" \
  -H 'content-type: application/json' -d '{"name":"Target Row","email":"target@abuse.test"}' \
  | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["id"])')

echo "== make abuse: ${DURATION}s against $bin ($(nproc) cores)"
status=0
TOKEN=$token CUSTOMER=$customer PID=$pid python3 "$root/tests/abuse/drive.py" || status=$?
if [ $status -ne 0 ]; then echo "abuse: the server's last log lines:"; tail -n 20 "$work/tally.log"; fi
exit $status

# Sourced by the contract scripts: a Python venv with the pinned tools and a
# real `tally serve` on a fresh database and a free port, stopped on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
work=target/contract
venv=$work/venv
requirements=tests/contract/requirements.txt
mkdir -p "$work"
export PATH="$PWD/$venv/bin:$PATH"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
  python3 -m venv --clear "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
cargo build --quiet -p api --bin tally

random() { head -c 64 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c "$1"; }
database="tally_contract_$(random 8 | tr 'A-Z' 'a-z')"
port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export TALLY_URL="http://127.0.0.1:$port"
export TALLY_ADMIN_EMAIL="contract-admin@tally.test"
export TALLY_ADMIN_PASSWORD="$(random 24)"
DATABASE_URL="postgres://postgres@127.0.0.1:5432/$database" JWT_SECRET="$(random 48)" BIND_ADDR="127.0.0.1:$port" \
  ADMIN_EMAIL="$TALLY_ADMIN_EMAIL" ADMIN_PASSWORD="$TALLY_ADMIN_PASSWORD" BCRYPT_COST=4 \
  RATE_LIMIT_ENABLED="${RATE_LIMIT_ENABLED:-false}" LOG_FORMAT=json RUST_LOG=warn \
  "${CARGO_TARGET_DIR:-target}/debug/tally" serve >"$work/server.log" 2>&1 &
server_pid=$!
stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
}
trap stop_server EXIT
for _ in $(seq 1 300); do
  if "$venv/bin/python" -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1] + '/health', timeout=1)" "$TALLY_URL" 2>/dev/null; then
    break
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "tally serve exited; its log:" >&2; cat "$work/server.log" >&2; exit 1
  fi
  sleep 0.1
done

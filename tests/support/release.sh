# Sourced by the scripts that drive the release binary from outside (tests/bench/run.sh,
# tests/crash/check.sh): wrk, the release build, an admin's access token.

# Installs wrk (the load generator) when it is missing; LABEL prefixes the messages.
need_wrk() {  # LABEL
  command -v wrk >/dev/null && return
  echo "$1: installing wrk (the load generator)"
  { apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }; } >/dev/null 2>&1 \
    || { echo "$1: wrk is missing and could not be installed (apt-get install wrk)" >&2; exit 1; }
}

# Builds the release binary and sets `bin` to its path (wherever the target directory is).
build_release() {
  cargo build --release --quiet -p api --bin tally
  bin=$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import sys,json;print(json.load(sys.stdin)["target_directory"])')/release/tally
}

# Prints the access token of a login at BASE.
access_token() {  # BASE EMAIL PASSWORD
  curl -fs -X POST "$1/api/v1/identity/users/login" -H 'content-type: application/json' \
    -d "{\"email\":\"$2\",\"password\":\"$3\"}" \
    | python3 -c 'import sys,json;print(json.load(sys.stdin)["data"]["access_token"])'
}

#!/usr/bin/env bash
# `make fuzz`: schemathesis over every operation of the published document
# against a real server, with every check, as an admin (so guards do not hide
# the handlers), for at most FUZZ_SECONDS. Exits non-zero on any failure.
# The report lands in target/contract/fuzz/. No NUL characters are generated:
# PostgreSQL text cannot hold them, so the server refuses them by design (400).
source "$(dirname "$0")/server.sh"

token=$("$venv/bin/python" - <<'PY'
import json, os, urllib.request
body = json.dumps({"email": os.environ["TALLY_ADMIN_EMAIL"], "password": os.environ["TALLY_ADMIN_PASSWORD"]}).encode()
request = urllib.request.Request(os.environ["TALLY_URL"] + "/api/v1/identity/users/login", data=body,
                                 headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(request))["data"]["access_token"])
PY
)
# Access tokens live 15 minutes by default; the run stays within that bound.
seconds="${FUZZ_SECONDS:-600}"
if [ "$seconds" -gt 840 ]; then echo "FUZZ_SECONDS above 840 would outlive the 15-minute access token" >&2; exit 2; fi
rm -rf "$work/fuzz"
"$venv/bin/schemathesis" run "$TALLY_URL/api/v1/openapi.json" \
  --checks all --max-examples "${FUZZ_EXAMPLES:-25}" --max-time "$seconds" --workers 2 \
  --header "Authorization: Bearer $token" --continue-on-failure --no-color \
  --generation-allow-x00 false --suppress-health-check filter_too_much \
  --report ndjson --report-dir "$work/fuzz" ${FUZZ_ARGS:-}

#!/usr/bin/env bash
# `make contract`: the published OpenAPI document, proved from outside. A real
# validator accepts it; openapi-python-client generates a client from it
# without a warning or a skipped operation; that client, with its own typed
# models, runs a short flow against a real server.
source "$(dirname "$0")/server.sh"

"$venv/bin/python" -c "import sys, urllib.request; open(sys.argv[2], 'wb').write(urllib.request.urlopen(sys.argv[1]).read())" \
  "$TALLY_URL/api/v1/openapi.json" "$work/openapi.json"
"$venv/bin/openapi-spec-validator" "$work/openapi.json"

rm -rf "$work/client"
"$venv/bin/openapi-python-client" generate --path "$work/openapi.json" --output-path "$work/client" \
  --config tests/contract/client-config.yml >"$work/generate.log" 2>&1 || { cat "$work/generate.log" >&2; exit 1; }
if grep -qiE 'warning|skipp|unable|error' "$work/generate.log"; then
  echo "openapi-python-client was not happy with the document:" >&2; cat "$work/generate.log" >&2; exit 1
fi

PYTHONPATH="$work/client" "$venv/bin/python" tests/contract/flow.py
echo "contract: document valid, client generated, flow passed"

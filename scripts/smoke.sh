#!/usr/bin/env bash
# `make smoke SERVER_URL=https://chat.acme.com`: a first check of a deployment that creates
# nothing. It proves that the worker answers (health of D1, R2 and the Durable Objects,
# the server settings a client reads first), that the web client is served, that the API
# refuses anonymous requests, and that development logins are closed.
# SMOKE_ALLOW_DEVELOPMENT=1 accepts a development server (make dev) as well.
set -euo pipefail
url=${SERVER_URL:?set SERVER_URL, e.g. SERVER_URL=https://chat.acme.com}
url=${url%/}
failures=0
check() {
  local what=$1; shift
  if "$@"; then echo "smoke: ok    $what"; else echo "smoke: FAIL  $what"; failures=$((failures + 1)); fi
}
status_of() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
body_of() { curl -s "$@"; }

check "GET /health answers 200 with every part ok" \
  python3 -c 'import json,sys; b=json.loads(sys.argv[1]); sys.exit(0 if b.get("result")=="success" and all(v=="ok" for v in b["checks"].values()) else 1)' \
  "$(body_of "$url/health")"
# A new deployment may have no organization at this host yet: the worker then answers
# NONEXISTENT_SUBDOMAIN, which proves it runs as well.
check "GET /api/v1/server_settings names a Zulip feature level (or no organization here yet)" \
  python3 -c 'import json,sys; b=json.loads(sys.argv[1]); sys.exit(0 if b.get("zulip_feature_level", 0) > 0 or b.get("code") == "NONEXISTENT_SUBDOMAIN" else 1)' \
  "$(body_of "$url/api/v1/server_settings")"
check "GET / serves the web client" grep -q '<div id="app"' <(body_of -H 'Sec-Fetch-Mode: navigate' "$url/")
check "GET /api/v1/users/me without credentials is 401" test "$(status_of "$url/api/v1/users/me")" = 401
if [[ -z "${SMOKE_ALLOW_DEVELOPMENT:-}" ]]; then
  check "development logins are closed (404)" test "$(status_of -X POST -d username=nobody@example.com "$url/api/v1/dev_fetch_api_key")" = 404
fi
[[ $failures -eq 0 ]] && echo "smoke: $url answers" || { echo "smoke: $failures check(s) failed"; exit 1; }

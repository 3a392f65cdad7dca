#!/usr/bin/env bash
# Creates an organization and its first owner on a running server, and prints the owner's
# login. The server must have the Worker secret SERVER_ADMIN_SECRET; pass the same value in
# the environment.
#
# Usage: SERVER_URL=https://chat.example.com SERVER_ADMIN_SECRET=... \
#          scripts/create-organization.sh <string_id> <name> <owner_email> <owner_full_name>
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 <string_id> <name> <owner_email> <owner_full_name>" >&2
  exit 2
fi
: "${SERVER_URL:?set SERVER_URL to the server's URL, e.g. https://chat.example.com}"
: "${SERVER_ADMIN_SECRET:?set SERVER_ADMIN_SECRET to the server's Worker secret of that name}"

response=$(curl -sS -X POST "${SERVER_URL%/}/api/v1/server_admin/organizations" \
  -H "Authorization: Bearer $SERVER_ADMIN_SECRET" \
  --data-urlencode "string_id=$1" --data-urlencode "name=$2" \
  --data-urlencode "owner_email=$3" --data-urlencode "owner_full_name=$4")

RESPONSE="$response" python3 - <<'PY'
import json, os, sys
try:
    body = json.loads(os.environ["RESPONSE"])
except ValueError:
    sys.exit(f"unexpected answer: {os.environ['RESPONSE'][:500]}")
if body.get("result") != "success":
    sys.exit(f"not created: {body.get('msg')} ({body.get('code')})")
owner = body["owner"]
print(f"Organization created: {body['realm_url']} (realm id {body['realm_id']})")
print(f"Owner login: {owner['email']}")
print(f"Password:    {owner['password']}")
print("The password is shown only now; the owner should change it after logging in.")
PY

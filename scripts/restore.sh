#!/usr/bin/env bash
# Backups and restores of the production D1 databases, through D1 Time Travel (every
# database keeps 30 days of history on Cloudflare; nothing to schedule).
#
#   scripts/restore.sh point            records a bookmark of every production database now,
#                                       in restore-points/<UTC time>.txt (git-ignored), and
#                                       prints the file's name
#   scripts/restore.sh restore FILE     restores every database to the bookmarks in FILE
#
# R2 keeps no history: an upload deleted after the restore point is gone. The worker keeps
# a deleted upload's object for a grace period before removing it (docs/operations.md), so
# a restore to a point inside that period finds its files.
set -euo pipefail
cd "$(dirname "$0")/.."
wrangler=${WRANGLER:-node_modules/.bin/wrangler}
config=${DEPLOY_CONFIG:-wrangler.deploy.toml}
[[ -f $config ]] || { echo "restore: $config is missing: run make deploy first (it writes the production configuration)" >&2; exit 1; }
mapfile -t bindings < <(python3 -c '
import sys, tomllib
for db in tomllib.load(open(sys.argv[1], "rb"))["env"]["production"]["d1_databases"]:
    print(db["binding"], db["database_name"])' "$config")

case "${1:-}" in
  point)
    mkdir -p restore-points
    file=restore-points/$(date -u +%Y-%m-%dT%H-%M-%SZ).txt
    for entry in "${bindings[@]}"; do
      read -r binding name <<<"$entry"
      bookmark=$("$wrangler" d1 time-travel info "$name" --env production --config "$config" --json \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["bookmark"])')
      echo "$binding $name $bookmark" >>"$file"
    done
    echo "$file"
    ;;
  restore)
    file=${2:?usage: scripts/restore.sh restore restore-points/<time>.txt}
    while read -r binding name bookmark; do
      "$wrangler" d1 time-travel restore "$name" --bookmark "$bookmark" --env production --config "$config" --json >/dev/null
      echo "restore: $binding ($name) restored to $bookmark"
    done <"$file"
    ;;
  *) echo "usage: scripts/restore.sh point | restore FILE" >&2; exit 2 ;;
esac

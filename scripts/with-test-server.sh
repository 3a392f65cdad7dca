#!/usr/bin/env bash
# Runs a command against a private `wrangler dev`: a free port, a fresh state directory
# (local D1, R2 and Durable Objects), migrations applied to both D1 databases. The server's
# URL is passed to the command as TEST_SERVER_URL and its state directory as
# TEST_SERVER_STATE; the server is stopped by its PID whatever the outcome.
#
# Usage: scripts/with-test-server.sh [--log-level LEVEL] command...
set -euo pipefail
cd "$(dirname "$0")/.."

log_level=info
if [[ "${1:-}" == "--log-level" ]]; then log_level=$2; shift 2; fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
# The devtools port too: the default (9229) may be taken by another server on the machine.
inspector_port=$(free_port)
state=$(mktemp -d "${TMPDIR:-/tmp}/team-chat-test.XXXXXX")
log="$state/wrangler.log"
wrangler=node_modules/.bin/wrangler
template=

# Servers start from a copy of one migrated, empty state (migrating costs seconds of CPU
# per database): TEST_STATE_TEMPLATE when the caller made one (scripts/run-tests.sh), else
# this server's own. The command gets it too, for the servers its tests start.
if [[ -n "${TEST_STATE_TEMPLATE:-}" ]]; then
  cp -a "$TEST_STATE_TEMPLATE/." "$state/"
else
  for db in DB DB_2; do
    "$wrangler" d1 migrations apply "$db" --local --persist-to "$state" >>"$state/migrate.log" 2>&1 \
      || { cat "$state/migrate.log"; exit 1; }
  done
  template=$(mktemp -d "${TMPDIR:-/tmp}/team-chat-template.XXXXXX")
  cp -a "$state/." "$template/"
  export TEST_STATE_TEMPLATE=$template
fi

# The push relay test double (tests/push_relay/relay.py) on loopback, unless PUSH_RELAY=off
# (the server then runs with push notifications off). Its URL goes to the server as
# PUSH_RELAY_URL and to the command as PUSH_RELAY_URL.
relay_vars=()
relay_pid=
if [[ "${PUSH_RELAY:-on}" != off ]]; then
  python3 -u tests/push_relay/relay.py >"$state/relay.port" 2>"$state/relay.log" &
  relay_pid=$!
  for _ in $(seq 1 50); do [[ -s "$state/relay.port" ]] && break; sleep 0.1; done
  export PUSH_RELAY_URL="http://127.0.0.1:$(head -n1 "$state/relay.port")"
  relay_vars=(--var PUSH_RELAY_URL:"$PUSH_RELAY_URL" --var ZULIP_ORG_ID:test-server --var ZULIP_ORG_KEY:test-key)
fi

# Its own session, so that stopping it by PID also stops workerd, its child.
setsid "$wrangler" dev --ip 127.0.0.1 --port "$port" --inspector-port "$inspector_port" --persist-to "$state" \
  --log-level "$log_level" --show-interactive-dev-session=false \
  --var EVENT_QUEUE_IDLE_TIMEOUT_SECS:"${EVENT_QUEUE_IDLE_TIMEOUT_SECS:-20}" \
  --var EVENT_QUEUE_HEARTBEAT_SECS:"${EVENT_QUEUE_HEARTBEAT_SECS:-3}" \
  --var EDIT_LIMIT_GRACE_SECS:0 \
  ${relay_vars[@]+"${relay_vars[@]}"} \
  >"$log" 2>&1 &
server_pid=$!

stop_server() {
  kill -TERM -- "-$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  if [[ -n "$relay_pid" ]]; then kill "$relay_pid" 2>/dev/null || true; wait "$relay_pid" 2>/dev/null || true; fi
  rm -rf "$state" ${template:+"$template"}
}
trap stop_server EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

url="http://127.0.0.1:$port"
for _ in $(seq 1 240); do
  if curl -sf "$url/api/v1/server_settings" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$log"; echo "wrangler dev exited" >&2; exit 1; fi
  sleep 0.5
done
curl -sf "$url/api/v1/server_settings" >/dev/null || { cat "$log"; echo "server did not answer" >&2; exit 1; }

status=0
TEST_SERVER_URL="$url" TEST_SERVER_STATE="$state" "$@" || status=$?
if [[ $status -ne 0 ]]; then
  # One copy per lane of scripts/run-tests.sh, so that parallel lanes keep their own.
  kept=target/test-server${TEST_LANE:+-lane$TEST_LANE}.log
  mkdir -p target && cp "$log" "$kept" 2>/dev/null || true
  echo "--- last lines of the server log (whole log kept in $kept) ---" >&2
  tail -n 40 "$log" >&2 || true
fi
exit $status

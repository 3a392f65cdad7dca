#!/usr/bin/env bash
# The test run of `make test`: every test target of the workspace (the library's unit tests,
# its doc tests, each tests/*.rs binary, the Durable Objects crate's unit tests), built once, then run in parallel lanes. A lane is a
# private server with fresh state (scripts/with-test-server.sh) on which binaries run one
# after another, as they all did on one server before; lanes take the next binary from one
# queue, slowest first, so they finish together. Most end-to-end binaries wait on the clock
# (long polls, queue expiry, scheduled delivery, servers of their own starting), so lanes
# overlap those waits. Each binary's output is printed whole when it ends; a summary follows.
# Every binary runs whatever fails (as --no-fail-fast); the exit status is non-zero if one
# failed or did not run.
#
# Usage: scripts/run-tests.sh        (TEST_LANES=N sets the number of lanes; default 3: on a
#        busy 2-core machine 2 lanes took 118 s, 3 took 110 s, 4 took 109 s, the CPU being full)
#        scripts/run-tests.sh --lane DIR    (internal: one lane, under with-test-server.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# The slowest targets (over ~4.5 s on a busy machine), slowest first; all others follow in
# name order. team_chat is the library's unit tests.
SLOW=(production_mode scheduled_delivery_restart export_restart email_delivery_restart rate_limits hub_outbox_replay event_queues database_directory restart move_messages
  scheduled_messages edit_message send_message team_chat custom_emoji shard_faults push_settings
  bot_client tus_uploads delete_message fetch_messages)

now() { echo "${EPOCHREALTIME/,/.}"; }

# One queue item: `name kind [executable]`. Output goes to a file, printed whole under a
# lock so lanes never interleave; the result file holds `status seconds`.
run_item() {
  local name=$1 kind=$2 exe=${3:-} log=$dir/out/$1.log status=0 start
  start=$(now)
  case $kind in
    bin) "$exe" --test-threads=8 >"$log" 2>&1 || status=$? ;;
    doc) cargo test --locked --doc -- --test-threads=8 >"$log" 2>&1 || status=$? ;;
    # Push notifications off: a server of its own without the relay (and without the
    # relay URL this lane's server exported).
    relay-off) env -u PUSH_RELAY_URL PUSH_RELAY=off scripts/with-test-server.sh "$exe" --test-threads=8 \
      >"$log" 2>&1 || status=$? ;;
    # The web client: its unit tests in Node, and its end-to-end tests in Chromium against
    # this lane's server.
    web-unit) (cd web && npm test) >"$log" 2>&1 || status=$? ;;
    web-browser) (cd web && npm run test:browser) >"$log" 2>&1 || status=$? ;;
  esac
  # A test or two failing in a target that otherwise passed run once more, alone: now and
  # then (twice in ~1,500 tests on a loaded machine) local `wrangler dev` loses a request
  # between its proxy and the worker ("Your worker restarted mid-request"). A test passing
  # only then is named in the summary (one name a line); failing again fails the run.
  if [[ $status -ne 0 && $kind == bin ]]; then
    local failed_tests
    failed_tests=$(awk '/^failures:$/ { list = "" ; next } /^    [A-Za-z0-9_:]+$/ { list = list " " $1 } END { print list }' "$log")
    if [[ -n $failed_tests && $(wc -w <<<"$failed_tests") -le 3 ]]; then
      echo "--- run again alone:$failed_tests" >>"$log"
      # shellcheck disable=SC2086
      if "$exe" --exact $failed_tests --test-threads=8 >>"$log" 2>&1; then
        status=0
        tr ' ' '\n' <<<"${failed_tests# }" >"$dir/retried/$name"
      fi
    fi
  fi
  if [[ $status -ne 0 && $kind == web-browser ]]; then
    # The failed browser tests, from the run's TAP report: "file<TAB>name" a line.
    local failed_browser
    failed_browser=$(node -e '
      const tap = require("fs").readFileSync(process.argv[1], "utf8");
      for (const m of tap.matchAll(/^not ok \d+ - (.*)\n(?:  .*\n)*?  location: .(.+):\d+:\d+.$/gm))
        console.log(`${m[2]}\t${m[1]}`);' web/test-results/browser.tap 2>/dev/null || true)
    if [[ -n $failed_browser && $(wc -l <<<"$failed_browser") -le 2 ]]; then
      status=0
      while IFS=$'\t' read -r file test_name; do
        echo "--- run again alone: $test_name" >>"$log"
        local pattern
        pattern=$(node -e 'console.log("^" + process.argv[1].replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$")' "$test_name")
        (cd web && node --test --test-concurrency=1 --test-reporter=spec --test-name-pattern="$pattern" "$file") </dev/null >>"$log" 2>&1 || status=1
      done <<<"$failed_browser"
      if [[ $status -eq 0 ]]; then cut -f2 <<<"$failed_browser" >"$dir/retried/$name"; fi
    fi
  fi
  local secs
  secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  echo "$status $secs" >"$dir/result/$name"
  {
    local outcome="FAILED: exit $status"
    [[ $status -eq 0 ]] && outcome=ok
    [[ -f "$dir/retried/$name" ]] && outcome="ok when run again: $(paste -sd, "$dir/retried/$name")"
    echo "=== $name (lane $lane, ${secs}s, $outcome)"
    cat "$log"
  } | flock "$dir/print.lock" cat
  return "$status"
}

# A lane: claims queue items in order (mkdir is atomic, so each item runs once) and runs them.
if [[ "${1:-}" == "--lane" ]]; then
  dir=$2 lane=$TEST_LANE failed=0
  while read -r name kind exe; do
    mkdir "$dir/claim/$name" 2>/dev/null || continue
    run_item "$name" "$kind" "$exe" || failed=1
  done <"$dir/queue"
  exit "$failed"
fi

lanes=${TEST_LANES:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/team-chat-tests.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/out" "$dir/result" "$dir/claim" "$dir/retried"
started=$(now)

# One migrated, empty state, copied by every server of the run (scripts/with-test-server.sh
# and tests/server_support), made while cargo builds.
export TEST_STATE_TEMPLATE=$dir/template
mkdir "$TEST_STATE_TEMPLATE"
(for db in DB DB_2; do
  node_modules/.bin/wrangler d1 migrations apply "$db" --local --persist-to "$TEST_STATE_TEMPLATE" >>"$dir/migrate.log" 2>&1 || exit 1
done) &
migrating=$!

# Build every test target once; cargo lists each test executable it would run.
cargo test --locked --workspace --no-run --message-format=json-render-diagnostics | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        print(m["target"]["name"], m["executable"])' | sort >"$dir/bins"
wait "$migrating" || { cat "$dir/migrate.log"; exit 1; }

awk -v slow="${SLOW[*]}" 'BEGIN { n = split(slow, s, " "); for (i = 1; i <= n; i++) rank[s[i]] = i }
  { printf "%03d %s bin %s\n", ($1 in rank) ? rank[$1] : 999, $1, $2 }' "$dir/bins" \
  | sort -k1,1n -k2,2 | cut -d' ' -f2- >"$dir/queue.bins"
# The browser tests are the slowest target: first.
{ echo "web-browser web-browser"; cat "$dir/queue.bins"; echo "web-unit web-unit"; } >"$dir/queue"
echo "doc-tests doc" >>"$dir/queue"
echo "push_not_configured:relay-off relay-off $(awk '$1 == "push_not_configured" { print $2 }' "$dir/bins")" >>"$dir/queue"
echo "$(wc -l <"$dir/queue") test targets in $lanes lanes, each on a server of its own"

# Each lane in a process group of its own: TERM or Ctrl-C stops every lane with the binary
# it runs, and each lane's wrapper stops its server on the way out.
pids=()
trap 'for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done; wait; exit 130' INT TERM
for lane in $(seq 1 "$lanes"); do
  TEST_LANE=$lane setsid scripts/with-test-server.sh scripts/run-tests.sh --lane "$dir" &
  pids+=($!)
done
wait "${pids[@]}" || true

# The summary: each target in queue order, then the totals.
echo
printf '%-34s %-8s %7s %7s %7s\n' target result seconds passed failed
failures=0 passed_all=0 failed_all=0
while read -r name _; do
  log=$dir/out/$name.log
  passed=0 failed=0
  [[ -f $log ]] && read -r passed failed < <(awk '/^test result:/ { p += $4; f += $6 }
    /^(# |ℹ )pass [0-9]+$/ { p += $3 } /^(# |ℹ )fail [0-9]+$/ { f += $3 } END { print p + 0, f + 0 }' "$log")
  # A test that passed when run again counts once, as passed.
  [[ -f "$dir/retried/$name" ]] && failed=$((failed - $(wc -l <"$dir/retried/$name")))
  if [[ -f "$dir/result/$name" ]]; then
    read -r status secs <"$dir/result/$name"
    result=$([[ $status -eq 0 ]] && echo ok || echo FAILED)
  else
    result="NOT RUN" secs=-
  fi
  [[ $result == ok ]] || failures=$((failures + 1))
  passed_all=$((passed_all + passed)) failed_all=$((failed_all + failed))
  printf '%-34s %-8s %7s %7s %7s\n' "$name" "$result" "$secs" "$passed" "$failed"
done <"$dir/queue"
for retried in "$dir"/retried/*; do
  [[ -e $retried ]] && echo "passed only when run again (see its output above): $(basename "$retried"): $(paste -sd, "$retried")"
done
total=$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
echo "$(wc -l <"$dir/queue") targets, $failures not ok; tests: $passed_all passed, $failed_all failed; ${total}s"
[[ $failures -eq 0 ]]

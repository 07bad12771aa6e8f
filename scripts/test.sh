#!/usr/bin/env bash
# npm test: the system packages the tests start (installed when missing), typecheck, build the
# binary, then every test runner against it, and one closing line
# "tests: N passed, N failed, N skipped" summed over all of them (scripts/junit-summary.mjs).
#
# Every step runs even when an earlier one failed, so one run shows everything that is broken.
# A step that is not a test (typecheck, build) or a runner that crashes, writes no report, or
# exits non-zero without listing a failure is recorded as a failed testcase in reports/, so the
# closing line never says "0 failed" on a broken run. Exit status: non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

BUN=node_modules/.bin/bun
rm -rf reports test-results
mkdir -p reports
status=0

step() { printf '\n== %s\n' "$*"; }

# run <name> <minutes> <command…>: the output goes to the console and to reports/<name>.log.
# `timeout` kills the whole process group (runner, workers, spawned binaries) if a runner hangs.
run() {
  local name=$1 minutes=$2
  shift 2
  local t0=$SECONDS
  timeout --kill-after=30s "${minutes}m" "$@" 2>&1 | tee "reports/$name.log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && echo "$name: killed after ${minutes} min"
  echo "-- $name: exit $rc after $((SECONDS - t0)) s"
  [ "$rc" -ne 0 ] && status=1
  return "$rc"
}

# check <name> <rc> [report]: record a step failure, or a runner whose report does not explain its exit code.
check() {
  node scripts/junit-step.mjs "reports/step-$1-junit.xml" "$1" "$2" "reports/$1.log" ${3:+"$3"} || status=1
}

step "system packages: scripts/system-deps.sh (chromium, postgresql, haproxy; installed when missing)"
run system-deps 35 bash scripts/system-deps.sh
check system-deps $?

step "typecheck: tsc -b"
run typecheck 10 npx tsc -b
check typecheck $?

step "build: npm run build"
# A failed build must not leave the previous binary behind for the tests to pass against.
rm -f dist/ursa
run build 10 npm run build
rc=$?
if [ "$rc" -eq 0 ] && [ ! -x dist/ursa ]; then
  echo "build: npm run build succeeded but dist/ursa is missing"
  rc=1
  status=1
fi
check build $rc

step "unit: bun test"
run unit 10 "$BUN" test --reporter=junit --reporter-outfile=reports/unit-junit.xml
check unit $? reports/unit-junit.xml

step "e2e: vitest (conformance suite, official client, restart, kill -9)"
run vitest 20 npx vitest run --config e2e/vitest.config.ts
check vitest $? reports/conformance-junit.xml

step "bench: node --test bench/*.test.mjs (harness, log verification, the client's SSE parser, disturbed runs; never a speed)"
BENCH_REQUIRE_URSA=1 run bench 10 node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=junit --test-reporter-destination=reports/bench-junit.xml bench/*.test.mjs
check bench $? reports/bench-junit.xml

step "browser e2e: playwright"
run playwright 20 npx playwright test
check playwright $? reports/e2e-junit.xml

step "summary"
node scripts/junit-summary.mjs reports/*.xml || status=1
exit "$status"

#!/usr/bin/env bash
# The Debian packages the tests start, installed when missing: used by `npm test` (scripts/test.sh)
# and by CI (.ci/run), so a fresh machine runs every test a user's machine can run.
# - chromium: Playwright's browser (it never downloads one);
# - postgresql: initdb, pg_ctl, pg_basebackup, pgbench; the tests start throwaway clusters, a
#   primary and a streaming standby among them (server/testing/pg-cluster.ts: temporary
#   directories, loopback ports) and remove them;
# - haproxy: the round-robin balancer in front of the instances (docs/haproxy.cfg), started and
#   stopped by the tests. HAProxy rather than nginx: it streams responses as they come (SSE,
#   long-poll) with no buffering to turn off, retries only requests that never reached an
#   instance, checks readiness itself, and takes its addresses from the environment, so the
#   tests run the documented file unchanged.
# Debian's packages start no service here (no init); the tests run their own.
# As root it runs apt-get; otherwise with sudo if sudo needs no password; otherwise it prints
# the exact command to run and exits 1.
set -uo pipefail

pg_has() { ls /usr/lib/postgresql/*/bin/"$1" >/dev/null 2>&1; }
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
{ pg_has initdb && pg_has pg_basebackup && pg_has pgbench; } || missing+=(postgresql)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)

if [ ${#missing[@]} -gt 0 ]; then
  command="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    sudo=""
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo="sudo"
  else
    echo "system packages missing: ${missing[*]}. Run, as root:"
    echo "  $command"
    exit 1
  fi
  echo "installing ${missing[*]} (apt-get)"
  # apt can run for minutes; a bounded wait keeps a stuck mirror from eating the budget.
  if ! { timeout 10m $sudo apt-get update -qq &&
    timeout 20m $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; }; then
    echo "could not install ${missing[*]}; run, as root:"
    echo "  $command"
    exit 1
  fi
fi

/usr/bin/chromium --version 2>/dev/null | grep -i chromium || { echo "/usr/bin/chromium does not run"; exit 1; }
pg_has initdb || { echo "no initdb under /usr/lib/postgresql"; exit 1; }
pg_has pg_basebackup || { echo "no pg_basebackup under /usr/lib/postgresql"; exit 1; }
# Captured first: under pipefail, `haproxy -v | head -1` fails whenever head exits before haproxy
# has written its last line (SIGPIPE), which made this check fail at random.
haproxy_version=$(PATH="$PATH:/usr/sbin" haproxy -v 2>/dev/null) || { echo "haproxy does not run"; exit 1; }
grep -i -m1 haproxy <<<"$haproxy_version" || { echo "haproxy does not run"; exit 1; }

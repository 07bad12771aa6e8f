// Turn a failure that is not a test (typecheck, build, a runner that crashed, wrote no report, or
// exited non-zero with a report that shows no failure) into a one-testcase JUnit report, so the
// closing "N passed, N failed, N skipped" line can never read "0 failed" on a broken run.
//
// Usage: node scripts/junit-step.mjs <out.xml> <step name> <exit code> [log file] [report to check]
//   - without a report to check: writes a failed testcase if exit code != 0, nothing otherwise.
//   - with one: also fails if that report is missing, or if the exit code is non-zero but the
//     report contains no <failure>/<error> (e.g. vitest "unhandled errors", a Playwright
//     worker-teardown error); a runner's own report already covers any failure it lists.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const [out, name, codeArg, logFile, report] = process.argv.slice(2);
if (!out || !name || codeArg === undefined) {
  console.error("usage: junit-step.mjs <out.xml> <step name> <exit code> [log file] [report]");
  process.exit(2);
}
const code = Number(codeArg);

let reason;
if (report) {
  if (!existsSync(report)) reason = `${name} wrote no report (${report}); exit code ${code}`;
  else if (code !== 0 && !/<(failure|error)\b/.test(readFileSync(report, "utf8")))
    reason = `${name} exited with code ${code} but its report lists no failed test`;
} else if (code !== 0) reason = `${name} failed with exit code ${code}`;
if (!reason) process.exit(0);

const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
// Strip ANSI colour and characters XML 1.0 cannot carry.
const clean = (s) => s.replace(/\x1b\[[0-9;]*m/g, "").replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]/g, "");
let tail = "";
if (logFile && existsSync(logFile)) tail = clean(readFileSync(logFile, "utf8").split("\n").slice(-60).join("\n"));

writeFileSync(
  out,
  `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${esc(name)}" tests="1" failures="1">
  <testsuite name="${esc(name)}" tests="1" failures="1">
    <testcase name="${esc(name)}" classname="ci-step">
      <failure message="${esc(reason)}">${esc(tail)}</failure>
    </testcase>
  </testsuite>
</testsuites>
`,
);
console.error(`junit-step: ${reason} (recorded in ${out})`);

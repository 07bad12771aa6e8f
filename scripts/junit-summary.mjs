// Sum JUnit XML reports from every runner (bun test, vitest, Playwright, and the step reports
// scripts/junit-step.mjs writes for failed typecheck/build/runner crashes) and end with the one
// line a generic CI parser reads: "tests: N passed, N failed, N skipped".
//
// Counts <testcase> elements rather than <testsuites> attributes: bun nests <testsuite>s (so
// suite totals double-count), and vitest's root element carries no "skipped" attribute.
// Exit 1 if any report is missing or unreadable, any test failed, or no test ran at all.
//
// Usage: node scripts/junit-summary.mjs reports/*.xml
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const files = process.argv.slice(2);
let passed = 0, failed = 0, skipped = 0, bad = 0;
const failures = [];

const unescape = (s) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");

if (files.length === 0) {
  console.error("junit-summary: no report files given");
  bad++;
}
for (const file of files) {
  let xml;
  try {
    xml = readFileSync(file, "utf8");
  } catch {
    console.error(`junit-summary: missing report ${file}`);
    bad++;
    continue;
  }
  // Captured output can contain anything, even "<failure" or "</testcase>"; drop it first.
  xml = xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, "").replace(/<!--[\s\S]*?-->/g, "");
  xml = xml.replace(/<(system-out|system-err)\b[^>]*>[\s\S]*?<\/\1>/g, "");
  if (!/<testsuites?\b/.test(xml)) {
    console.error(`junit-summary: ${file} is not a JUnit report`);
    bad++;
    continue;
  }
  let p = 0, f = 0, s = 0;
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = m[3] ?? "";
    if (/<(failure|error)\b/.test(body)) {
      f++;
      const name = unescape(/\bname="([^"]*)"/.exec(m[1])?.[1] ?? "?");
      failures.push(`${basename(file)} › ${name}`);
    } else if (/<skipped\b/.test(body)) s++;
    else p++;
  }
  console.log(`  ${basename(file)}: passed=${p} failed=${f} skipped=${s}`);
  passed += p;
  failed += f;
  skipped += s;
}

const LIST = 60;
for (const name of failures.slice(0, LIST)) console.log(`  FAILED ${name}`);
if (failures.length > LIST) console.log(`  … and ${failures.length - LIST} more failures`);
if (passed + failed + skipped === 0) console.error("junit-summary: no test ran");
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(bad || failed || passed + failed === 0 ? 1 : 0);

// Smoke test for the benchmark harness (node:test). It runs every workload with tiny sizes
// against every available server, one round, and asserts that the harness works and that the
// logs verify. It never asserts a speed, a latency or a memory figure.
//
//   node --test bench/smoke.test.mjs
//
// ursa is included when dist/ursa (or $URSA_BINARY) exists; set BENCH_REQUIRE_URSA=1 to make a
// missing binary a failure instead of a skip.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { buildCases } from "./cases.mjs";
import { runBench } from "./lib/bench.mjs";
import { renderReport } from "./lib/report.mjs";
import { SERVER_KINDS, URSA_BINARY } from "./lib/servers.mjs";

const cases = buildCases("smoke");
const ursaAvailable = SERVER_KINDS.ursa.available();
let result;
const lines = [];
const dir = mkdtempSync(join(tmpdir(), "ursa-bench-smoke-"));

describe("bench smoke", { timeout: 120_000 }, () => {
  before(async () => {
    result = await runBench({ cases, rounds: 1, emit: (l) => lines.push(JSON.stringify(l)) });
    writeFileSync(join(dir, "out.jsonl"), lines.join("\n") + "\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("ursa binary is present", { skip: !ursaAvailable && !process.env.BENCH_REQUIRE_URSA && `no ${URSA_BINARY}` }, () => {
    assert.ok(ursaAvailable, `missing ${URSA_BINARY}`);
  });

  test("every run completed without a harness or server error", () => {
    const failed = result.runs.filter((r) => r.error).map((r) => `${r.case} ${r.server}: ${r.error.split("\n")[0]}`);
    assert.deepEqual(failed, []);
    const pgKinds = ["ursa-pg", "ursa-pg2", "pg-ceiling", "pg-insert-ceiling"].filter((k) => SERVER_KINDS[k].available());
    const expectedServers = ["ref-mem", "ref-file", "ceiling", "fsync-ceiling", "http-sync-ceiling", ...(ursaAvailable ? ["ursa", "ursa-capped"] : []), ...pgKinds];
    for (const s of expectedServers) assert.ok(result.runs.some((r) => r.server === s), `no run against ${s}`);
  });

  for (const c of cases) {
    test(c.id, () => {
      const runs = result.runs.filter((r) => r.case === c.id);
      assert.ok(runs.length > 0, "no runs");
      for (const r of runs) {
        const m = r.metrics;
        const where = `${r.server}: ${JSON.stringify(m?.errorSamples ?? r.error)}`;
        assert.ok(m, `${r.server}: no metrics (${r.error})`);
        // Churn measures memory, not CPU; every other workload says how much the host took.
        if (c.workload !== "churn") assert.ok(m.stealPct >= 0 && Number.isFinite(m.stealPct), `${r.server}: steal ${m.stealPct}`);
        switch (c.workload) {
          case "append":
            assert.ok(m.ok > 0, `no appends completed, ${where}`);
            assert.equal(m.totalNon2xx, 0, `non-2xx answers, ${where}`);
            assert.equal(m.errors, 0, `transport errors, ${where}`);
            assert.ok(Number.isFinite(m.p99) && Number.isFinite(m.serverCpuUsPerAppend), where);
            if (["fsync-ceiling", "pg-ceiling", "pg-insert-ceiling"].includes(r.server)) assert.equal(m.recordBytes, c.params.kind === "bin" ? 256 : 100, where);
            break;
          case "cas":
            assert.ok(m.commits > 0, `no commits, ${where}`);
            assert.equal(m.errors, 0, `errors, ${where}`);
            assert.ok(m.verified, `${r.server}: log does not verify: ${m.verify.problems.join("; ")}`);
            assert.ok(m.verify.commits >= m.commits, where);
            // Alone on its stream, a writer that does not read in between reads once, before its first commit.
            if (!c.params.readEach) assert.ok(m.readsPerCommit < 0.5, `${r.server}: ${m.readsPerCommit} reads per commit`);
            break;
          case "sse":
            assert.equal(m.connected, c.params.subscribers, `not every subscriber connected, ${where}`);
            assert.equal(m.errors + m.endedEarly + m.writerErrors, 0, `errors, ${where}`);
            assert.equal(m.missing, 0, `missing deliveries, ${where}`);
            assert.equal(m.duplicates, 0, `duplicate deliveries, ${where}`);
            assert.ok(Number.isFinite(m.p99), where);
            break;
          case "catchup":
            // JSON streams hold whole 100-byte messages: the size rounds up to the next one.
            assert.equal(m.bytes, c.params.kind === "json" ? Math.ceil((c.params.mib * 2 ** 20) / 100) * 100 : c.params.mib * 2 ** 20, where);
            assert.ok(m.MBps > 0, where);
            break;
          case "fork":
            assert.equal(m.sourceBytes, c.params.mib * 2 ** 20, where);
            assert.ok(m.forkMs > 0 && m.deleteMs > 0 && Number.isFinite(m.headMaxMs), where);
            break;
          case "longpoll":
            assert.ok(m.wakeups > 0, `no wake-ups, ${where}`);
            assert.equal(m.errors + m.timeouts + m.wrongOffset, 0, `errors, ${where}`);
            break;
          case "append-batch":
            assert.ok(m.messages > 0, `no messages, ${where}`);
            assert.equal(m.totalNon2xx + m.errors + m.badAcks, 0, `errors, ${where}`);
            assert.ok(m.verified, `${r.server}: log does not verify: ${m.verify.problems.join("; ")}`);
            assert.equal(m.verify.messages >= m.messages, true, where);
            if (r.server === "ursa") assert.equal(m.framed, c.params.via === "batch", where);
            break;
          case "bootstrap":
            assert.ok(m.verified, `${r.server}: bootstrap does not verify: ${m.verify.problems.join("; ")}`);
            assert.ok(m.MBps > 0 && m.allRssGrowthMiB.every(Number.isFinite), where);
            break;
          case "scale":
            assert.equal(m.errors, 0, `errors, ${where}`);
            assert.ok(m.restartMs > 0 && m.rssIdleMiB > 0, `restart not measured, ${where}`);
            assert.ok(m.heads > 0 && m.forks > 0 && m.listings > 0 && m.jsonPages > 0 && m.catchups > 0, `a load loop never ran, ${where}`);
            assert.equal(m.catchupBytes, Math.ceil((c.params.catchupMiB * 1024) / 64) * 64 * 1024, where);
            assert.ok([m.createPerSAtSize, m.firstPageMs, m.lastPageMs, m.headP99, m.headWhileListingP99, m.catchupMBps, m.loopLagMaxMs].every(Number.isFinite), where);
            break;
          case "churn":
            assert.ok(m.cycles > 0, where);
            assert.equal(m.errors, 0, `errors, ${where}`);
            assert.ok(m.rssSeriesMiB.every((x) => x > 0), `RSS not readable, ${where}`);
            break;
          case "abuse":
            assert.ok(m.writes > 0 && Number.isFinite(m.p99), `no write timed, ${where}`);
            assert.equal(m.errors, 0, `writes failed, ${where}`);
            // The attack itself ran (the baseline has none).
            if (c.params.attack !== "none") assert.ok(m.attackRequests > 0, `no attack request, ${where}`);
            break;
          default:
            assert.fail(`unknown workload ${c.workload}`);
        }
      }
    });
  }

  test("report renders and JSON lines parse", () => {
    const text = renderReport(result);
    assert.match(text, /targets/);
    const md = renderReport(result, { md: true });
    assert.match(md, /\| case \|/);
    const parsed = readFileSync(join(dir, "out.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(parsed[0].type, "meta");
    assert.equal(parsed.filter((l) => l.type === "run").length, result.runs.length);
    assert.ok(parsed.some((l) => l.type === "target"));
  });
});

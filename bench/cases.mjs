// The benchmark cases: which workload, with which parameters, against which servers.
// Two profiles: "full" (npm run bench) and "smoke" (tiny sizes, a few seconds, run by npm test).
import * as append from "./workloads/append.mjs";
import * as cas from "./workloads/cas.mjs";
import * as sse from "./workloads/sse.mjs";
import * as catchup from "./workloads/catchup.mjs";
import * as longpoll from "./workloads/longpoll.mjs";
import * as churn from "./workloads/churn.mjs";
import * as batch from "./workloads/batch.mjs";
import * as bootstrap from "./workloads/bootstrap.mjs";
import * as scale from "./workloads/scale.mjs";
import * as fork from "./workloads/fork.mjs";
import * as abuse from "./workloads/abuse.mjs";

/**
 * How each workload picks the best of its rounds, and the metric that ratios compare.
 * higher: true means bigger is better.
 */
export const WORKLOADS = {
  append: { mod: append, metric: "appendsPerS", higher: true, unit: "appends/s" },
  cas: { mod: cas, metric: "commitsPerS", higher: true, unit: "commits/s" },
  sse: { mod: sse, metric: "p99", higher: false, unit: "ms p99" },
  catchup: { mod: catchup, metric: "MBps", higher: true, unit: "MB/s" },
  longpoll: { mod: longpoll, metric: "p99", higher: false, unit: "ms p99" },
  churn: { mod: churn, metric: "rssGrowthMiB", higher: false, unit: "MiB RSS growth" },
  "append-batch": { mod: batch, metric: "messagesPerS", higher: true, unit: "messages/s" },
  bootstrap: { mod: bootstrap, metric: "MBps", higher: true, unit: "MB/s" },
  scale: { mod: scale, metric: "headP99", higher: false, unit: "ms HEAD p99 under load" },
  fork: { mod: fork, metric: "forkMs", higher: false, unit: "ms (slowest fork PUT)" },
  abuse: { mod: abuse, metric: "p99", higher: false, unit: "ms write p99 under attack" },
};

const URSA = "ursa";
const REF = "ref-mem";
const PG = ["ursa-pg", "ursa-pg2"];

/**
 * @param {"full"|"smoke"} profile
 * @param {{ durationMs?: number, warmupMs?: number, threads?: number }} o overrides
 */
export function buildCases(profile, o = {}) {
  const smoke = profile === "smoke";
  const dur = (full, small) => o.durationMs ?? (smoke ? small : full);
  const warm = (full, small) => o.warmupMs ?? (smoke ? small : full);
  const threads = o.threads ?? 1;
  const cases = [];

  const appendCase = (kind, S, C, servers) =>
    cases.push({
      id: `append/${kind === "bin" ? "bin256+producer" : "json100"}/${S}x${C}`,
      workload: "append",
      servers,
      params: { kind, streams: S, writers: C, warmupMs: warm(1000, 100), durationMs: dur(5000, 300), maxRequests: smoke ? 20_000 : 3_000_000, threads },
    });
  // A handful of writers, as most users have (issue 20); one writer is held to the fdatasync
  // ceiling measured in the same run, the file-backed reference is left out (and in the smoke
  // profile the Bun.serve ceiling, which the 4x4 case runs).
  // The PostgreSQL engine (issue 22), one instance and two behind HAProxy, beside SQLite, and
  // what PostgreSQL alone allows (pgbench, one transaction per append, a client per writer).
  const withPg = (C) => [...PG, ...(C === 1 || C === 16 ? ["pg-ceiling", "pg-insert-ceiling"] : [])];
  for (const [S, C] of [[1, 1], [1, 4], [1, 16], [16, 16]]) {
    // In the smoke profile one writer only: 16 of them finish no append of the PostgreSQL
    // engine within its 300 ms window on a loaded machine.
    const pg = C === 1 || (S === 16 && !smoke);
    appendCase("bin", S, C, [URSA, REF, ...(smoke ? [] : ["ceiling"]), "http-sync-ceiling", ...(C === 1 ? ["fsync-ceiling"] : []), ...(pg ? withPg(C) : [])]);
  }
  const shapes = smoke ? [[4, 4]] : [[100, 100], [500, 500]];
  for (const kind of ["bin", "json"]) for (const [S, C] of shapes) appendCase(kind, S, C, [URSA, REF, "ref-file", "ceiling"]);
  // Each writer reads to the tail before every commit; in the "noread" case each writer is alone on
  // its stream and commits its own next count straight after its last commit (issue 20).
  const casShapes = smoke ? [[2, 2, true], [2, 2, false], [1, 3, true]] : [[16, 16, true], [16, 16, false], [1, 4, true]];
  for (const [S, W, readEach] of casShapes) {
    cases.push({
      id: `cas/${W}w-${S}s${readEach ? "" : "-noread"}`,
      workload: "cas",
      servers: [URSA, REF, ...PG],
      params: { streams: S, writers: W, readEach, warmupMs: warm(1000, 100), durationMs: dur(5000, 400), maxRequests: smoke ? 20_000 : 2_000_000, threads },
    });
  }
  for (const subs of smoke ? [5] : [100, 1000]) {
    cases.push({
      id: `sse/${subs}subs`,
      workload: "sse",
      servers: [URSA, REF, "ceiling", ...PG],
      params: { subscribers: subs, rate: 50, warmupMs: warm(1000, 100), durationMs: dur(8000, 400), drainMs: 3000, threads },
    });
  }
  // Best of 5 reads: every server's first read or two, the ceiling's too, run 2-4x slower than
  // later ones while its heap and its file map fault in (1 GiB, 2026-12-05: ceiling 1,772 then
  // 3,384 MB/s; ursa 532 then 1,559), and with 2 reads the best was often still a warm-up.
  const catchupReads = smoke ? 1 : 5;
  cases.push({
    id: `catchup/${smoke ? 2 : 100}MiB`,
    workload: "catchup",
    servers: [URSA, REF, "ceiling"],
    params: { mib: smoke ? 2 : 100, kind: "bin", chunkKiB: 64, reads: catchupReads, fillConcurrency: 4 },
  });
  // Issue 21's gigabyte streams: 1 GiB of 64 KiB messages, and 100-byte JSON messages read as
  // 8 MiB arrays; the ceiling answers in 8 MiB responses too.
  cases.push({
    id: `catchup/${smoke ? "3MiB" : "1GiB"}x64KiB`,
    workload: "catchup",
    servers: [URSA, "ceiling"],
    params: { mib: smoke ? 3 : 1024, kind: "bin", chunkKiB: 64, reads: catchupReads, fillConcurrency: 4 },
  });
  cases.push({
    id: `catchup/${smoke ? 2 : 128}MiB-json100B`,
    workload: "catchup",
    servers: [URSA, REF, "ceiling"],
    params: { mib: smoke ? 2 : 128, kind: "json", reads: catchupReads, fillConcurrency: 4 },
  });
  cases.push({
    id: `fork/${smoke ? "4MiB" : "1GiB"}`,
    workload: "fork",
    servers: [URSA],
    params: { mib: smoke ? 4 : 1024, forks: smoke ? 2 : 1 },
  });
  for (const waiters of smoke ? [1, 5] : [1, 100]) {
    cases.push({
      id: `longpoll/${waiters}waiter${waiters > 1 ? "s" : ""}`,
      workload: "longpoll",
      // ursa-pg2: appends on one instance, long-polls on the other (issue 47).
      servers: [URSA, REF, "ceiling", "ursa-pg2"],
      params: { waiters, parkMs: waiters > 10 ? 30 : 10, durationMs: dur(5000, 300), maxRounds: smoke ? 30 : 2000, warmupRounds: smoke ? 2 : 20 },
    });
  }
  cases.push({
    id: "churn/delete-recreate",
    workload: "churn",
    servers: [URSA, REF],
    rounds: 1,
    params: { cycles: smoke ? 40 : 4000, warmupCycles: smoke ? 10 : 400, appends: 5, appendKiB: 4, concurrency: 8, settleMs: smoke ? 50 : 500 },
  });
  // 100-byte JSON messages, 512 to a request: ursa's append-batch frames, the reference's JSON
  // arrays; then the same messages one per request.
  const batchShape = smoke ? [2, 2] : [8, 8];
  cases.push({
    id: `append-batch/512x100B/${batchShape[0]}x${batchShape[1]}`,
    workload: "append-batch",
    servers: [URSA, REF],
    params: { via: "batch", frames: 512, streams: batchShape[0], writers: batchShape[1], warmupMs: warm(1000, 100), durationMs: dur(5000, 300), maxRequests: smoke ? 200 : 200_000, threads },
  });
  const singleShape = smoke ? [4, 4] : [100, 100];
  cases.push({
    id: `append-batch/1x100B/${singleShape[0]}x${singleShape[1]}`,
    workload: "append-batch",
    servers: [URSA, REF],
    params: { via: "single", frames: 1, streams: singleShape[0], writers: singleShape[1], warmupMs: warm(1000, 100), durationMs: dur(5000, 300), maxRequests: smoke ? 20_000 : 3_000_000, threads },
  });
  cases.push({
    id: `bootstrap/${smoke ? 3 : 100}MiB`,
    workload: "bootstrap",
    // The PostgreSQL engine's snapshots are bytea chunk rows (issue 22): measured beside, no target.
    servers: [URSA, ...(smoke ? [] : ["ursa-pg"])],
    params: { snapshotMiB: smoke ? 2 : 92, updatesMiB: smoke ? 1 : 8, messageKiB: 64, reads: smoke ? 1 : 3 },
  });
  // One round each: the 1M case fills for minutes. ursa only: the reference keeps no buckets.
  for (const streams of smoke ? [300] : [10_000, 100_000, 1_000_000]) {
    cases.push({
      id: `scale/${streams >= 1e6 ? `${streams / 1e6}M` : `${streams / 1e3}k`}`,
      workload: "scale",
      servers: [URSA],
      rounds: 1,
      params: {
        streams,
        createConcurrency: 16,
        catchupMiB: smoke ? 1 : 128,
        jsonMiB: smoke ? 0.2 : 9,
        pageLimit: smoke ? 50 : 1000,
        listWarmup: smoke ? 2 : 40,
        listReps: smoke ? 2 : 50,
        listers: 8,
        listMs: smoke ? 200 : 3000,
        idleMs: smoke ? 100 : 2000,
        loadMs: smoke ? 300 : 8000,
        headEveryMs: 5,
      },
    });
  }
  // One client attacks while another writes (issue 44): the writer's p99 per attack.
  for (const attack of abuse.ATTACKS) {
    cases.push({
      id: `abuse/${attack}`,
      workload: "abuse",
      servers: ["ursa-capped"],
      params: { attack, writeEveryMs: 20, warmupMs: warm(2000, 200), durationMs: dur(8000, 400), targetMiB: smoke ? 0.25 : 4 },
    });
  }
  return cases;
}

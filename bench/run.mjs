#!/usr/bin/env node
// npm run bench [-- options]; `--help` lists them (USAGE below).
//
// Servers are started fresh for every case and round on 127.0.0.1 with a kernel-picked port:
// ursa from dist/ursa (or $URSA_BINARY) with --sync full, the Node reference server in memory
// and file-backed, and a trivial Bun.serve handler as the HTTP ceiling.
import { spawnSync } from "node:child_process";
import { mkdirSync, openSync, readFileSync, writeSync, closeSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildCases } from "./cases.mjs";
import { BUSY_PCT, disturbance, pickBests, runBench, STALL_PCT, STEAL_PCT } from "./lib/bench.mjs";
import { evaluateTargets } from "./lib/targets.mjs";
import { renderReport } from "./lib/report.mjs";
import { stopCluster } from "./lib/pg.mjs";
import { killAllServers, ROOT } from "./lib/servers.mjs";

// Ctrl-C or a timeout: take the servers under test down too, then exit.
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    killAllServers();
    stopCluster();
    process.exit(130);
  });
}

const USAGE = `npm run bench [-- options]

  --smoke               tiny sizes, one round, a few seconds (what npm test runs)
  --only LIST           workloads or case-id prefixes, comma-separated (append,cas,sse,catchup,longpoll,churn);
                        a trailing $ takes one case id exactly (append/bin256+producer/1x1$)
  --servers LIST        server kinds (ursa, ref-mem, ref-file, ceiling, fsync-ceiling, http-sync-ceiling; also ursa-normal, ursa-mem, ursa-b and ursa-b-pg = $URSA_BINARY_B)
  --rounds N            rounds per case, interleaved across servers (default 2)
  --duration-ms N       measured window per timed case (default 5000; sse 8000)
  --warmup-ms N         unmeasured warm-up per timed case (default 1000)
  --threads N           client worker threads for append/cas/sse load (default 1: 2-core box)
  --out FILE            JSON lines output (default bench/out/bench-<time>.jsonl)
  --results-md          also write the markdown report to bench/RESULTS.md (or --results-path FILE)
  --wait-quiet-s N      before each run wait up to N s for other processes to go quiet
                        (default 120; 0 in --smoke); other CPU is reported per run either way
  --retry-busy N        rerun a disturbed run (other processes > ${BUSY_PCT}% of a core, the host
                        taking > ${STEAL_PCT}% of a core (steal), or an append run that stalled) up to
                        N times (default 2; 0 in --smoke); best-of prefers undisturbed runs
  --from-jsonl FILE     do not run: re-render the tables (and --results-md) from a JSON lines file
  --list                print the cases and exit
  --help                print this and exit

dist/ursa is built first (npm run build, a few seconds), so the run measures the working tree;
with URSA_BINARY=path that binary is measured as it is, and nothing is built.`;

const OPTIONS = {
  smoke: { type: "boolean", default: false },
  only: { type: "string" },
  servers: { type: "string" },
  rounds: { type: "string" },
  "duration-ms": { type: "string" },
  "warmup-ms": { type: "string" },
  threads: { type: "string" },
  out: { type: "string" },
  "results-md": { type: "boolean", default: false },
  "results-path": { type: "string" },
  list: { type: "boolean", default: false },
  "wait-quiet-s": { type: "string" },
  "retry-busy": { type: "string" },
  "from-jsonl": { type: "string" },
  help: { type: "boolean", default: false },
};

let a;
try {
  a = parseArgs({ options: OPTIONS, allowPositionals: false, strict: true }).values;
} catch (error) {
  console.error(`bench: ${error.message}\n\n${USAGE}`);
  process.exit(2);
}
if (a.help) {
  console.log(USAGE);
  process.exit(0);
}
const num = (s) => (s === undefined ? undefined : Number(s));
const list = (s) => (s ? s.split(",").map((x) => x.trim()).filter(Boolean) : undefined);

const cases = buildCases(a.smoke ? "smoke" : "full", { durationMs: num(a["duration-ms"]), warmupMs: num(a["warmup-ms"]), threads: num(a.threads) });
if (a.list) {
  for (const c of cases) console.log(`${c.id.padEnd(34)} ${c.servers.join(", ")}  ${JSON.stringify(c.params)}`);
  process.exit(0);
}

let result, command, seconds, outPath;
if (a["from-jsonl"]) {
  // Re-render a finished run: which runs were disturbed, bests and targets are recomputed with
  // the current code; the report counts the reruns that were actually made.
  outPath = resolve(a["from-jsonl"]);
  const lines = readFileSync(outPath, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const runs = lines.filter((l) => l.type === "run").map((r) => ({ ...r, disturbance: disturbance(r.workload, r.server, r.metrics, r.params) }));
  const end = lines.find((l) => l.type === "end");
  const meta = { ...lines.find((l) => l.type === "meta"), loadavgEnd: end?.loadavg ?? [] };
  const bests = pickBests(runs);
  result = { meta, runs, bests, targets: evaluateTargets(bests, runs), skippedServers: [] };
  command = end?.command ?? "(unknown)";
  seconds = end?.seconds ?? NaN;
} else {
  if (!process.env.URSA_BINARY) buildUrsa();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  outPath = resolve(a.out ?? `${ROOT}/bench/out/bench-${stamp}.jsonl`);
  mkdirSync(dirname(outPath), { recursive: true });
  const fd = openSync(outPath, "w");
  command = ["npm run bench", ...(process.argv.length > 2 ? ["--", ...process.argv.slice(2)] : [])].join(" ");
  const t0 = performance.now();
  console.log(`ursa bench (${a.smoke ? "smoke" : "full"}) → ${relative(process.cwd(), outPath)}`);
  result = await runBench({
    cases,
    only: list(a.only),
    servers: list(a.servers),
    rounds: num(a.rounds) ?? (a.smoke ? 1 : 2),
    waitQuietMs: 1000 * (num(a["wait-quiet-s"]) ?? (a.smoke ? 0 : 120)),
    retryBusy: num(a["retry-busy"]) ?? (a.smoke ? 0 : 2),
    emit: (line) => writeSync(fd, JSON.stringify(line) + "\n"),
    log: (m) => console.log(m),
  });
  seconds = (performance.now() - t0) / 1000;
  writeSync(fd, JSON.stringify({ type: "end", command, seconds, loadavg: result.meta.loadavgEnd }) + "\n");
  closeSync(fd);
}

console.log(renderReport(result));
const m = result.meta;
console.log(`\n${m.cpus}× ${m.cpuModel}, ${m.memGiB} GiB, ${m.kernel}, node ${m.node}, bun ${m.bun}, git ${m.git}${m.gitDirty ? "+dirty" : ""}; ${seconds.toFixed(0)} s`);
console.log(`JSON lines: ${outPath}`);

if (a["results-md"]) {
  const mdPath = resolve(a["results-path"] ?? `${ROOT}/bench/RESULTS.md`);
  writeFileSync(mdPath, resultsMarkdown(result, command, seconds));
  console.log(`Markdown: ${mdPath}`);
}

const failedRuns = result.runs.filter((r) => r.error).length;
process.exitCode = failedRuns ? 1 : 0;

/** Without it a fresh clone would bench no ursa at all, and an edited tree a stale binary. */
function buildUrsa() {
  console.log("building dist/ursa (npm run build) ...");
  const built = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  if (built.status !== 0) {
    console.error("bench: npm run build failed; fix it, or set URSA_BINARY to bench a binary as it is");
    process.exit(1);
  }
}

function resultsMarkdown(result, command, seconds) {
  const m = result.meta;
  return `# Benchmark results (latest run)

Generated by \`bench/run.mjs\`; see \`bench/README.md\` for what each workload does.

- **When:** ${m.at} (${seconds.toFixed(0)} s wall)
- **Command:** \`${command}\`
- **Machine:** ${m.cpus}× ${m.cpuModel}, ${m.memGiB} GiB RAM, ${m.kernel}; load average (1/5/15 min) ${m.loadavg.join(" / ")} at start, ${m.loadavgEnd.join(" / ")} at the end
- **Software:** node ${m.node}, bun ${m.bun}, @durable-streams/server ${m.refServer}, repo at git ${m.git}${m.gitDirty ? " (dirty tree)" : ""}${m.ursa ? `, binary ${m.ursa.bytes.toLocaleString("en-US")} B built ${m.ursa.mtime} (sha256 ${m.ursa.sha256}…)` : ", **no ursa binary**"}
- **Method:** every server started fresh per case and round on 127.0.0.1; rounds interleaved (order reversed on alternate rounds); each figure is the best round, preferring undisturbed rounds (other processes under ${BUSY_PCT}% of a core, the host taking (steal) under ${STEAL_PCT}% of a core; in append runs, except against the file-backed reference, the server or the client above ${STALL_PCT}%). ursa runs durable (\`--sync full\`); "reference" is \`@durable-streams/server\` \`DurableStreamTestServer\` in memory, or file-backed (\`dataDir\`). The client is one Node process (raw HTTP/1.1 over keep-alive sockets, load in a worker thread) on the same 2 cores as the server, so client CPU is reported too.

${renderReport(result, { md: true })}

### Reading notes

- **Ceiling rows are bounded by the client as much as by Bun.** The append ceiling runs the client at ~100% of a core (about 11 µs of client CPU per request, most of it the kernel's loopback write), so "of ceiling" is a fraction of what this client and machine can push through HTTP, not of Bun.serve alone. A second client thread makes it slower on 2 cores.
- **Catch-up reads the newest data from memory.** ursa keeps the newest messages (64 MiB, at most 4,096 messages: \`--read-cache-mb\`) in memory after writing them, so about 64 of the stream's 100 MiB are served from memory and the rest through SQLite's memory map. With \`--read-cache-mb 0\` everything comes from SQLite: 848 and 943 MB/s against 1,039 and 1,569 MB/s with the cache in alternating runs on 2026-11-30.
- **Reference (file) at 500 streams answers mostly 404.** Its file handle pool keeps 100 handles; with more hot streams it evicts a handle between write and fsync, the fsync throws "handle not found", and the server maps any "not found" error to 404. Its appends/s counts only the 2xx, so the 15× target is judged only where it answered cleanly (100 streams).
- **Reference (memory) p999 at 500 writers** includes GC pauses of its growing in-memory log (RSS grows by ~80 MB per 5 s run).
- **The reference's in-memory append rate varies between fresh starts far more than ursa's.** At bin256 100×100 on 2026-11-30, back-to-back runs gave the reference 35.6k and 27.0k appends/s (29.0 and 39.5 µs of server CPU per append) and ursa 41.7k and 42.4k; across that day's full runs the reference did 22.6k–34.6k. The best-of-2 ratio at 100×100 moves with the reference's better start (1.16× to 1.57× that day).
- **Server CPU per append** is (utime+stime of the server process over the measured window) / appends acknowledged in it, from /proc/<pid>/stat in 10 ms ticks. It can exceed 100% of a core: Bun and SQLite use helper threads.
`;
}

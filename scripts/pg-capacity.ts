// The inputs of docs/multi-instance.md's capacity model, measured on this machine: one ursa
// instance (dist/ursa --postgres) on a throwaway cluster (server/testing/pg-cluster.ts, fsync and
// synchronous_commit on), W closed-loop producer appends of 256 B on W streams, and for each W:
// appends/s, ursa's CPU per append (u), the cluster's CPU per append (p), WAL bytes per append
// (w), writes per group commit (k) and its duration (ursa's metrics); then pgbench's commits/s with
// one 256 B INSERT per transaction at 1 and 16 clients on the same cluster (F). Prints markdown.
// Run it on a quiet machine: the client shares the cores with both servers.
//
//   node_modules/.bin/bun scripts/pg-capacity.ts [--seconds 8] [--writers 1,16]

import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { asClusterUser, pgBinDir, PG_SUPERUSER, startPgCluster } from "../server/testing/pg-cluster.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, writers: { type: "string", default: "1,16" } } });
const seconds = Number(values.seconds);
const writerCounts = values.writers.split(",").map(Number);
const BINARY = resolve(import.meta.dirname, "..", process.env.URSA_BINARY ?? "dist/ursa");
const TICK = 100; // clock ticks per second (/proc/<pid>/stat)

/** utime + stime of a process, in seconds; 0 once it is gone. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/** The postmaster and every process it started, with CPU so far (exited ones are not counted). */
function clusterCpu(postmaster: number): number {
  let sum = cpuOf(postmaster);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      if (Number(stat[1]) === postmaster) sum += (Number(stat[11]) + Number(stat[12])) / TICK;
    } catch {}
  }
  return sum;
}

const cluster = await startPgCluster();
const postmaster = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
const scalar = async (sql: string) => (await cluster.psql("ursa", sql)).trim().split("\n").pop()!.trim();
/** Group commits and the writes in them so far, from ursa's own metrics. */
async function batches(base: string): Promise<{ sum: number; count: number; seconds: number }> {
  const text = await (await fetch(`${base}/__ursula/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return { sum: read("ursa_group_commit_batch_writes_sum"), count: read("ursa_group_commit_batch_writes_count"), seconds: read("ursa_group_commit_commit_seconds_sum") };
}
const ursa = spawn(BINARY, ["--port", "0", "--postgres", cluster.url], { stdio: ["ignore", "pipe", "pipe"] });
try {
  const base = await new Promise<string>((resolveUrl, reject) => {
    let log = "";
    const seen = (d: Buffer) => {
      log += d;
      const m = /listening (http:\/\/\S+)/.exec(log);
      if (m) resolveUrl(m[1]!);
    };
    ursa.stdout.on("data", seen);
    ursa.stderr.on("data", seen);
    ursa.on("exit", (code) => reject(new Error(`ursa exited ${code}:\n${log}`)));
  });
  const rows: string[] = [];
  const body = new Uint8Array(256).fill(0x61);
  for (const writers of writerCounts) {
    const streams = Array.from({ length: writers }, (_, i) => `${base}/capacity/w${writers}-s${i}`);
    for (const url of streams) {
      const res = await fetch(url, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } });
      if (res.status !== 201) throw new Error(`create ${url}: ${res.status}`);
    }
    let measuring = false;
    let stop = false;
    let appends = 0;
    const writer = async (i: number) => {
      for (let seq = 0; !stop; seq++) {
        const res = await fetch(streams[i]!, { method: "POST", body, headers: { "Content-Type": "application/octet-stream", "Producer-Id": `p${i}`, "Producer-Epoch": "0", "Producer-Seq": String(seq) } });
        if (res.status !== 204 && res.status !== 200) throw new Error(`append: ${res.status} ${await res.text()}`);
        if (measuring) appends++;
      }
    };
    const running = Promise.all(streams.map((_, i) => writer(i)));
    await Bun.sleep(1000);
    const before = { ursa: cpuOf(ursa.pid!), pg: clusterCpu(postmaster), lsn: await scalar("SELECT pg_current_wal_lsn()"), batches: await batches(base), t: performance.now() };
    measuring = true;
    await Bun.sleep(seconds * 1000);
    measuring = false;
    const after = { ursa: cpuOf(ursa.pid!), pg: clusterCpu(postmaster), lsn: await scalar("SELECT pg_current_wal_lsn()"), batches: await batches(base), t: performance.now() };
    stop = true;
    await running;
    const wal = Number(await scalar(`SELECT pg_wal_lsn_diff('${after.lsn}', '${before.lsn}')`));
    const perAppend = (x: number) => (x / appends) * 1e6;
    const commits = after.batches.count - before.batches.count;
    const k = (after.batches.sum - before.batches.sum) / commits;
    const commitMs = ((after.batches.seconds - before.batches.seconds) / commits) * 1000;
    rows.push(
      `| ${writers} × ${writers} | ${Math.round(appends / ((after.t - before.t) / 1000)).toLocaleString("en")} | ${perAppend(after.ursa - before.ursa).toFixed(0)} µs | ${perAppend(after.pg - before.pg).toFixed(0)} µs | ${Math.round(wal / appends)} B | ${k.toFixed(1)} | ${commitMs.toFixed(2)} ms |`,
    );
  }
  await cluster.psql("ursa", "CREATE TABLE pgbench_appends (id bigserial PRIMARY KEY, data bytea NOT NULL)");
  const script = join(cluster.dir, "append.sql");
  writeFileSync(script, "INSERT INTO pgbench_appends (data) VALUES (decode(repeat('ab', 256), 'hex'));\n");
  const ceilings = [1, 16].map((c) => {
    const argv = asClusterUser([join(pgBinDir(), "pgbench"), "-h", cluster.dir, "-p", String(cluster.port), "-U", PG_SUPERUSER, "-n", "-c", String(c), "-j", "1", "-T", String(seconds), "-f", script, "ursa"]);
    const out = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
    const tps = /tps = ([\d.]+)/.exec(out.stdout)?.[1];
    if (!tps) throw new Error(`pgbench failed: ${out.stdout}${out.stderr}`);
    return `${c} client${c === 1 ? "" : "s"}: ${Math.round(Number(tps)).toLocaleString("en")} commits/s`;
  });
  console.log("| writers × streams | appends/s | ursa CPU per append (u) | PostgreSQL CPU per append (p) | WAL per append (w) | appends per commit (k) | a group commit, first statement to COMMIT (mean) |");
  console.log("|---|---|---|---|---|---|---|");
  for (const row of rows) console.log(row);
  console.log(`\npgbench on the same cluster, one 256 B INSERT per transaction (F): ${ceilings.join("; ")}`);
} finally {
  ursa.kill("SIGTERM");
  await new Promise((r) => ursa.once("exit", r));
  await cluster.stop();
}

// PostgreSQL for the bench: one throwaway cluster per bench process (started on first use by
// bench/lib/pg-cluster-host.ts, stopped when this process exits), a fresh database per server
// started, the cluster's process ids for CPU accounting, and the database's own ceiling:
// pgbench running an insert loop shaped like ursa's appends.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { cpuMeter } from "./proc.mjs";
import { Samples } from "./stats.mjs";

const ROOT = resolve(import.meta.dirname, "..", "..");
const BUN = resolve(ROOT, "node_modules/.bin/bun");
let host = null;
let databases = 0;

/** PostgreSQL's server binaries (as server/testing/pg-cluster.ts finds them), or null. */
export function pgBinDir() {
  if (process.env.PG_BINDIR && existsSync(join(process.env.PG_BINDIR, "pgbench"))) return process.env.PG_BINDIR;
  const debian = "/usr/lib/postgresql";
  if (!existsSync(debian)) return null;
  const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, "bin", "pgbench")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(debian, versions[0], "bin") : null;
}

export const pgAvailable = () => pgBinDir() !== null && existsSync(BUN);

function startHost() {
  const child = spawn(BUN, [join(import.meta.dirname, "pg-cluster-host.ts")], { stdio: ["pipe", "pipe", "pipe"] });
  // Neither the host nor its pipes keep this process alive: stopCluster ends them.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream.unref?.();
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const waiting = [];
  let buf = "";
  child.stdout.on("data", (d) => {
    buf += d;
    for (let i; (i = buf.indexOf("\n")) >= 0; ) {
      const line = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      waiting.shift()?.(line);
      if (waiting.length === 0) child.stdout.unref?.();
    }
  });
  const next = () =>
    new Promise((res, rej) => {
      waiting.push(res);
      // Held while an answer is awaited, which may be all this process is doing.
      child.stdout.ref?.();
      child.once("exit", (code) => rej(new Error(`pg-cluster-host exited (${code}): ${err}`)));
    });
  const info = next();
  // However this process ends (a finished run, an error, Ctrl-C), the cluster goes with it.
  process.once("exit", stopCluster);
  return { child, next, info, started: null };
}

/**
 * Stops the cluster (if one was started) and removes its directory, synchronously, so it also
 * works in an exit handler.
 */
export function stopCluster() {
  if (!host) return;
  const { child } = host;
  const started = host.started;
  host = null;
  if (started) {
    const bin = pgBinDir();
    const user = osUser();
    const argv = [join(bin, "pg_ctl"), "stop", "-m", "fast", "-w", "-D", join(started.dir, "data")];
    try {
      execFileSync(user ? "runuser" : argv[0], user ? ["-u", user, "--", ...argv] : argv.slice(1), { stdio: "ignore" });
    } catch {
      // Already stopped.
    }
    rmSync(started.dir, { recursive: true, force: true });
  }
  child.kill("SIGKILL");
}

/** The cluster (started on first call): { url, dir, port }. */
export async function cluster() {
  host ??= startHost();
  const h = host;
  h.started ??= await h.info;
  return h.started;
}

/** A new, empty database on the cluster; its URL. */
export async function freshDatabase() {
  await cluster();
  const reply = host.next();
  host.child.stdin.write(`create bench_${process.pid}_${++databases}\n`);
  const { url, error } = await reply;
  if (error) throw new Error(error);
  return url;
}

/** `root` and its descendants now, from /proc. */
export function processTree(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Exited while we looked.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** A function listing the postmaster and its children (backends, WAL writer, checkpointer...) when called. */
export async function postgresPids() {
  const { dir } = await cluster();
  const postmaster = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n", 1)[0]);
  return () => processTree(postmaster);
}

/** The cluster's OS user when we are root (as pg-cluster.ts runs it), else undefined. */
function osUser() {
  if (process.getuid?.() !== 0) return undefined;
  if (process.env.URSA_PG_OS_USER) return process.env.URSA_PG_OS_USER;
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "ignore" });
    return "postgres";
  } catch {
    return "nobody";
  }
}

/**
 * What PostgreSQL alone allows here: `clients` pgbench connections, each committing one
 * transaction per append, in a closed loop, on a fresh database. Shape "update+insert": an
 * INSERT of `bytes` into a log table and an UPDATE of a per-stream row, about what an
 * acknowledged append must make durable, four statements sent one by one. Shape "insert": the
 * issue's ceiling, one prepared INSERT of `bytes` per transaction and nothing else. Returns
 * transactions/s and latencies (ms) over `durationMs` after `warmupMs`.
 */
export async function pgbenchCeiling({ clients, streams, bytes, warmupMs, durationMs, shape }) {
  const url = await freshDatabase();
  const { dir } = await cluster();
  const bin = pgBinDir();
  const user = osUser();
  const run = (args) => execFileSync(user ? "runuser" : args[0], user ? ["-u", user, "--", ...args] : args.slice(1), { encoding: "utf8", cwd: dir });
  const db = new URL(url).pathname.slice(1);
  const conn = ["-h", dir, "-p", String(new URL(url).port), "-U", decodeURIComponent(new URL(url).username)];
  run([join(bin, "psql"), ...conn, "-d", db, "-q", "-v", "ON_ERROR_STOP=1", "-c",
    `CREATE TABLE heads (stream int PRIMARY KEY, tail bigint NOT NULL);
     CREATE TABLE log (stream int NOT NULL, pos bigint NOT NULL, body bytea NOT NULL, PRIMARY KEY (stream, pos));
     CREATE SEQUENCE positions;
     INSERT INTO heads SELECT s, 0 FROM generate_series(0, ${streams - 1}) s;`]);
  const script = join(dir, `append-${db}.sql`);
  // Each client on its own stream (client_id mod streams), as the append workload's writers are.
  const transaction =
    shape === "insert"
      ? `INSERT INTO log VALUES (:s, nextval('positions'), convert_to(repeat('x', ${bytes}), 'UTF8'));`
      : `BEGIN;
UPDATE heads SET tail = tail + ${bytes} WHERE stream = :s RETURNING tail \\gset
INSERT INTO log VALUES (:s, :tail, convert_to(repeat('x', ${bytes}), 'UTF8'));
COMMIT;`;
  writeFileSync(script, `\\set s :client_id % ${streams}\n${transaction}\n`);
  if (user) execFileSync("chown", [user, script]);
  // Whole seconds (pgbench -T), at least 2: its connections are made inside the duration.
  const seconds = (ms) => String(Math.max(2, Math.round(ms / 1000)));
  const mode = shape === "insert" ? ["-M", "prepared"] : [];
  const argv = (ms) => [join(bin, "pgbench"), ...conn, "-n", ...mode, "-c", String(clients), "-j", "1", "-T", seconds(ms), "-f", script, db];
  run(argv(warmupMs));
  // The measured run is spawned, so its CPU and the cluster's count as the "server's".
  // -l: one line per transaction (its latency in µs is the third field), for percentiles.
  const prefix = join(dir, `latency-${db}`);
  const measured = [...argv(durationMs), "-l", `--log-prefix=${prefix}`];
  const full = user ? ["runuser", "-u", user, "--", ...measured] : measured;
  const child = spawn(full[0], full.slice(1), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  // pgbench runs under runuser when we are root: the whole tree.
  const clusterPids = await postgresPids();
  const meter = cpuMeter(() => [...processTree(child.pid), ...clusterPids()]);
  const code = await new Promise((r) => child.once("exit", r));
  const cpu = meter();
  if (code !== 0) throw new Error(`pgbench exited ${code}:\n${out}`);
  const number = (re) => Number(re.exec(out)?.[1]);
  const lat = new Samples(1 << 16);
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`latency-${db}.`))) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      const us = Number(line.split(" ")[2]);
      if (line && Number.isFinite(us)) lat.add(us / 1000);
    }
  }
  return {
    tps: number(/tps = ([\d.]+)/),
    latency: lat.summary(),
    failed: number(/number of failed transactions: (\d+)/) || 0,
    transactions: number(/number of transactions actually processed: (\d+)/),
    cpu,
  };
}

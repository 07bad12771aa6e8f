// Start and stop the servers under test, each fresh, on 127.0.0.1 with a kernel-picked port.
// Every server prints "listening http://127.0.0.1:PORT ..." on stdout; we wait for that line.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuSeconds, rssKiB } from "./proc.mjs";
import { freshDatabase, pgAvailable, postgresPids } from "./pg.mjs";
import { haproxyAvailable, startHaproxy } from "./haproxy.mjs";

export const ROOT = resolve(import.meta.dirname, "..", "..");
export const URSA_BINARY = resolve(ROOT, process.env.URSA_BINARY ?? "dist/ursa");
let ursaPath = URSA_BINARY;
/** A second ursa binary for A/B runs in one interleaved run (`ursa-b`); copied aside as the first is. */
const URSA_BINARY_B = process.env.URSA_BINARY_B ? resolve(ROOT, process.env.URSA_BINARY_B) : null;
let ursaPathB = URSA_BINARY_B;

/**
 * Copy the ursa binary aside for the whole run, so a rebuild of dist/ursa in the middle of a
 * benchmark (npm test deletes and rebuilds it) cannot mix two builds or remove the binary.
 * Returns a description of the copy and a cleanup function, or null when there is no binary.
 */
export function snapshotUrsa() {
  if (!existsSync(URSA_BINARY)) return null;
  const dir = mkdtempSync(join(tmpdir(), "ursa-bench-bin-"));
  const copy = join(dir, "ursa");
  copyFileSync(URSA_BINARY, copy);
  if (URSA_BINARY_B && existsSync(URSA_BINARY_B)) {
    ursaPathB = join(dir, "ursa-b");
    copyFileSync(URSA_BINARY_B, ursaPathB);
  }
  const st = statSync(URSA_BINARY);
  const sha256 = createHash("sha256").update(readFileSync(copy)).digest("hex").slice(0, 16);
  ursaPath = copy;
  return {
    info: { path: URSA_BINARY, bytes: st.size, mtime: st.mtime.toISOString(), sha256 },
    cleanup() {
      ursaPath = URSA_BINARY;
      ursaPathB = URSA_BINARY_B;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
const BUN = resolve(ROOT, "node_modules/.bin/bun");
const HERE = import.meta.dirname;
// The reference server is a Node program: always run it under Node, even when the harness runs under Bun.
const NODE = process.env.NODE_BINARY ?? (process.versions.bun ? "node" : process.execPath);

/** Long-poll timeout given to every server: longer than any park in the workloads. */
export const LONG_POLL_TIMEOUT_MS = 20000;

/** `bun server/main.ts` with the store's `args`, under Bun's profiler when BENCH_CPU_PROF names a directory. */
function fromSource(args) {
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : [];
  return [BUN, ["--max-http-header-size=32768", ...profile, join(ROOT, "server/main.ts"), "--port", "0", ...args, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]];
}

/**
 * Server kinds. `label` is what tables print.
 * ursa runs durable (--sync full) unless the kind says otherwise.
 */
export const SERVER_KINDS = {
  ursa: {
    label: "ursa (sync full)",
    available: () => existsSync(ursaPath),
    cmd: (dir) => [ursaPath, ["--port", "0", "--data", dir, "--sync", "full", "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    durable: true,
  },
  // The same flags on $URSA_BINARY_B (an older build, say): A/B ratios from one interleaved run.
  "ursa-b": {
    label: "ursa B (sync full)",
    available: () => ursaPathB !== null && existsSync(ursaPathB),
    cmd: (dir) => [ursaPathB, ["--port", "0", "--data", dir, "--sync", "full", "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    durable: true,
  },
  // The abuse workload's subject: durable ursa with few connections, so attacks reach the cap.
  "ursa-capped": {
    label: "ursa (sync full, --max-connections 64)",
    available: () => existsSync(ursaPath),
    cmd: (dir) => [ursaPath, ["--port", "0", "--data", dir, "--sync", "full", "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS), "--max-connections", "64"]],
    needsDir: true,
    durable: true,
  },
  "ursa-b-capped": {
    label: "ursa B (sync full, --max-connections 64)",
    available: () => ursaPathB !== null && existsSync(ursaPathB),
    cmd: (dir) => [ursaPathB, ["--port", "0", "--data", dir, "--sync", "full", "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS), "--max-connections", "64"]],
    needsDir: true,
    durable: true,
  },
  "ursa-normal": {
    label: "ursa (sync normal)",
    available: () => existsSync(ursaPath),
    cmd: (dir) => [ursaPath, ["--port", "0", "--data", dir, "--sync", "normal", "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
  },
  "ursa-mem": {
    label: "ursa (memory)",
    available: () => existsSync(ursaPath),
    cmd: (dir) => [ursaPath, ["--port", "0", "--data", dir, "--memory", "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
  },
  // ursa from the working tree (bun server/main.ts), for profiling: BENCH_CPU_PROF=DIR adds
  // Bun's --cpu-prof and writes a .cpuprofile (and a markdown summary) per run into DIR.
  "ursa-src": {
    label: "ursa src (sync full)",
    available: () => existsSync(join(ROOT, "server/main.ts")) && existsSync(BUN),
    cmd: (dir) => fromSource(["--data", dir, "--sync", "full"]),
    needsDir: true,
    durable: true,
  },
  // The same on the PostgreSQL engine (a fresh database of the bench's cluster), to profile it.
  "ursa-src-pg": {
    label: "ursa src (PostgreSQL)",
    available: () => existsSync(join(ROOT, "server/main.ts")) && existsSync(BUN) && pgAvailable(),
    cmd: (dir, database) => fromSource(["--postgres", database]),
    needsDir: true,
    postgres: true,
    durable: true,
    waitsOnDisk: true,
  },
  "ref-mem": {
    label: "reference (memory)",
    available: () => true,
    cmd: () => [NODE, [join(HERE, "ref-server.mjs"), "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: false,
  },
  "ref-file": {
    label: "reference (file)",
    available: () => true,
    cmd: (dir) => [NODE, [join(HERE, "ref-server.mjs"), "--data", dir, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    waitsOnDisk: true,
  },
  // No server: the append workload runs fsync-ceiling.mjs in this kind's fresh directory (in the
  // same temporary directory as ursa's data), one record and one fdatasync at a time.
  "fsync-ceiling": {
    label: "fdatasync ceiling (plain file)",
    available: () => true,
    cmd: null,
    needsDir: true,
    waitsOnDisk: true,
  },
  // The PostgreSQL engine on a throwaway cluster (bench/lib/pg.mjs), a fresh database per run.
  // Server CPU counts the cluster's processes too, as the database does the durable work.
  "ursa-pg": {
    label: "ursa (PostgreSQL)",
    available: () => existsSync(ursaPath) && pgAvailable(),
    cmd: (dir, database) => [ursaPath, ["--port", "0", "--postgres", database, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    postgres: true,
    durable: true,
    // Its writers wait on PostgreSQL's commits, as durable ursa's wait on fdatasync.
    waitsOnDisk: true,
  },
  // The same on $URSA_BINARY_B: the PostgreSQL engine's A/B ratios from one interleaved run.
  "ursa-b-pg": {
    label: "ursa B (PostgreSQL)",
    available: () => ursaPathB !== null && existsSync(ursaPathB) && pgAvailable(),
    cmd: (dir, database) => [ursaPathB, ["--port", "0", "--postgres", database, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    postgres: true,
    durable: true,
    waitsOnDisk: true,
  },
  // Two instances on one database behind HAProxy, as docs/haproxy.cfg balances them.
  "ursa-pg2": {
    label: "2 x ursa (PostgreSQL) + HAProxy",
    available: () => existsSync(ursaPath) && pgAvailable() && haproxyAvailable(),
    cmd: (dir, database) => [ursaPath, ["--port", "0", "--postgres", database, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    postgres: true,
    instances: 2,
    durable: true,
    waitsOnDisk: true,
  },
  // The same on $URSA_BINARY_B: two-instance A/B ratios from one interleaved run.
  "ursa-b-pg2": {
    label: "B: 2 x ursa (PostgreSQL) + HAProxy",
    available: () => ursaPathB !== null && existsSync(ursaPathB) && pgAvailable() && haproxyAvailable(),
    cmd: (dir, database) => [ursaPathB, ["--port", "0", "--postgres", database, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS)]],
    needsDir: true,
    postgres: true,
    instances: 2,
    durable: true,
    waitsOnDisk: true,
  },
  // No server: the append workload runs pgbench on a fresh database of the same cluster, one
  // transaction per append (an UPDATE of the stream's row and an INSERT of the body), as many
  // clients as the case has writers (pg.mjs pgbenchCeiling). What the database alone allows.
  "pg-ceiling": {
    label: "PostgreSQL ceiling (pgbench)",
    available: () => pgAvailable(),
    cmd: null,
    needsDir: true,
    waitsOnDisk: true,
  },
  // The ceiling: the same, but one prepared INSERT of the body per transaction.
  "pg-insert-ceiling": {
    label: "PostgreSQL ceiling (pgbench, 1 INSERT)",
    available: () => pgAvailable(),
    cmd: null,
    needsDir: true,
    waitsOnDisk: true,
  },
  ceiling: {
    label: "Bun.serve ceiling",
    available: () => existsSync(BUN),
    cmd: () => [BUN, [join(HERE, "ceiling-server.mjs")]],
    needsDir: false,
  },
  // The same handler, each POST's body appended to a plain file and answered once synced, the
  // syncs shared among concurrent writers as ursa's group commit shares them.
  "http-sync-ceiling": {
    label: "Bun.serve + fdatasync ceiling",
    available: () => existsSync(BUN),
    cmd: (dir) => [BUN, [join(HERE, "ceiling-server.mjs"), "--sync-dir", dir]],
    needsDir: true,
    waitsOnDisk: true,
  },
};

// Every server child still running, so an interrupted benchmark can take them down with it.
const live = new Set();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** SIGKILL every server this process started and has not stopped yet. */
export function killAllServers() {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
}

/** A kind the workload runs itself (the fdatasync ceiling): only its directory to clean up. */
function processless(kind, def, dataDir) {
  return {
    kind,
    label: def.label,
    url: null,
    pid: null,
    dataDir,
    log: () => "",
    alive: () => true,
    exitInfo: () => null,
    async stop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * @returns {Promise<{kind:string,label:string,url:string,pid:number,dataDir:string|null,
 *   log:()=>string, cpuSeconds:()=>number, rssKiB:()=>number, alive:()=>boolean, stop:()=>Promise<void>,
 *   restart:()=>Promise<{spawnedAt:number}>}>}
 * `restart` stops the server with SIGTERM and starts it again on the same data directory; `url`
 * and `pid` change, and it resolves with the moment (performance.now()) the new process was spawned.
 */
export async function startServer(kind) {
  const def = SERVER_KINDS[kind];
  if (!def) throw new Error(`unknown server kind ${kind}`);
  const dataDir = def.needsDir ? mkdtempSync(join(tmpdir(), `ursa-bench-${kind}-`)) : null;
  if (def.cmd === null) return processless(kind, def, dataDir);
  if (def.instances) return startBalanced(kind, def, dataDir);
  const database = def.postgres ? await freshDatabase() : undefined;
  let proc = await spawnServer(kind, def, dataDir, 15_000, database);
  const pgPids = def.postgres ? await postgresPids() : () => [];
  const server = {
    kind,
    label: def.label,
    url: proc.url,
    pid: proc.pid,
    dataDir,
    log: () => proc.log(),
    cpuSeconds: () => cpuSeconds(proc.pid),
    cpuPids: () => () => [proc.pid, ...pgPids()],
    rssKiB: () => rssKiB(proc.pid),
    alive: () => proc.exitInfo() === null,
    exitInfo: () => proc.exitInfo(),
    async restart() {
      await proc.terminate();
      const spawnedAt = performance.now();
      // A start over a large data directory may take long (that is what restart measures).
      proc = await spawnServer(kind, def, dataDir, 300_000, database);
      server.url = proc.url;
      server.pid = proc.pid;
      return { spawnedAt };
    },
    async stop() {
      await proc.terminate();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/**
 * `def.instances` instances on one fresh database, HAProxy in front; `url` is the balancer's,
 * CPU and RSS are the instances' (and CPU the cluster's) summed.
 */
async function startBalanced(kind, def, dataDir) {
  const database = await freshDatabase();
  const procs = [];
  try {
    for (let i = 0; i < def.instances; i++) procs.push(await spawnServer(kind, def, dataDir, 15_000, database));
  } catch (error) {
    await Promise.all(procs.map((p) => p.terminate()));
    throw error;
  }
  const lb = await startHaproxy(procs.map((p) => p.url)).catch(async (error) => {
    await Promise.all(procs.map((p) => p.terminate()));
    throw error;
  });
  const pgPids = await postgresPids();
  const down = () => procs.find((p) => p.exitInfo() !== null);
  return {
    kind,
    label: def.label,
    url: lb.url,
    // Each instance's own address, for a workload that must reach one in particular (longpoll).
    instanceUrls: procs.map((p) => p.url),
    pid: procs[0].pid,
    dataDir,
    log: () => procs.map((p, i) => `--- instance ${i}\n${p.log()}`).join("\n") + `\n--- haproxy\n${lb.log()}`,
    cpuSeconds: () => procs.reduce((sum, p) => sum + cpuSeconds(p.pid), 0),
    cpuPids: () => () => [...procs.map((p) => p.pid), ...pgPids()],
    rssKiB: () => procs.reduce((sum, p) => sum + rssKiB(p.pid), 0),
    alive: () => down() === undefined,
    exitInfo: () => down()?.exitInfo() ?? null,
    async restart() {
      throw new Error(`${kind} does not restart`);
    },
    async stop() {
      await lb.stop();
      await Promise.all(procs.map((p) => p.terminate()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function spawnServer(kind, def, dataDir, startTimeoutMs = 15_000, database = undefined) {
  const [cmd, args] = def.cmd(dataDir, database);
  const child = spawn(cmd, args, { cwd: dataDir ?? tmpdir(), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production" } });
  let log = "";
  const keep = (d) => {
    log += d;
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  child.stderr.on("data", keep);
  live.add(child);
  const exited = new Promise((r) => child.once("exit", (code, sig) => r({ code, sig })));
  exited.then(() => live.delete(child));
  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${kind} did not start in ${startTimeoutMs / 1000} s:\n${log}`)), startTimeoutMs);
    child.stdout.on("data", (d) => {
      keep(d);
      const m = /listening (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        res(m[1].replace(/\/$/, ""));
      }
    });
    exited.then(({ code, sig }) => rej(new Error(`${kind} exited early (${code ?? sig}):\n${log}`)));
    child.once("error", rej);
  });
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) {
    child.kill("SIGKILL");
    throw new Error(`${kind} is not on 127.0.0.1: ${url}`);
  }
  let exitInfo = null;
  exited.then((x) => (exitInfo = x));
  return {
    url,
    pid: child.pid,
    log: () => log,
    exitInfo: () => exitInfo,
    async terminate() {
      if (exitInfo !== null) return;
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

// A throwaway PostgreSQL cluster for tests and tools: initdb into a temporary directory, a
// postmaster on a free loopback port (its socket in the same directory), removed by stop().
//
// Only node: APIs, so vitest (node) and bun test can both use it.
//
// Durability is what the PostgreSQL engine is tested for, so fsync and synchronous_commit keep
// their defaults (on); the cluster is not tuned for speed. Only initdb runs with --no-sync: the
// files it writes are a template a host crash may lose along with the throwaway cluster.
//
// Running as root: initdb and postgres refuse uid 0. When this process is root, every cluster
// command runs through `runuser -u <user> --`, where <user> is $URSA_PG_OS_USER, else
// `postgres` (Debian's postgresql package creates it), else `nobody`; the temporary directory
// is chowned to that user. As any other user, the commands run as that user directly.
// Authentication is `trust` on loopback and the socket: the cluster lives for one test run and
// listens on 127.0.0.1 only.

import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PG_SUPERUSER = "ursa";

export interface PgCluster {
  /** The data directory's parent: data/, the socket, the server log. */
  readonly dir: string;
  readonly port: number;
  /** A URL for the database created at start (`ursa` unless asked otherwise). */
  readonly url: string;
  /** A URL for another database on the same cluster (not created: see createDatabase). */
  urlFor(database: string): string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL in a database with psql (for tests under node, which has no PostgreSQL client); its output, unaligned. */
  psql(database: string, sql: string): Promise<string>;
  /** Stops the postmaster (fast shutdown) and keeps the data: for outage tests. */
  halt(): Promise<void>;
  /** Starts a halted cluster again on the same port. */
  resume(): Promise<void>;
  /** Stops the postmaster at once, as a crash would (immediate shutdown: no checkpoint), keeping the data. */
  crash(): Promise<void>;
  /** The server log so far, for a failing test's message. */
  log(): string;
  /** Stops the postmaster and removes the directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface PgClusterOptions {
  /** The database created at start. */
  database?: string;
  /** Extra `-c name=value` settings for the postmaster. */
  settings?: Record<string, string>;
}

/** A streaming-replication standby of a cluster, started by startStandby. */
export interface PgStandby extends PgCluster {
  /** Ends recovery: the standby becomes a primary that takes writes. */
  promote(): Promise<void>;
}

/** The name a standby reports to its primary: what `synchronous_standby_names` names. */
export const STANDBY_NAME = "ursa_standby";

/** A test framework's file hooks (vitest's and bun:test's both fit). */
export interface FileHooks {
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  afterAll(fn: () => Promise<void>, timeout?: number): void;
}

/**
 * One cluster for a test file: started before its first test (initdb takes a few seconds, more
 * under load), stopped and removed after its last. The getter is for use inside the tests.
 */
export function clusterPerFile(hooks: FileHooks, options: PgClusterOptions = {}): () => PgCluster {
  let cluster: PgCluster | undefined;
  hooks.beforeAll(async () => {
    cluster = await startPgCluster(options);
  }, 120_000);
  hooks.afterAll(async () => {
    await cluster?.stop();
  }, 60_000);
  return () => {
    if (!cluster) throw new Error("the test file's PostgreSQL cluster did not start");
    return cluster;
  };
}

/** Where the PostgreSQL server binaries are: $PG_BINDIR, `pg_config --bindir`, Debian's layout, PATH. */
export function pgBinDir(): string {
  const fromEnv = process.env.PG_BINDIR;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
    if (existsSync(join(dir, "initdb"))) return dir;
  } catch {
    // pg_config is in libpq-dev, which a server-only install may lack; fall through.
  }
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin");
  }
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "initdb"))) return dir;
  }
  throw new Error("no PostgreSQL server binaries found: install postgresql or set PG_BINDIR");
}

/** Whether a cluster can be started here (the binaries exist). */
export function pgAvailable(): boolean {
  try {
    pgBinDir();
    return true;
  } catch {
    return false;
  }
}

function osUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const wanted = process.env.URSA_PG_OS_USER;
  if (wanted) return wanted;
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "ignore" });
    return "postgres";
  } catch {
    return "nobody";
  }
}

function idOf(user: string, flag: "-u" | "-g"): number {
  return Number(execFileSync("id", [flag, user], { encoding: "utf8" }).trim());
}

/** A loopback port the kernel has just handed out and released (also the balancer's, e2e/balancer.ts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A PostgreSQL client command (pgbench, psql) as the clusters' OS user runs it (runuser when root). */
export function asClusterUser(command: string[]): string[] {
  const user = osUser();
  return user ? ["runuser", "-u", user, "--", ...command] : command;
}

function run(command: string[], user: string | undefined): Promise<{ code: number; output: string }> {
  const argv = user ? ["runuser", "-u", user, "--", ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function must(command: string[], user: string | undefined): Promise<void> {
  const { code, output } = await run(command, user);
  if (code !== 0) throw new Error(`${command.join(" ")} failed (${code}):\n${output}`);
}

interface Node {
  cluster: PgCluster;
  /** Picks a free port and starts the postmaster on it, trying a few ports. */
  startOnFreePort(): Promise<void>;
  bin: string;
  user: string | undefined;
  data: string;
}

/** A cluster directory and the commands that run its postmaster; nothing started yet. */
function node(options: PgClusterOptions): Node {
  const bin = pgBinDir();
  const user = osUser();
  const dir = mkdtempSync(join(tmpdir(), "ursa-pg-"));
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  if (user) chownSync(dir, idOf(user, "-u"), idOf(user, "-g"));
  const database = options.database ?? "ursa";
  let port = 0;
  let running = false;
  let removed = false;

  const pgArgs = () => {
    const settings: Record<string, string> = {
      listen_addresses: "127.0.0.1",
      port: String(port),
      unix_socket_directories: dir,
      fsync: "on",
      synchronous_commit: "on",
      max_connections: "200",
      ...options.settings,
    };
    return Object.entries(settings)
      .map(([k, v]) => `-c ${k}=${v}`)
      .join(" ");
  };

  const start = async (): Promise<void> => {
    const { code, output } = await run(
      [join(bin, "pg_ctl"), "start", "-w", "-t", "60", "-D", data, "-l", logFile, "-o", pgArgs()],
      user,
    );
    if (code !== 0) throw new Error(`pg_ctl start failed (${code}):\n${output}\n${readLog()}`);
    running = true;
  };

  /**
   * Starts a halted cluster on its port, which was free while it was halted: an outgoing
   * connection may hold it as its ephemeral port for a moment, so a failed bind is tried again.
   */
  const resume = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const logged = readLog().length;
      try {
        return await start();
      } catch (error) {
        if (attempt >= 20 || !/could not bind|Address already in use/.test(readLog().slice(logged))) throw error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  const readLog = (): string => {
    return existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
  };

  const stopWith = async (mode: "fast" | "immediate"): Promise<void> => {
    if (!running) return;
    await must([join(bin, "pg_ctl"), "stop", "-w", "-m", mode, "-D", data], user);
    running = false;
  };

  const urlFor = (db: string) => `postgres://${PG_SUPERUSER}@127.0.0.1:${port}/${db}`;

  const cluster: PgCluster = {
    dir,
    get port() {
      return port;
    },
    get url() {
      return urlFor(database);
    },
    urlFor,
    async createDatabase(name) {
      await must(
        [join(bin, "createdb"), "-h", dir, "-p", String(port), "-U", PG_SUPERUSER, name],
        user,
      );
      return urlFor(name);
    },
    async psql(db, text) {
      const { code, output } = await run([join(bin, "psql"), "-h", dir, "-p", String(port), "-U", PG_SUPERUSER, "-d", db, "-AtX", "-v", "ON_ERROR_STOP=1", "-c", text], user);
      if (code !== 0) throw new Error(`psql failed (${code}):\n${output}`);
      return output.trim();
    },
    halt: () => stopWith("fast"),
    resume,
    crash: () => stopWith("immediate"),
    log: readLog,
    async stop() {
      if (removed) return;
      removed = true;
      try {
        await stopWith("fast");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };

  return {
    cluster,
    bin,
    user,
    data,
    async startOnFreePort() {
      // A port found free can be taken before the postmaster binds it: try a few.
      for (let attempt = 0; ; attempt++) {
        port = await freePort();
        try {
          await start();
          return;
        } catch (error) {
          if (attempt >= 4) throw error;
        }
      }
    },
  };
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const { cluster, bin, user, data, startOnFreePort } = node(options);
  try {
    await must(
      [join(bin, "initdb"), "-D", data, "-U", PG_SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"],
      user,
    );
    await startOnFreePort();
    await cluster.createDatabase(options.database ?? "ursa");
    return cluster;
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * A standby of `primary` on its own loopback port: a base backup (pg_basebackup, streaming the
 * WAL it needs) that then follows the primary's WAL, reporting itself as STANDBY_NAME, so a
 * primary started with `synchronous_standby_names` waits for it at every commit. `options.settings`
 * are the standby's own (none of the primary's are copied: they would bind it once promoted).
 */
export async function startStandby(primary: PgCluster, options: Omit<PgClusterOptions, "database"> = {}): Promise<PgStandby> {
  const { cluster, bin, user, data, startOnFreePort } = node(options);
  const standby: PgStandby = {
    ...cluster,
    get port() {
      return cluster.port;
    },
    get url() {
      return cluster.url;
    },
    async promote() {
      await must([join(bin, "pg_ctl"), "promote", "-w", "-t", "60", "-D", data], user);
    },
  };
  try {
    await must([join(bin, "pg_basebackup"), "-h", primary.dir, "-p", String(primary.port), "-U", PG_SUPERUSER, "-D", data, "-X", "stream", "--checkpoint=fast", "--no-sync"], user);
    const conninfo = `host=127.0.0.1 port=${primary.port} user=${PG_SUPERUSER} application_name=${STANDBY_NAME}`;
    appendFileSync(join(data, "postgresql.auto.conf"), `primary_conninfo = '${conninfo}'\n`);
    writeFileSync(join(data, "standby.signal"), "");
    await startOnFreePort();
    return standby;
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
}

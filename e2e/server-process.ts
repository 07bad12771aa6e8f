// Starts the compiled binary the way a user would: a fresh data directory, a kernel-picked
// port (--port 0, so no probe-then-bind race), and the URL read from its start-up line.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const BINARY = resolve(import.meta.dirname, "..", process.env.URSA_BINARY ?? "dist/ursa");

/** What every started binary gets as --long-poll-timeout-ms; the conformance suite sizes its
 * long-poll test budgets from the same number, so both must come from here. */
export const LONG_POLL_TIMEOUT_MS = 500;

export interface UrsaProcess {
  url: string;
  dataDir: string;
  child: ChildProcess;
  log(): string;
  /**
   * The log once it contains `text` (stderr is a pipe of its own, so a line logged at start may
   * arrive after the listening line on stdout); the log as it is after `timeoutMs` otherwise.
   */
  logged(text: string, timeoutMs?: number): Promise<string>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit: no chance to flush anything. */
  kill(): Promise<void>;
  /** Remove the data directory (after stop or kill). */
  cleanup(): void;
}

export interface StartOptions {
  /** Reuse a data directory, e.g. to restart over the same files. */
  dataDir?: string;
  args?: string[];
  /** Run under `ulimit -n N` (soft and hard), or a soft and a hard limit, as a host with few file descriptors would. */
  openFileLimit?: number | { soft: number; hard: number };
  /** Extra environment for the binary. */
  env?: Record<string, string>;
  /** Keep streams in this PostgreSQL database (`--postgres URL`) instead of SQLite in the data directory. */
  postgres?: string;
}

function ulimit(limit: number | { soft: number; hard: number }): string {
  return typeof limit === "number" ? `ulimit -n ${limit}` : `ulimit -Sn ${limit.soft} && ulimit -Hn ${limit.hard}`;
}

export async function startUrsa(options: StartOptions = {}): Promise<UrsaProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "ursa-e2e-"));
  const store = options.postgres === undefined ? ["--data", dataDir] : ["--postgres", options.postgres];
  const args = ["--port", "0", ...store, "--long-poll-timeout-ms", String(LONG_POLL_TIMEOUT_MS), ...(options.args ?? [])];
  const env = { ...process.env, ...options.env };
  const child =
    options.openFileLimit === undefined
      ? spawn(BINARY, args, { cwd: dataDir, env, stdio: ["ignore", "pipe", "pipe"] })
      : spawn("bash", ["-c", `${ulimit(options.openFileLimit)} && exec "$0" "$@"`, BINARY, ...args], { cwd: dataDir, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr!.on("data", (d) => (log += d));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`ursa did not start in 10 s:\n${log}`)), 10_000);
    child.stdout!.on("data", (d) => {
      log += d;
      const m = /listening (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`ursa exited early (${code}):\n${log}`)));
    child.once("error", reject);
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    url,
    dataDir,
    child,
    log: () => log,
    async logged(text, timeoutMs = 2000) {
      for (const until = Date.now() + timeoutMs; !log.includes(text) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
      return log;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One unlabelled sample from the binary's /__ursula/metrics. */
export async function metric(u: UrsaProcess, name: string): Promise<number> {
  const text = await (await fetch(`${u.url}/__ursula/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in the metrics`);
  return Number(line.split(" ")[1]);
}

export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Once the store has nothing left to do behind its commits: reclaims, moves and start-up sweeps done. */
export function caughtUp(u: UrsaProcess, timeoutMs = 30_000): Promise<void> {
  return until("ursa_background_tasks to read 0", async () => (await metric(u, "ursa_background_tasks")) === 0, timeoutMs);
}

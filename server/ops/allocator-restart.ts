// The allocator built into Bun (mimalloc) gives pages back to the kernel 10 ms after they empty, so
// each large catch-up response faults in again the memory that the one before it freed
// (docs/design/allocator.md). mimalloc reads
// its options only as the process starts, and the binary exports none of its functions, so the one
// way to give every user a longer delay is for the binary to start itself once more with the option
// in its environment. execve keeps the pid, the open descriptors and the arguments, so a supervisor,
// a kill -9 and the database lock (taken later) see one process.

/** mimalloc's option: how long freed memory is kept before it goes back to the kernel. */
export const PURGE_DELAY_VAR = "MIMALLOC_PURGE_DELAY";
/**
 * Freed memory is kept for seconds rather than mimalloc's default of milliseconds: far fewer page
 * faults on large reads, for RSS that falls back shortly after a burst (docs/design/allocator.md).
 */
export const PURGE_DELAY_MS = "5000";

export interface RunningAs {
  env: Record<string, string | undefined>;
  platform: string;
  /** Bun.main: inside a compiled binary, a path in its embedded file system. */
  main: string;
}

/**
 * The environment to start again with, or null when this start already runs with it. A value the
 * user set wins (10 is mimalloc's own). Only the compiled binary restarts: its arguments are the
 * user's alone, where `bun server/main.ts` would need its script path kept. Windows has no execve.
 */
export function restartEnv(running: RunningAs): Record<string, string> | null {
  if (running.platform === "win32" || !running.main.startsWith("/$bunfs/")) return null;
  if (running.env[PURGE_DELAY_VAR] !== undefined) return null;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(running.env)) if (value !== undefined) env[name] = value;
  env[PURGE_DELAY_VAR] = PURGE_DELAY_MS;
  return env;
}

/** Bun has Node's process.execve; the @types/node the scripts are checked against (Node 20) predates it. */
type Execs = typeof process & { execve(file: string, args: string[], env: Record<string, string>): never };

/** Becomes this same binary again with the allocator option set; returns only when there is nothing to do. */
export function restartWithAllocatorOptions(): void {
  const env = restartEnv({ env: process.env, platform: process.platform, main: Bun.main });
  if (env === null) return;
  try {
    (process as Execs).execve(process.execPath, [process.argv0, ...process.argv.slice(2)], env);
  } catch {
    // A binary that cannot execute itself (its file replaced or removed since it started) still
    // serves correctly with the allocator's defaults; only large catch-ups are slower.
  }
}

// The open-file limit the process runs under. Bun raises the soft RLIMIT_NOFILE to the hard limit
// as it starts, so what /proc reports here is already the most the process can have; the
// connection and live-reader caps are sized from it.

import { readFileSync } from "node:fs";

/** Where the limit cannot be read (macOS, Windows): macOS's OPEN_MAX, a limit Bun can raise to there. */
export const FALLBACK_FD_LIMIT = 10_240;

/** The soft limit on open files, from /proc/self/limits (Linux), or null where there is none to read. */
export function openFileLimit(limits = readLimits()): number | null {
  if (limits === null) return null;
  const m = /^Max open files\s+(\S+)/m.exec(limits);
  if (!m) return null;
  // "unlimited" does not happen for files on Linux; were it to, the spec's live-reader cap still bounds things.
  return m[1] === "unlimited" ? Number.MAX_SAFE_INTEGER : Number(m[1]);
}

function readLimits(): string | null {
  try {
    return readFileSync("/proc/self/limits", "utf8");
  } catch {
    return null;
  }
}

// Scratch directories and started binaries for one test file, all removed or stopped after it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { UrsaProcess } from "./server-process.ts";

export function scratchSpace(prefix: string) {
  const dirs: string[] = [];
  const running: UrsaProcess[] = [];
  afterAll(async () => {
    for (const u of running) await u.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return {
    /** A fresh directory. */
    dir(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    /** Stopped after the file's tests. */
    keep(u: UrsaProcess): UrsaProcess {
      running.push(u);
      return u;
    },
  };
}

// A scratch directory for one test, removed afterwards whatever happens.

import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function inTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "ursa-test-"));
  try {
    return await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What is on disk at this moment, as a kill -9 would leave it: the WAL first, then the database. */
export function snapshot(path: string, into: string): string {
  const copy = join(into, `snap-${Math.random().toString(36).slice(2)}.sqlite`);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  copyFileSync(path, copy);
  return copy;
}

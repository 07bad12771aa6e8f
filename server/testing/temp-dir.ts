// A scratch directory for one test, removed afterwards whatever happens.

import { Database } from "bun:sqlite";
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

/**
 * What is on disk at this moment, as a kill -9 would leave it: the WAL first, then the database.
 * A read transaction is held across the two copies. The store's checkpointer runs on its own
 * thread; without the reader it could backfill frames newer than the copied WAL into the
 * database, or restart the WAL, between the copies, and the pair would be a state no crash
 * leaves. With it, a checkpoint backfills only frames the copied WAL also holds.
 */
export function snapshot(path: string, into: string): string {
  const copy = join(into, `snap-${Math.random().toString(36).slice(2)}.sqlite`);
  const reader = new Database(path, { readonly: true });
  try {
    reader.exec("BEGIN");
    reader.query("SELECT count(*) FROM sqlite_master").get();
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    copyFileSync(path, copy);
    reader.exec("COMMIT");
  } finally {
    reader.close();
  }
  return copy;
}

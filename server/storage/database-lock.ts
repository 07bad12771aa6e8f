// One process per database. Every ursa keeps stream state, producer tables and Stream-Seq values
// in memory and decides writes against them, so a second process on the same files would decide
// against stale state: duplicate offsets, a broken compare-and-set. The lock is an exclusive
// transaction held open on a small SQLite file beside the database: SQLite's file locks are
// released by the kernel when the process dies, so a kill -9 leaves no stale lock behind.

import { Database } from "bun:sqlite";

export class DatabaseInUseError extends Error {}

export interface DatabaseLock {
  release(): void;
}

export function lockDatabase(dbPath: string): DatabaseLock {
  const path = `${dbPath}-lock`;
  const lock = new Database(path, { create: true });
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code === "SQLITE_BUSY") {
      throw new DatabaseInUseError(`another ursa process is using it (it holds ${path})`);
    }
    throw error;
  }
  return {
    release: () => {
      lock.exec("ROLLBACK");
      lock.close();
    },
  };
}

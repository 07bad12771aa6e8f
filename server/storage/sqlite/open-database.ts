// Opening the database at start-up: the lock first (a second process must not even read, replay
// or migrate the files), then the checks that catch a damaged data directory before SQLite would
// quietly start over on it, then the connection's settings and the schema.

import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { basename } from "node:path";
import { lockDatabase, type DatabaseLock } from "./database-lock";
import { RESERVE_SUFFIX } from "./disk-reserve";
import { MIGRATIONS, SCHEMA, SCHEMA_VERSION } from "./schema";

/** A data directory that must not be opened as it is; the message says what is wrong and what to do. */
export class DatabaseDamagedError extends Error {}

/**
 * The WAL may grow past this during a burst, when checkpoints cannot catch up with the writer;
 * once a checkpoint has caught up, SQLite truncates it back to this size at the next commit
 * (and checkpointer.ts truncates it when writes pause). It equals the writer's safety-net
 * checkpoint interval (wal_autocheckpoint = 16,384 pages of 4 KiB).
 */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** How long the store's connection waits for another holding a lock (the checkpoint thread's). */
export const BUSY_TIMEOUT_MS = 5000;

/** SQLite's largest allowed memory map of the database file (message-log.ts keeps it current). */
export const MMAP_LIMIT_BYTES = 2147418112;

/** Files that exist beside ursa.sqlite only once a database has been used there. */
const EVIDENCE = ["-wal", "-shm", "-journal", "-lock", RESERVE_SUFFIX];

export interface OpenedDatabase {
  db: Database;
  lock: DatabaseLock | undefined;
}

/** `beforeOpen` runs once the lock is held and the files checked, before SQLite opens them. */
export function openDatabase(path: string, beforeOpen: () => void = () => {}): OpenedDatabase {
  const onDisk = path !== ":memory:";
  const lock = onDisk ? lockDatabase(path) : undefined;
  let db: Database | undefined;
  try {
    if (onDisk) refuseEmptied(path);
    beforeOpen();
    db = new Database(path, { create: true, strict: true });
    configure(db, onDisk);
    migrate(db);
    return { db, lock };
  } catch (error) {
    db?.close();
    lock?.release();
    throw error;
  }
}

/**
 * SQLite opens a 0-byte file as a new, empty database, so a database file truncated to nothing
 * (or replaced by an empty one) would start as an empty server and take writes over the loss.
 * ursa writes the database header when it first opens a file (journal_mode = WAL), so an empty
 * ursa.sqlite beside the files a used database leaves (its WAL, shared memory, reserve) was
 * emptied after the fact. An empty file alone is a database never used: it starts empty.
 */
function refuseEmptied(path: string): void {
  if (statSync(path, { throwIfNoEntry: false })?.size !== 0) return;
  const beside = EVIDENCE.map((suffix) => ({ file: path + suffix, size: statSync(path + suffix, { throwIfNoEntry: false })?.size })).filter((f) => f.size !== undefined);
  if (beside.length === 0) return;
  const found = beside.map((f) => `${basename(f.file)} (${f.size} bytes)`).join(", ");
  throw new DatabaseDamagedError(
    `${basename(path)} is empty (0 bytes) but ${found} ${beside.length === 1 ? "is" : "are"} beside it: the database file was truncated or replaced. ` +
      `Restore ${basename(path)} from a backup (keep the -wal file with it), or move the data directory aside to start an empty server`,
  );
}

function configure(db: Database, onDisk: boolean): void {
  // A new database frees the pages of deleted rows back to the filesystem in bounded steps
  // (reclaimer.ts). This must be set before the first table exists; an older database keeps
  // auto_vacuum = NONE, where freed pages stay in the file and later writes reuse them.
  if (db.query("SELECT 1 FROM sqlite_master").get() === null) db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  if (onDisk) db.exec("PRAGMA journal_mode = WAL");
  // In full mode ursa syncs the WAL itself, off the event loop (see walSync), so SQLite's own
  // per-commit sync is not needed; NORMAL still syncs around checkpoints.
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Reads come from mapped pages instead of a pread per page (docs/design/memory-mapped-reads.md).
  // This is SQLite's largest allowed map; writes still go through the WAL.
  db.exec(`PRAGMA mmap_size = ${MMAP_LIMIT_BYTES}`);
  if (onDisk) {
    // Checkpoints run on their own thread (checkpointer.ts); this connection checkpoints only as
    // a safety net, should that thread fall 64 MiB behind.
    db.exec("PRAGMA wal_autocheckpoint = 16384");
    db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
  }
}

function migrate(db: Database): void {
  const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== null;
  const row = hasMeta ? db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema_version'").get() : null;
  const version = row ? Number(row.value) : null;
  if (version !== null && version !== SCHEMA_VERSION) {
    if (!(version in MIGRATIONS)) throw new Error(`database schema version ${version} is not ${SCHEMA_VERSION}; this ursa cannot open it`);
    let steps = "";
    for (let v = version; v < SCHEMA_VERSION; v++) steps += MIGRATIONS[v];
    if (steps) db.transaction(() => db.exec(steps))();
  }
  db.exec(SCHEMA);
  // Written only when it changes: a start writes nothing it need not, so it works on a full disk.
  if (version !== SCHEMA_VERSION) db.query("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(SCHEMA_VERSION));
}

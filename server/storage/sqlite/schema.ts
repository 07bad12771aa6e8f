// The SQLite schema. Messages are an append-only log, in commit order: one row per message of a
// byte stream, and rows of up to 64 KiB of one append's messages on a JSON stream (json-rows.ts),
// each carrying what its append changed (message count, producer, Stream-Seq, time), so the rows
// that summarize a stream (`streams`, `producers`) and the index that finds a row by offset
// (`msg_index`) can be written later and in bulk (message-log.ts). `seg` is the offset where the row's append began, which fork
// sub-offsets need (spec §7.4).
//
// Why deferred: with 100 writers on 100 streams, a transaction of ~25 appends dirtied ~25 index
// leaves, ~25 stream rows and ~25 producer rows, so COMMIT wrote ~35 pages to the WAL; the log
// alone dirties its last page or two (docs/design/message-log.md).

export const SCHEMA_VERSION = 11;

/**
 * Up to version 4 log ids were AUTOINCREMENT's; from version 5 ursa gives them (message-log.ts
 * nextId), so a new table has none. A version 4 table keeps its AUTOINCREMENT: rebuilding it would
 * copy every message at start-up, and the ids ursa gives follow its sqlite_sequence.
 */
const messagesTable = (name: string, ids: "AUTOINCREMENT" | "" = "", fileLength = "") => `CREATE TABLE IF NOT EXISTS ${name} (
  id INTEGER PRIMARY KEY ${ids},
  stream_id INTEGER NOT NULL,
  start INTEGER NOT NULL,
  seg INTEGER NOT NULL,
  data BLOB NOT NULL,
  n INTEGER,
  producer_id TEXT,
  producer_epoch INTEGER,
  producer_seq INTEGER,
  stream_seq TEXT,
  at_ms INTEGER${fileLength}
);`;

const MESSAGE_INDEX = `CREATE TABLE IF NOT EXISTS msg_index (
  stream_id INTEGER NOT NULL,
  start INTEGER NOT NULL,
  msg_id INTEGER NOT NULL,
  PRIMARY KEY (stream_id, start)
) WITHOUT ROWID;`;

/**
 * The console's stream list sorts a bucket by these columns a page at a time (storage/browse.ts),
 * and finds a stream's forks (storage/fork-tree.ts). The hot columns among them are written with
 * the rest of a stream's row, about every 100 ms, not per append (message-log.ts).
 */
const LISTING_INDEXES = `
CREATE INDEX IF NOT EXISTS streams_by_created ON streams(bucket, created_at_ms, name);
CREATE INDEX IF NOT EXISTS streams_by_tail ON streams(bucket, tail, name);
CREATE INDEX IF NOT EXISTS streams_by_last_write ON streams(bucket, last_write_at_ms, name);
CREATE INDEX IF NOT EXISTS streams_by_last_seq ON streams(bucket, last_seq, name);
CREATE INDEX IF NOT EXISTS streams_by_fork_source ON streams(fork_source_id) WHERE fork_source_id IS NOT NULL;`;

/**
 * Version 4: attributes in their own table, read on demand (a stream's row, which start-up loads
 * for every stream, holds only the id of its current attributes row; a replaced row is marked
 * and deleted once the change is durable, or at start-up after a crash); snapshot bytes as chunk
 * rows of a blob that streams share by reference (a fork keeps its source's); the retained floor.
 * A blob is `staging` while its upload streams in, and is collected (its chunks deleted in bounded
 * steps) once no stream refers to it, or at start-up if a crash left it staging.
 */
const resourceTables = (snapshotBlobColumn?: string) => `
CREATE TABLE IF NOT EXISTS stream_attrs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id INTEGER NOT NULL,
  attrs TEXT NOT NULL,
  replaced INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS stream_attrs_replaced ON stream_attrs(id) WHERE replaced = 1;
CREATE TABLE IF NOT EXISTS snapshot_blobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  staging INTEGER NOT NULL,
  refs INTEGER NOT NULL DEFAULT 0,
  content_type TEXT,
  digest TEXT,
  size INTEGER NOT NULL DEFAULT 0,
  mentions_boundary INTEGER NOT NULL DEFAULT 0${snapshotBlobColumn ? `,\n  ${snapshotBlobColumn}` : ""}
);
CREATE INDEX IF NOT EXISTS snapshot_blobs_staging ON snapshot_blobs(id) WHERE staging = 1;
CREATE INDEX IF NOT EXISTS snapshot_blobs_unreferenced ON snapshot_blobs(id) WHERE refs <= 0;
CREATE TABLE IF NOT EXISTS snapshot_chunks (
  blob_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (blob_id, seq)
);`;

/**
 * Version 6: what start-up and listings need without reading every stream (stream-cache.ts,
 * stream-counts.ts). `buckets.stream_count` counts a bucket's stream rows that are not
 * soft-deleted, and the `meta` rows `stream_count` and `bucket_count` the totals; all three change
 * in the transaction that creates or deletes. When a stream with a lifetime runs out is found
 * through its deadline (spec §7.1: `Stream-Expires-At`, or the last touch plus `Stream-TTL`), so
 * counts can leave out streams expired but not yet reclaimed, and the sweeper finds them. Streams
 * with a retained floor, and soft-deleted ones, are found through their own indexes, to resume
 * trimming after a crash (an index created on open serves a version 6 or 7 database too).
 */
const DEADLINE = "coalesce(expires_at_ms, touched_at_ms + ttl_s * 1000)";
const HAS_LIFETIME = "(expires_at_ms IS NOT NULL OR ttl_s IS NOT NULL)";
export const STREAM_DEADLINE = { expression: DEADLINE, where: HAS_LIFETIME };
const SCALE_INDEXES = `
CREATE INDEX IF NOT EXISTS streams_by_deadline ON streams(${DEADLINE}) WHERE ${HAS_LIFETIME};
CREATE INDEX IF NOT EXISTS streams_by_bucket_deadline ON streams(bucket, ${DEADLINE}) WHERE ${HAS_LIFETIME};
CREATE INDEX IF NOT EXISTS streams_with_floor ON streams(id) WHERE retained_offset > 0;
CREATE INDEX IF NOT EXISTS streams_soft_deleted ON streams(id) WHERE soft_deleted = 1;`;

/**
 * Version 7: forks by reference (lineage.ts). A fork stores only its own appends and reads below
 * its fork offset through its source; `fork_copied` marks the forks made before, which own copies
 * of their inherited rows. A deleted stream's rows are deleted behind it in bounded steps; until
 * they all are, its id is in `dropped_streams`, so a crash midway loses track of none.
 */
const FORK_REFERENCES = `
CREATE INDEX IF NOT EXISTS streams_fork_copied ON streams(id) WHERE fork_copied = 1;
CREATE TABLE IF NOT EXISTS dropped_streams (stream_id INTEGER PRIMARY KEY);`;

/**
 * Version 8: a store on disk keeps a new snapshot blob's bytes in a file beside the database
 * (snapshot-files.ts); blobs written before stay chunk rows, and are read as such.
 */
const SNAPSHOT_FILE_COLUMN = "in_file INTEGER NOT NULL DEFAULT 0";

/**
 * Version 10: sealed runs of a byte stream's messages in files beside the database
 * (segment-files.ts). A row whose bytes are in a file keeps its length in `flen` and an empty
 * `data`; `flen` is NULL for a row that holds its bytes.
 */
const FILE_LENGTH_COLUMN = "flen INTEGER";
const SEGMENT_FILES = `
CREATE TABLE IF NOT EXISTS msg_files (
  stream_id INTEGER NOT NULL,
  lo INTEGER NOT NULL,
  hi INTEGER NOT NULL,
  PRIMARY KEY (stream_id, lo)
) WITHOUT ROWID;`;

/** A message row's length, wherever its bytes are. */
/** DS subscriptions (storage/subscriptions.ts): each one's state as one JSON record. */
const SUBSCRIPTIONS = `
CREATE TABLE IF NOT EXISTS subscriptions (scope TEXT NOT NULL, id TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (scope, id)) WITHOUT ROWID;
`;

export const ROW_LENGTH = "coalesce(m.flen, length(m.data))";

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS buckets (bucket_id TEXT PRIMARY KEY, created_at_ms INTEGER NOT NULL, stream_count INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS streams (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  bucket TEXT NOT NULL,
  name TEXT NOT NULL,
  incarnation TEXT NOT NULL,
  content_type TEXT NOT NULL,
  tail INTEGER NOT NULL,
  message_count INTEGER NOT NULL,
  closed INTEGER NOT NULL,
  closed_by TEXT,
  last_seq TEXT,
  ttl_s INTEGER,
  expires_at_ms INTEGER,
  touched_at_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  last_write_at_ms INTEGER,
  fork_source_key TEXT,
  fork_source_id INTEGER,
  fork_offset INTEGER,
  fork_sub_offset INTEGER,
  soft_deleted INTEGER NOT NULL DEFAULT 0,
  attrs_id INTEGER,
  retained_offset INTEGER NOT NULL DEFAULT 0,
  snapshot_blob_id INTEGER,
  snapshot_offset INTEGER,
  fork_copied INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS streams_by_path ON streams(bucket, name);
${LISTING_INDEXES}
${SCALE_INDEXES}
${messagesTable("msgs", "", `,\n  ${FILE_LENGTH_COLUMN}`)}
${MESSAGE_INDEX}
${resourceTables(SNAPSHOT_FILE_COLUMN)}
${FORK_REFERENCES}
${SEGMENT_FILES}
CREATE TABLE IF NOT EXISTS producers (
  stream_id INTEGER NOT NULL,
  producer_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  last_start INTEGER NOT NULL,
  last_next INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (stream_id, producer_id)
) WITHOUT ROWID;
${SUBSCRIPTIONS}`;

/**
 * Version 2 kept an index on msgs itself and wrote every summary row at once. The table is rebuilt
 * because log ids must never be reused (AUTOINCREMENT): "every row up to id N is indexed" must
 * stay true of rows written later.
 */
const MIGRATE_2_TO_3 = `
${messagesTable("msgs_v3", "AUTOINCREMENT")}
INSERT INTO msgs_v3 (id, stream_id, start, seg, data) SELECT id, stream_id, start, seg, data FROM msgs ORDER BY id;
DROP TABLE msgs;
ALTER TABLE msgs_v3 RENAME TO msgs;
${MESSAGE_INDEX}
INSERT INTO msg_index (stream_id, start, msg_id) SELECT stream_id, start, id FROM msgs ORDER BY stream_id, start;
INSERT INTO meta (key, value) SELECT 'indexed_upto', coalesce(max(id), 0) FROM msgs;
`;

/** Version 3 kept attributes in the stream row. */
const MIGRATE_3_TO_4 = `
${resourceTables()}
ALTER TABLE streams ADD COLUMN attrs_id INTEGER;
ALTER TABLE streams ADD COLUMN retained_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE streams ADD COLUMN snapshot_blob_id INTEGER;
ALTER TABLE streams ADD COLUMN snapshot_offset INTEGER;
INSERT INTO stream_attrs (stream_id, attrs) SELECT id, attrs FROM streams WHERE attrs IS NOT NULL ORDER BY id;
UPDATE streams SET attrs_id = (SELECT a.id FROM stream_attrs a WHERE a.stream_id = streams.id) WHERE attrs IS NOT NULL;
ALTER TABLE streams DROP COLUMN attrs;
`;

/** Version 5 counted streams per listing page (SCALE_INDEXES and the schema's header above say what 6 keeps). */
const MIGRATE_5_TO_6 = `
ALTER TABLE buckets ADD COLUMN stream_count INTEGER NOT NULL DEFAULT 0;
UPDATE buckets SET stream_count = (SELECT count(*) FROM streams s WHERE s.bucket = buckets.bucket_id AND s.soft_deleted = 0);
INSERT OR REPLACE INTO meta (key, value) SELECT 'stream_count', count(*) FROM streams WHERE soft_deleted = 0;
INSERT OR REPLACE INTO meta (key, value) SELECT 'bucket_count', count(*) FROM buckets;
`;

/** Version 6 copied a fork's inherited rows. */
const MIGRATE_6_TO_7 = `
ALTER TABLE streams ADD COLUMN fork_copied INTEGER NOT NULL DEFAULT 0;
UPDATE streams SET fork_copied = 1 WHERE fork_source_id IS NOT NULL;
${FORK_REFERENCES}
`;

/** Version 7 kept every snapshot blob in chunk rows. */
const MIGRATE_7_TO_8 = `ALTER TABLE snapshot_blobs ADD COLUMN ${SNAPSHOT_FILE_COLUMN};`;

/** Version 9 kept every message's bytes in its row. */
const MIGRATE_9_TO_10 = `ALTER TABLE msgs ADD COLUMN ${FILE_LENGTH_COLUMN};${SEGMENT_FILES}`;

/**
 * What takes a database of each version to the next, applied in order in one transaction. Version
 * 5 changed only how log ids are given (messagesTable), and version 9 only what a JSON stream's
 * new rows hold (json-rows.ts; its older rows, of one message each, read the same): a version 4 or
 * 8 database needs nothing more than its new version number, which also keeps an older ursa from
 * opening it.
 */
export const MIGRATIONS: Readonly<Record<number, string>> = { 2: MIGRATE_2_TO_3, 3: MIGRATE_3_TO_4, 4: "", 5: MIGRATE_5_TO_6, 6: MIGRATE_6_TO_7, 7: MIGRATE_7_TO_8, 8: "", 9: MIGRATE_9_TO_10, 10: SUBSCRIPTIONS };

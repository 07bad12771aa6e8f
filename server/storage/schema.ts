// The SQLite schema. Payloads are one row per message, found by (stream, start offset), so a
// read from any offset is one index seek and a sequential scan. `seg` is the offset where the
// message's append began, which fork sub-offsets need (spec §7.4).
//
// Messages live in a rowid table with a separate index rather than a WITHOUT ROWID table keyed
// by (stream, start): new rows then land on one page at the end of the table, and only the small
// index entries are spread across streams. With appends to 100 streams in each transaction this
// halves the pages written to the WAL, measured at 6.3 vs 12.0 µs of CPU per 256-byte append.

export const SCHEMA_VERSION = 2;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS buckets (bucket_id TEXT PRIMARY KEY, created_at_ms INTEGER NOT NULL) WITHOUT ROWID;
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
  attrs TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS streams_by_path ON streams(bucket, name);
CREATE TABLE IF NOT EXISTS msgs (
  id INTEGER PRIMARY KEY,
  stream_id INTEGER NOT NULL,
  start INTEGER NOT NULL,
  seg INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS msgs_by_offset ON msgs(stream_id, start);
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
`;

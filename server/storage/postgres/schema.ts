// The PostgreSQL schema, as numbered migrations applied at start (design: one binary, one
// schema history). Each step runs in the same transaction as the version bump, under an advisory
// lock, so two instances starting together apply it once; a database written by a newer ursa is
// refused rather than misread. Never rewrite a step: add the next one.

import type { SQL } from "bun";

/** Any key for pg_advisory_xact_lock: the same in every ursa, different from other users' keys. */
const MIGRATION_LOCK = 0x75727361; // "ursa"

export const MIGRATIONS: readonly string[] = [
  // 1: streams, their messages, producers, buckets, snapshot blobs.
  `
  CREATE TABLE ursa_meta (key text PRIMARY KEY, value text NOT NULL);
  -- Incarnation tokens (spec §1.8): unique and increasing across every instance, never reused (a
  -- sequence never hands out a value twice, crash or not). It starts at the wall clock in ms, as
  -- the SQLite engine's tokens do, so that no small number a client might make up is ever issued.
  CREATE SEQUENCE ursa_incarnations;
  SELECT setval('ursa_incarnations', (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
  CREATE TABLE buckets (
    bucket_id text COLLATE "C" PRIMARY KEY,
    created_at_ms bigint NOT NULL,
    -- Live streams (not soft-deleted), kept in the transaction that creates or deletes one.
    stream_count bigint NOT NULL DEFAULT 0
  );
  -- Names sort bytewise (COLLATE "C") whatever the database's locale, as SQLite sorts them: listings
  -- and cursors depend on it.
  CREATE TABLE streams (
    id bigserial PRIMARY KEY,
    bucket text COLLATE "C" NOT NULL,
    name text COLLATE "C" NOT NULL,
    incarnation text NOT NULL,
    content_type text NOT NULL,
    tail bigint NOT NULL DEFAULT 0,
    message_count bigint NOT NULL DEFAULT 0,
    closed boolean NOT NULL DEFAULT false,
    closed_by jsonb,
    last_seq text,
    ttl_s bigint,
    expires_at_ms bigint,
    touched_at_ms bigint NOT NULL,
    created_at_ms bigint NOT NULL,
    last_write_at_ms bigint,
    fork_source_key text,
    fork_source_id bigint,
    fork_offset bigint,
    fork_sub_offset bigint,
    soft_deleted boolean NOT NULL DEFAULT false,
    fork_refs bigint NOT NULL DEFAULT 0,
    attrs text,
    attrs_version bigint NOT NULL DEFAULT 0,
    retained bigint NOT NULL DEFAULT 0,
    snapshot jsonb,
    UNIQUE (bucket, name)
  );
  CREATE INDEX streams_fork_source ON streams (fork_source_id) WHERE fork_source_id IS NOT NULL;
  CREATE INDEX streams_deadline ON streams (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
  CREATE INDEX streams_ttl ON streams ((touched_at_ms + ttl_s * 1000)) WHERE ttl_s IS NOT NULL;
  -- One row per stored message. append_start is where the append holding it starts (forks at an
  -- append boundary and sub-offsets need the append's messages, spec §7.4).
  CREATE TABLE msgs (
    stream_id bigint NOT NULL,
    start bigint NOT NULL,
    append_start bigint NOT NULL,
    -- When the append was decided, by the deciding instance's clock (the console seeks by it);
    -- null for the prefix a fork copied from its source.
    at_ms bigint,
    data bytea NOT NULL,
    PRIMARY KEY (stream_id, start)
  );
  CREATE INDEX msgs_append ON msgs (stream_id, append_start);
  CREATE TABLE producers (
    stream_id bigint NOT NULL,
    producer_id text NOT NULL,
    epoch bigint NOT NULL,
    last_seq bigint NOT NULL,
    last_start bigint NOT NULL,
    last_next bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    PRIMARY KEY (stream_id, producer_id)
  );
  -- A snapshot's bytes (spec §7.3), in chunks, shared by forks: refs counts the streams whose
  -- visible snapshot it is; a blob with none is deleted behind the commit that let it go.
  CREATE TABLE snapshot_blobs (
    id bigserial PRIMARY KEY,
    refs bigint NOT NULL DEFAULT 0,
    published boolean NOT NULL DEFAULT false,
    mentions_boundary boolean NOT NULL DEFAULT false,
    size bigint NOT NULL DEFAULT 0,
    chunks bigint NOT NULL DEFAULT 0,
    staged_at_ms bigint NOT NULL
  );
  CREATE TABLE snapshot_chunks (
    blob_id bigint NOT NULL,
    idx bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (blob_id, idx)
  );
  `,
  // 2: snapshot leases. A reader's hold on a blob, visible to every instance (snapshots.ts): the
  // collector skips a blob with a live lease. The deadline is the database's clock, so instances'
  // clocks need not agree; a lease its dying instance stopped renewing runs out by itself.
  `
  CREATE TABLE snapshot_leases (
    instance uuid NOT NULL,
    reader bigint NOT NULL,
    blob_id bigint NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (instance, reader)
  );
  CREATE INDEX snapshot_leases_blob ON snapshot_leases (blob_id);
  CREATE INDEX snapshot_blobs_unreferenced ON snapshot_blobs (id) WHERE refs <= 0;
  `,
  // 3: read renewals of a sliding TTL (spec §7.1) land here, not in the stream's row (pg-store.ts
  // renewTtl). UNLOGGED: a write that makes no WAL and waits for no fsync, yet is visible to every
  // instance at once, so expiry stays exact across them. A database crash empties the table; the
  // stream's own touched_at_ms, written at least once a quarter of the TTL, is then what counts.
  `
  CREATE UNLOGGED TABLE stream_touches (
    stream_id bigint PRIMARY KEY,
    touched_at_ms bigint NOT NULL
  );
  `,
  // 4: a stream row's version, bumped by every update of the row whoever makes it (a trigger, so
  // no statement can forget). A decision made on an unlocked read applies its effects only while
  // the version is the one it read (conditional-apply.ts); producer rows change only in the
  // statements that also update their stream's row, so the version covers them too.
  `
  ALTER TABLE streams ADD COLUMN version bigint NOT NULL DEFAULT 0;
  CREATE FUNCTION ursa_stream_version() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
  END $$;
  CREATE TRIGGER ursa_stream_version BEFORE UPDATE ON streams FOR EACH ROW EXECUTE FUNCTION ursa_stream_version();
  `,
  // 5: DS subscriptions (subscriptions-table.ts): each one's record, saved compare-and-set on its version.
  `
  CREATE TABLE ursa_subscriptions (
    scope text NOT NULL,
    id text NOT NULL,
    version bigint NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (scope, id)
  );
  `,
  // 6: an append's update of its stream row is a HOT update (no new index entries, the old row
  // pruned in place) only if it changes no indexed column. streams_ttl indexed touched_at_ms,
  // which every append writes, and no query could use it: expiry is decided with the read
  // renewals of step 3 (rows.ts TOUCHED), an expression it does not match. Room left on each
  // page (fillfactor) keeps a row's next version beside it.
  `
  DROP INDEX streams_ttl;
  ALTER TABLE streams SET (fillfactor = 70);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export class NewerSchemaError extends Error {}

/** Brings the database to SCHEMA_VERSION, or refuses one a newer ursa has written. */
export async function migrate(sql: SQL): Promise<{ from: number; to: number }> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    const [{ exists }] = await tx`SELECT to_regclass('ursa_meta') IS NOT NULL AS exists`;
    let from = 0;
    if (exists) {
      const [row] = await tx`SELECT value FROM ursa_meta WHERE key = 'schema_version'`;
      from = row ? Number(row.value) : 0;
    }
    if (from > SCHEMA_VERSION) {
      throw new NewerSchemaError(
        `the database holds ursa schema version ${from}, newer than this ursa's ${SCHEMA_VERSION}: run a newer ursa, or point --postgres at another database`,
      );
    }
    for (let v = from; v < SCHEMA_VERSION; v++) await tx.unsafe(MIGRATIONS[v]!);
    if (from < SCHEMA_VERSION) {
      await tx`INSERT INTO ursa_meta (key, value) VALUES ('schema_version', ${String(SCHEMA_VERSION)})
               ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
    }
    return { from, to: SCHEMA_VERSION };
  });
}

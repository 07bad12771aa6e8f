// Snapshot bytes on PostgreSQL (spec §7.3): a blob row and its chunk rows. An upload writes its
// chunks in transactions of their own as the body arrives (never held whole); nothing refers to
// them until the publish commits. A blob no stream shows any more is deleted behind that commit,
// unless a reader on any instance still holds it.
//
// A reader's hold is a lease row (schema step 2), not a pin in this process: instance B may be
// streaming a blob that instance A's publish or delete has just let go. The lease is taken under
// a share lock on the blob's row, and the collector locks that row before it looks for leases, so
// one of the two always sees the other: either the collector finds the lease and keeps the blob
// (the last reader to let go collects it), or the reader finds the blob gone before a byte is
// sent. Leases are renewed while their reader is open and run out by the database's clock when
// their instance dies; the sweep then collects what they held.

import type { SQL } from "bun";
import { randomUUID } from "node:crypto";
import type { SnapshotMeta } from "../../protocol/state";
import type { SnapshotReader, SnapshotUpload } from "../store";

export const CHUNK_BYTES = 1024 * 1024;

/** How long a reader's lease lasts without renewal; it is renewed every third of that. */
export const LEASE_MS = 30_000;

export class PgUpload implements SnapshotUpload {
  private blob: Promise<number> | undefined;
  private chunks = 0;
  private size = 0;

  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  /** The blob's id, created on first use. */
  id(): Promise<number> {
    this.blob ??= this.sql`INSERT INTO snapshot_blobs (staged_at_ms) VALUES (${this.now()}) RETURNING id`.then((rows: { id: string }[]) => Number(rows[0]!.id));
    return this.blob;
  }

  async write(bytes: Uint8Array): Promise<void> {
    const id = await this.id();
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      const piece = bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES));
      const idx = this.chunks++;
      this.size += piece.length;
      await this.sql`INSERT INTO snapshot_chunks (blob_id, idx, data) VALUES (${id}, ${idx}, ${piece})`;
    }
    await this.sql`UPDATE snapshot_blobs SET size = ${this.size}, chunks = ${this.chunks} WHERE id = ${id}`;
  }

  /** Each write committed its own rows already. */
  async end(): Promise<void> {}
}

export class SnapshotBlobs {
  private readonly instance = randomUUID();
  private lastReader = 0;
  /** The readers of this instance holding a lease. */
  private readonly held = new Set<number>();
  private renewer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly sql: SQL,
    /** Runs work behind a reader's release or renewal; its failure is the store's to note. */
    private readonly track: (work: Promise<void>) => void,
    private readonly leaseMs = LEASE_MS,
  ) {}

  async open(meta: SnapshotMeta): Promise<SnapshotReader> {
    const reader = ++this.lastReader;
    const [row]: { chunks: string; mentions_boundary: boolean }[] = await this.sql`
      WITH blob AS (SELECT id, chunks, mentions_boundary FROM snapshot_blobs WHERE id = ${meta.blobId} FOR SHARE),
        lease AS (INSERT INTO snapshot_leases (instance, reader, blob_id, expires_at)
          SELECT ${this.instance}::uuid, ${reader}, id, clock_timestamp() + ${this.leaseMs}::int * interval '1 millisecond' FROM blob)
      SELECT chunks, mentions_boundary FROM blob`;
    if (!row) throw new Error(`snapshot blob ${meta.blobId} is gone`);
    this.held.add(reader);
    this.renewer ??= setInterval(() => this.track(this.renew()), this.leaseMs / 3);
    this.renewer.unref();
    let held = true;
    return {
      chunks: Number(row.chunks),
      mentionsBoundary: row.mentions_boundary,
      chunk: async (index) => {
        const [c]: { data: Uint8Array }[] = await this.sql`SELECT data FROM snapshot_chunks WHERE blob_id = ${meta.blobId} AND idx = ${index}`;
        if (!c) throw new Error(`snapshot blob ${meta.blobId} has no chunk ${index}`);
        return new Uint8Array(c.data);
      },
      release: () => {
        if (!held) return;
        held = false;
        this.held.delete(reader);
        if (this.held.size === 0) this.stopRenewing();
        this.track(this.unlease(reader, meta.blobId));
      },
    };
  }

  private async renew(): Promise<void> {
    await this.sql`UPDATE snapshot_leases SET expires_at = clock_timestamp() + ${this.leaseMs}::int * interval '1 millisecond'
      WHERE instance = ${this.instance}::uuid`;
  }

  /** Ends a reader's lease; if no stream shows the blob any more, this reader may be the last. */
  private async unlease(reader: number, blobId: number): Promise<void> {
    const [row]: { refs: string | null }[] = await this.sql`DELETE FROM snapshot_leases WHERE instance = ${this.instance}::uuid AND reader = ${reader}
      RETURNING (SELECT refs FROM snapshot_blobs WHERE id = ${blobId}) AS refs`;
    if (row && row.refs !== null && Number(row.refs) <= 0) await this.collect(blobId);
  }

  /** Deletes the blob if no stream refers to it and no reader on any instance holds a live lease. */
  async collect(blobId: number): Promise<void> {
    await this.sql.begin(async (tx) => {
      // The row lock first, then the leases in a statement of their own: its snapshot is taken
      // after the lock, so it sees every lease taken under the share lock before it.
      const [blob]: { refs: string }[] = await tx`SELECT refs FROM snapshot_blobs WHERE id = ${blobId} FOR UPDATE`;
      if (!blob || Number(blob.refs) > 0) return;
      const gone: unknown[] = await tx`DELETE FROM snapshot_blobs WHERE id = ${blobId}
        AND NOT EXISTS (SELECT 1 FROM snapshot_leases WHERE blob_id = ${blobId} AND expires_at > clock_timestamp()) RETURNING id`;
      if (gone.length === 0) return;
      await tx`DELETE FROM snapshot_chunks WHERE blob_id = ${blobId}`;
      await tx`DELETE FROM snapshot_leases WHERE blob_id = ${blobId}`;
    });
  }

  /**
   * Blobs nothing holds: published ones no stream shows (their last reader's instance died with
   * its lease, which has run out since), and uploads a crash cut short, older than an hour so that
   * no upload in progress on another instance is taken. Also drops leases long run out.
   */
  async collectAbandoned(nowMs: number): Promise<void> {
    const rows: { id: string }[] = await this.sql`SELECT id FROM snapshot_blobs b WHERE refs <= 0 AND (published OR staged_at_ms < ${nowMs - 3_600_000})
      AND NOT EXISTS (SELECT 1 FROM snapshot_leases l WHERE l.blob_id = b.id AND l.expires_at > clock_timestamp())`;
    for (const { id } of rows) await this.collect(Number(id));
    await this.sql`DELETE FROM snapshot_leases WHERE expires_at < clock_timestamp() - interval '1 minute'`;
  }

  /** Stops renewing (at close): the leases still open run out by themselves. */
  stopRenewing(): void {
    clearInterval(this.renewer);
    this.renewer = undefined;
  }
}

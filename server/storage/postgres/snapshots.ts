// Snapshot bytes on PostgreSQL (spec §7.3): a blob row and its chunk rows. An upload writes its
// chunks in transactions of their own as the body arrives (never held whole); nothing refers to
// them until the publish commits. A blob no stream shows any more is deleted behind that commit,
// unless a reader of this instance still holds it.

import type { SQL } from "bun";
import type { SnapshotMeta } from "../../protocol/state";
import type { SnapshotReader, SnapshotUpload } from "../store";

export const CHUNK_BYTES = 1024 * 1024;

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
}

export class SnapshotBlobs {
  private readonly pins = new Map<number, number>();
  private readonly waiting = new Set<number>();

  constructor(private readonly sql: SQL) {}

  async open(meta: SnapshotMeta): Promise<SnapshotReader> {
    const [row]: { chunks: string; mentions_boundary: boolean }[] = await this.sql`SELECT chunks, mentions_boundary FROM snapshot_blobs WHERE id = ${meta.blobId}`;
    if (!row) throw new Error(`snapshot blob ${meta.blobId} is gone`);
    this.pins.set(meta.blobId, (this.pins.get(meta.blobId) ?? 0) + 1);
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
        const left = this.pins.get(meta.blobId)! - 1;
        if (left > 0) this.pins.set(meta.blobId, left);
        else {
          this.pins.delete(meta.blobId);
          if (this.waiting.delete(meta.blobId)) void this.collect(meta.blobId);
        }
      },
    };
  }

  /** Deletes the blob if no stream refers to it and no reader here holds it. */
  async collect(blobId: number): Promise<void> {
    if (this.pins.has(blobId)) {
      this.waiting.add(blobId);
      return;
    }
    await this.sql.begin(async (tx) => {
      const gone: unknown[] = await tx`DELETE FROM snapshot_blobs WHERE id = ${blobId} AND refs <= 0 RETURNING id`;
      if (gone.length > 0) await tx`DELETE FROM snapshot_chunks WHERE blob_id = ${blobId}`;
    });
  }

  /** Uploads a crash cut short, and blobs left unreferenced: older than an hour, so no upload in progress on another instance is taken. */
  async collectLeftovers(nowMs: number): Promise<void> {
    const rows: { id: string }[] = await this.sql`SELECT id FROM snapshot_blobs WHERE refs <= 0 AND staged_at_ms < ${nowMs - 3_600_000}`;
    for (const { id } of rows) await this.collect(Number(id));
  }

}

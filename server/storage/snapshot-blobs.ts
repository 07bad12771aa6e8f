// Snapshot bytes (spec §2.13, §7.3) as chunk rows of a blob, so that neither an upload of 128 MiB
// nor a read of one is ever held whole in memory.
//
// An upload streams into a `staging` blob: every CHUNK_BYTES that arrive are one chunk row,
// written by its own small transaction as they come (not synced: until the publish commits,
// nothing refers to them). The transaction that decides the publish then makes the blob visible
// (staging = 0, refs = 1, and the stream points at it) or drops it, atomically with the decision;
// the sync of that transaction makes the chunks before it durable too, since they precede it in
// the WAL. A blob no stream refers to any longer (refs = 0), or one a crash left staging, is
// collected by reclaimer.ts in bounded steps.
//
// On disk, chunks are read on a thread of their own, whose connection has no memory map
// (snapshot-read-thread.ts), so that a 128 MiB snapshot read does not leave 128 MiB of mapped file
// pages in the process's RSS; `chunk` here serves a store in memory.

import type { Database, Statement } from "bun:sqlite";
import type { SnapshotMeta } from "../protocol/state";

export const CHUNK_BYTES = 1024 * 1024;

/** Chunks deleted per collection step. */
const COLLECT_CHUNKS = 16;
/** The most one collection step frees. */
export const COLLECT_STEP_BYTES = COLLECT_CHUNKS * CHUNK_BYTES;

export interface StagedSnapshot {
  blobId: number;
  size: number;
}

export class SnapshotStaging {
  private buffer = new Uint8Array(CHUNK_BYTES);
  private filled = 0;
  private seq = 0;
  private size = 0;

  constructor(
    readonly blobId: number,
    private readonly insertChunk: Statement,
  ) {}

  /** Buffers `bytes`, writing a chunk row each time CHUNK_BYTES are full. Rejects if the disk is full. */
  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, CHUNK_BYTES - this.filled);
      this.buffer.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === CHUNK_BYTES) this.flush();
    }
    this.size += bytes.length;
  }

  /** Writes what is buffered; the blob is then complete. */
  end(): StagedSnapshot {
    if (this.filled > 0) this.flush();
    return { blobId: this.blobId, size: this.size };
  }

  private flush(): void {
    this.insertChunk.run(this.blobId, this.seq++, this.buffer.subarray(0, this.filled));
    this.filled = 0;
  }
}

export class SnapshotBlobs {
  private readonly insertBlob: Statement;
  private readonly insertChunk: Statement;
  private readonly publishBlob: Statement;
  private readonly dropBlob: Statement;
  private readonly addRef: Statement<{ refs: number }>;
  private readonly boundaryFlag: Statement<{ mentions_boundary: number }>;
  private readonly readChunk: Statement<{ data: Uint8Array }>;
  private readonly deleteChunks: Statement;
  private readonly chunksLeft: Statement<{ n: number }>;
  private readonly deleteBlob: Statement;

  constructor(
    private readonly db: Database,
  ) {
    this.insertBlob = db.prepare("INSERT INTO snapshot_blobs (staging) VALUES (1)");
    this.insertChunk = db.prepare("INSERT INTO snapshot_chunks (blob_id, seq, data) VALUES (?, ?, ?)");
    this.publishBlob = db.prepare(
      "UPDATE snapshot_blobs SET staging = 0, refs = 1, content_type = ?, digest = ?, size = ?, mentions_boundary = ? WHERE id = ?",
    );
    this.dropBlob = db.prepare("UPDATE snapshot_blobs SET staging = 0, refs = 0 WHERE id = ?");
    this.addRef = db.prepare("UPDATE snapshot_blobs SET refs = refs + ? WHERE id = ? RETURNING refs");
    this.boundaryFlag = db.prepare("SELECT mentions_boundary FROM snapshot_blobs WHERE id = ?");
    this.readChunk = db.prepare("SELECT data FROM snapshot_chunks WHERE blob_id = ? AND seq = ?");
    this.deleteChunks = db.prepare(
      `DELETE FROM snapshot_chunks WHERE blob_id = ?1 AND seq IN (SELECT seq FROM snapshot_chunks WHERE blob_id = ?1 ORDER BY seq LIMIT ${COLLECT_CHUNKS})`,
    );
    this.chunksLeft = db.prepare("SELECT count(*) AS n FROM snapshot_chunks WHERE blob_id = ?");
    this.deleteBlob = db.prepare("DELETE FROM snapshot_blobs WHERE id = ?");
  }

  /** A new staging blob, committed at once (outside any transaction) so its chunks can follow. */
  stage(): SnapshotStaging {
    return new SnapshotStaging(Number(this.insertBlob.run().lastInsertRowid), this.insertChunk);
  }

  /** Inside the deciding transaction: the staged blob becomes the stream's snapshot. */
  publish(staged: StagedSnapshot, meta: Omit<SnapshotMeta, "blobId" | "size">, mentionsBoundary: boolean): SnapshotMeta {
    this.publishBlob.run(meta.contentType, meta.digest, staged.size, mentionsBoundary ? 1 : 0, staged.blobId);
    return { ...meta, blobId: staged.blobId, size: staged.size };
  }

  /** Inside a transaction: nothing will refer to this blob; it is collected once that is durable. */
  drop(blobId: number): void {
    this.dropBlob.run(blobId);
  }

  /** Inside a transaction: one more (or, given -1, one fewer) stream refers to the blob; its new count. */
  reference(blobId: number, delta: 1 | -1): number {
    return this.addRef.get(delta, blobId)!.refs;
  }

  /** Whether the blob's bytes contain the bootstrap boundary's prefix (recorded as they streamed in). */
  mentionsBoundary(blobId: number): boolean {
    return this.boundaryFlag.get(blobId)?.mentions_boundary === 1;
  }

  chunkCount(meta: SnapshotMeta): number {
    return Math.ceil(meta.size / CHUNK_BYTES);
  }

  /** Chunk `seq` of a blob; the caller holds a pin on it (pins.ts). */
  chunk(blobId: number, seq: number): Uint8Array {
    const row = this.readChunk.get(blobId, seq);
    if (!row) throw new Error(`snapshot blob ${blobId} has no chunk ${seq}`);
    return row.data;
  }

  /** One bounded step of collecting a blob; true once it is gone. */
  collectStep(blobId: number): boolean {
    this.deleteChunks.run(blobId);
    if (this.chunksLeft.get(blobId)!.n > 0) return false;
    this.deleteBlob.run(blobId);
    return true;
  }

  /** At start-up: blobs to collect, including those a crash left staging. */
  collectible(): number[] {
    this.db.exec("UPDATE snapshot_blobs SET staging = 0 WHERE staging = 1");
    return this.db.query<{ id: number }, []>("SELECT id FROM snapshot_blobs WHERE refs <= 0 ORDER BY id").all().map((r) => r.id);
  }
}

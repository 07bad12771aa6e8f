// Snapshot bytes (spec §2.13, §7.3) as blobs, so that neither an upload of 128 MiB nor a read of
// one is ever held whole in memory. A store on disk keeps a blob's bytes in a file of its own
// (snapshot-files.ts, `in_file = 1`); a store in memory, and blobs written before schema
// version 8, keep them as chunk rows of CHUNK_BYTES.
//
// An upload streams into a `staging` blob: every CHUNK_BYTES that arrive are written to its file,
// or are one chunk row written by its own small transaction (not synced: until the publish
// commits, nothing refers to them). A file is synced, with its directory, once the upload ends.
// The transaction that decides the publish then makes the blob visible (staging = 0, refs = 1,
// and the stream points at it) or drops it, atomically with the decision; the sync of that
// transaction makes chunk rows before it durable too, since they precede it in the WAL. A blob no
// stream refers to any longer (refs = 0), or one a crash left staging, is collected by
// reclaimer.ts in bounded steps: a file at once, chunk rows COLLECT_CHUNKS at a time.
//
// Chunk rows on disk are read on a thread of their own, whose connection has no memory map
// (snapshot-read-thread.ts), so that a 128 MiB snapshot read does not leave 128 MiB of mapped file
// pages in the process's RSS; `chunk` here serves a store in memory.

import type { Database, Statement } from "bun:sqlite";
import type { FileHandle } from "node:fs/promises";
import type { SnapshotMeta } from "../../protocol/state";
import type { SnapshotFiles } from "./snapshot-files";

export const CHUNK_BYTES = 1024 * 1024;

/** Chunks deleted per collection step. */
const COLLECT_CHUNKS = 16;
/** The most one collection step frees. */
export const COLLECT_STEP_BYTES = COLLECT_CHUNKS * CHUNK_BYTES;

export interface StagedSnapshot {
  blobId: number;
  size: number;
}

/** Where a staging blob's bytes go: chunk rows, or its file. */
type StagingTarget = { rows: Statement } | { files: SnapshotFiles; file: Promise<FileHandle> };

export class SnapshotStaging {
  private buffer = new Uint8Array(CHUNK_BYTES);
  private filled = 0;
  private seq = 0;
  private size = 0;
  private ended = false;

  constructor(
    readonly blobId: number,
    private readonly target: StagingTarget,
  ) {
    // Awaited by the first write; a failure to open matters only then.
    if ("file" in target) target.file.catch(() => {});
  }

  /** Buffers `bytes`, writing them out each time CHUNK_BYTES are full. Rejects if the disk is full. */
  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, CHUNK_BYTES - this.filled);
      this.buffer.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === CHUNK_BYTES) await this.flush();
    }
    this.size += bytes.length;
  }

  /** Writes what is buffered, and makes a file durable; the blob is then complete. */
  async end(): Promise<void> {
    if (this.filled > 0) await this.flush();
    if ("file" in this.target) await this.target.files.seal(await this.target.file);
    this.ended = true;
  }

  /** The complete blob, for the publish. */
  staged(): StagedSnapshot {
    if (!this.ended) throw new Error("a snapshot upload is published only once it has ended");
    return { blobId: this.blobId, size: this.size };
  }

  /**
   * The upload failed or was refused: its file, if any, is closed and deleted now. Nothing can
   * refer to a staging blob, and on a full disk its bytes are the room the drop's transaction needs.
   */
  async abandon(): Promise<void> {
    if (!("file" in this.target)) return;
    await (await this.target.file.catch(() => null))?.close().catch(() => {});
    this.target.files.remove(this.blobId);
  }

  private async flush(): Promise<void> {
    const bytes = this.buffer.subarray(0, this.filled);
    const seq = this.seq++;
    this.filled = 0;
    if ("rows" in this.target) this.target.rows.run(this.blobId, seq, bytes);
    else await (await this.target.file).write(bytes, 0, bytes.length, seq * CHUNK_BYTES);
  }
}

export class SnapshotBlobs {
  private readonly insertBlob: Statement;
  private readonly insertChunk: Statement;
  private readonly publishBlob: Statement;
  private readonly dropBlob: Statement;
  private readonly addRef: Statement<{ refs: number }>;
  private readonly placement: Statement<{ mentions_boundary: number; in_file: number }>;
  private readonly readChunk: Statement<{ data: Uint8Array }>;
  private readonly deleteChunks: Statement;
  private readonly chunksLeft: Statement<{ n: number }>;
  private readonly deleteBlob: Statement;

  /** `files`: a store on disk keeps new blobs in files; one in memory, as chunk rows. */
  constructor(
    private readonly db: Database,
    private readonly files: SnapshotFiles | undefined,
  ) {
    this.insertBlob = db.prepare("INSERT INTO snapshot_blobs (staging, in_file) VALUES (1, ?)");
    this.insertChunk = db.prepare("INSERT INTO snapshot_chunks (blob_id, seq, data) VALUES (?, ?, ?)");
    this.publishBlob = db.prepare(
      "UPDATE snapshot_blobs SET staging = 0, refs = 1, content_type = ?, digest = ?, size = ?, mentions_boundary = ? WHERE id = ?",
    );
    this.dropBlob = db.prepare("UPDATE snapshot_blobs SET staging = 0, refs = 0 WHERE id = ?");
    this.addRef = db.prepare("UPDATE snapshot_blobs SET refs = refs + ? WHERE id = ? RETURNING refs");
    this.placement = db.prepare("SELECT mentions_boundary, in_file FROM snapshot_blobs WHERE id = ?");
    this.readChunk = db.prepare("SELECT data FROM snapshot_chunks WHERE blob_id = ? AND seq = ?");
    this.deleteChunks = db.prepare(
      `DELETE FROM snapshot_chunks WHERE blob_id = ?1 AND seq IN (SELECT seq FROM snapshot_chunks WHERE blob_id = ?1 ORDER BY seq LIMIT ${COLLECT_CHUNKS})`,
    );
    this.chunksLeft = db.prepare("SELECT count(*) AS n FROM snapshot_chunks WHERE blob_id = ?");
    this.deleteBlob = db.prepare("DELETE FROM snapshot_blobs WHERE id = ?");
  }

  /** A new staging blob, committed at once (outside any transaction) so its chunks can follow. */
  stage(): SnapshotStaging {
    const blobId = Number(this.insertBlob.run(this.files ? 1 : 0).lastInsertRowid);
    return new SnapshotStaging(blobId, this.files ? { files: this.files, file: this.files.create(blobId) } : { rows: this.insertChunk });
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

  /**
   * Where the blob's bytes are (its file, or chunk rows), and whether they contain the bootstrap
   * boundary's prefix (recorded as they streamed in).
   */
  placementOf(blobId: number): { file: string | null; mentionsBoundary: boolean } {
    const row = this.placement.get(blobId);
    return { file: row?.in_file === 1 && this.files ? this.files.path(blobId) : null, mentionsBoundary: row?.mentions_boundary === 1 };
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
    if (this.placement.get(blobId)?.in_file === 1) {
      this.files?.remove(blobId);
      this.deleteBlob.run(blobId);
      return true;
    }
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

  /**
   * Deletes the files whose row a crash lost (the row of a staging blob is not synced), after
   * start-up, so that a directory of many snapshots is not listed before the first request. Each
   * file's check and its deletion run in one synchronous step: a staging blob's row is inserted
   * before its file is created, so a file found without a row then is one nothing can refer to.
   */
  async removeOrphanFiles(): Promise<number> {
    if (!this.files) return 0;
    const ids = await this.files.blobIds();
    const known = this.db.prepare<{ id: number }, [number]>("SELECT id FROM snapshot_blobs WHERE id = ?");
    let removed = 0;
    for (const id of ids) {
      if (known.get(id)) continue;
      this.files.remove(id);
      removed++;
    }
    return removed;
  }
}

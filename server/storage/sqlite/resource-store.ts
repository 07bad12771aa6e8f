// The stream's resources besides its messages, for SqliteStore: attributes, snapshots, the
// retained floor and batched appends (spec §2.10–§2.18), and the background reclaiming of what
// they leave behind. It owns the tables of attributes and snapshot blobs, the pins of snapshots
// being read, and the thread snapshot chunks are read on; what they orphan goes to the reclaimer.

import type { Database } from "bun:sqlite";
import { open } from "node:fs/promises";
import type { SnapshotMeta, StreamState } from "../../protocol/state";
import type { AttrsTable } from "./attrs-table";
import type { Batch } from "./batch";
import type { MessageLog } from "./message-log";
import type { Pins } from "./pins";
import type { Reclaimer } from "./reclaimer";
import type { SnapshotBlobs, SnapshotStaging } from "./snapshot-blobs";
import { SnapshotFileReader } from "./snapshot-file-reader";
import type { SnapshotReads } from "./snapshot-reads";
import type { SnapshotReader, SnapshotUpload } from "../store";
import type { StreamTx } from "./stream-tx";
import { failureOf, StorageFault } from "../write-health";

export interface ResourceDeps {
  db: Database;
  /** On disk, where snapshot chunks are read: a thread of their own (snapshot-read-thread.ts). */
  chunkReads: SnapshotReads | undefined;
  log: MessageLog;
  attrs: AttrsTable;
  blobs: SnapshotBlobs;
  pins: Pins;
  reclaimer: Reclaimer<Batch>;
  tx: StreamTx;
  submit<T>(run: (tx: Batch) => T): Promise<T>;
}

export class ResourceStore {
  constructor(private readonly d: ResourceDeps) {}

  /**
   * What a crash left for the reclaimer: attribute rows replaced but not yet deleted, staging or
   * unreferenced snapshot blobs, and messages below a floor. Each is found through an index, so
   * this reads nothing of the data itself.
   */
  reclaimLeftovers(streams: Iterable<[string, StreamState]>): void {
    try {
      this.d.attrs.deleteReplaced();
    } catch (error) {
      // A full disk: they are deleted at a later start. Nothing refers to them.
      if (failureOf(error) === null) throw error;
    }
    for (const id of this.d.blobs.collectible()) this.d.reclaimer.blob(id);
    for (const id of this.d.log.droppedStreams()) this.d.reclaimer.drop(id);
    for (const [key, state] of streams) {
      if (state.softDeleted || (state.retained > 0 && this.d.log.hasRowsBelow(state.id, state.retained))) this.d.reclaimer.floor(state.id, key);
    }
  }

  attrs(state: StreamState): string | null {
    return this.d.attrs.read(state.attrsId);
  }

  stageSnapshot(): SnapshotUpload {
    return this.d.blobs.stage();
  }

  async discardSnapshot(upload: SnapshotUpload): Promise<void> {
    const staging = upload as SnapshotStaging;
    await staging.abandon();
    return this.d.submit((tx) => this.d.tx.dropStaged(tx, staging.blobId));
  }

  /** Pinned before anything is awaited: no transaction can collect the blob in between. */
  async openSnapshot(meta: SnapshotMeta): Promise<SnapshotReader> {
    const { blobs, pins, chunkReads } = this.d;
    pins.pin(meta.blobId);
    const { file, mentionsBoundary } = blobs.placementOf(meta.blobId);
    if (file !== null) {
      const unpin = () => pins.unpin(meta.blobId);
      // Found before the answer's head is sent, so a lost or shortened file is a 500, not a
      // body cut off after its 200.
      const lost = (problem: string) => {
        unpin();
        return new StorageFault("corrupt", `snapshot file ${file} ${problem}; restore the data directory from a backup (docs/operations.md)`);
      };
      const handle = await open(file, "r").catch((error: Error) => {
        throw lost(`cannot be opened (${error.message})`);
      });
      const { size } = await handle.stat().catch(async (error: Error) => {
        await handle.close();
        throw lost(`cannot be read (${error.message})`);
      });
      if (size !== meta.size) {
        await handle.close();
        throw lost(`holds ${size} bytes, not the snapshot's ${meta.size}`);
      }
      return new SnapshotFileReader(handle, meta.size, mentionsBoundary, unpin);
    }
    let held = true;
    const chunks = blobs.chunkCount(meta);
    // On the read thread, the chunk after the one asked for is read ahead while this one is
    // written out: readers take chunks in order (bootstrap, snapshot GET). One read ahead is at
    // most one more chunk (1 MiB) in memory.
    let ahead: { index: number; read: Promise<Uint8Array> } | undefined;
    const read = (index: number): Promise<Uint8Array> => {
      const next = ahead?.index === index ? ahead.read : chunkReads!.chunk(meta.blobId, index);
      ahead = undefined;
      if (index + 1 < chunks && held) {
        ahead = { index: index + 1, read: chunkReads!.chunk(meta.blobId, index + 1) };
        // Not taken if the reader stops first (the client went); its failure then matters to no one.
        ahead.read.catch(() => {});
      }
      return next;
    };
    return {
      chunks,
      chunk: chunkReads ? read : async (index) => blobs.chunk(meta.blobId, index),
      mentionsBoundary,
      release() {
        if (!held) return;
        held = false;
        pins.unpin(meta.blobId);
      },
    };
  }
}

// What the store looks for once it is open, in the background, because a crash may have left it:
// snapshot files without a row, segment files no message refers to (or missing ones), streams
// whose rows a crash left unreclaimed, and byte streams long enough to move runs to segment files.

import type { Database } from "bun:sqlite";
import { isJsonType } from "../../protocol/content-type";
import { streamKey, type StreamState } from "../../protocol/state";
import type { StoreLog } from "../store-log";
import type { SegmentFiles } from "./segment-files";
import type { SegmentTiering } from "./segment-tiering";
import type { SnapshotBlobs } from "./snapshot-blobs";
import type { SnapshotFiles } from "./snapshot-files";
import type { StreamCache } from "./stream-cache";

/** Deletes snapshot files that no snapshot refers to, then measures those left for the metrics. */
export function removeOrphanSnapshotFiles(blobs: SnapshotBlobs, files: SnapshotFiles | undefined, log: StoreLog): Promise<void> {
  const removed = blobs.removeOrphanFiles().then(
    (n) => {
      if (n > 0) log("info", "deleted snapshot files that no snapshot refers to (left by a crash)", { files: n });
    },
    (error: unknown) => log("warn", "could not delete snapshot files left by a crash (the next start tries again)", { error: (error as Error).message }),
  );
  // Measured once the sweep is done, so the first scrape already counts the files.
  void removed.then(() => files?.measure());
  return removed;
}

/**
 * Deletes segment files no message refers to and reports missing or short ones; then the mover
 * looks through the byte streams start-up replayed and those long enough to hold a run.
 */
export function sweepSegmentFiles(db: Database, files: SegmentFiles, tiering: SegmentTiering | undefined, replayed: number[], log: StoreLog): Promise<void> {
  return files.sweep().then(
    ({ orphans, damaged }) => {
      if (orphans > 0) log("info", "deleted segment files that no message refers to (left by a crash)", { files: orphans });
      for (const path of damaged) log("error", "a segment file is missing or shorter than its messages: reads of them answer 500 STORAGE_CORRUPT; restore it from a backup (docs/operations.md)", { file: path });
      if (!tiering) return;
      for (const id of replayed) tiering.lookThrough(id);
      for (const id of largeByteStreams(db, tiering.segmentBytes)) tiering.lookThrough(id);
    },
    (error: unknown) => log("warn", "could not sweep the segment files (the next start tries again)", { error: (error as Error).message }),
  );
}

/**
 * Byte streams whose row says they are long enough to hold a run that could move to a segment
 * file, found through the tail index bucket by bucket: after a start, the appends that would
 * have said so are gone. (Streams whose row is behind their log rows are looked through too.)
 */
function largeByteStreams(db: Database, atLeast: number): number[] {
  const big = db.prepare<{ id: number; content_type: string }, [string, number]>("SELECT id, content_type FROM streams WHERE bucket = ? AND tail >= ?");
  const out: number[] = [];
  for (const { bucket_id } of db.query<{ bucket_id: string }, []>("SELECT bucket_id FROM buckets").iterate()) {
    for (const row of big.iterate(bucket_id, atLeast)) if (!isJsonType(row.content_type)) out.push(row.id);
  }
  return out;
}

/**
 * The streams whose rows a crash may have left unreclaimed (ResourceStore.reclaimLeftovers):
 * those with a retained floor, and soft-deleted sources, which keep only what their forks reach.
 */
export function* mayHoldUnreachedRows(db: Database, cache: StreamCache): Generator<[string, StreamState]> {
  for (const where of ["retained_offset > 0", "soft_deleted = 1 AND retained_offset = 0"]) {
    for (const { bucket, name } of db.query<{ bucket: string; name: string }, []>(`SELECT bucket, name FROM streams WHERE ${where}`).iterate()) {
      const key = streamKey(bucket, name);
      const state = cache.get(key);
      if (state) yield [key, state];
    }
  }
}

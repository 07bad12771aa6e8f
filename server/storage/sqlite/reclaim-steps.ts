// The SQLite engine's reclaimer (reclaimer.ts) and the steps it runs: rows below a floor or a
// deleted stream's rows, a blob's chunks, replaced attributes. Built before the stream writes
// (stream-tx.ts) that hand it work, because none of its steps needs them.

import type { Database, Statement } from "bun:sqlite";
import { streamKey, type StreamState } from "../../protocol/state";
import { reach } from "../lineage";
import type { AttrsTable } from "./attrs-table";
import type { Batch } from "./batch";
import type { MessageLog } from "./message-log";
import type { Pins } from "./pins";
import { Reclaimer } from "./reclaimer";
import type { SnapshotBlobs } from "./snapshot-blobs";

export interface ReclaimDeps {
  db: Database;
  log: MessageLog;
  attrs: AttrsTable;
  blobs: SnapshotBlobs;
  pins: Pins;
  submit<T>(run: (tx: Batch) => T): Promise<T>;
}

export function sqliteReclaimer(d: ReclaimDeps): Reclaimer<Batch> {
  const forksOf = d.db.prepare<{ bucket: string; name: string }, [number]>("SELECT bucket, name FROM streams WHERE fork_source_id = ?");
  return new Reclaimer<Batch>(
    d.db,
    {
      submit: (run) => d.submit(run),
      floorStep: (tx, streamId, key) => {
        const state = tx.get(key);
        // A deleted stream's rows are dropped (dropStep).
        if (!state || state.id !== streamId) return { freed: 0, more: false };
        return trimUnreached(d.log, forksOf, tx, state);
      },
      dropStep: (tx, streamId) => d.log.dropStep(tx, streamId),
      blobStep: (blobId) => d.blobs.collectStep(blobId),
      deleteAttrs: (id) => d.attrs.delete(id),
    },
    d.pins,
  );
}

/**
 * One bounded step of deleting the stream's rows that no reader reaches any longer: below its
 * floor, unless a fork still reads them (spec §7.2 lets those bytes be kept for the forks and
 * hidden from the source), and, once it is soft-deleted, above what its forks read.
 */
function trimUnreached(log: MessageLog, forksOf: Statement<{ bucket: string; name: string }, [number]>, tx: Batch, state: StreamState): { freed: number; more: boolean } {
  const forks = (s: StreamState): StreamState[] => {
    if (s.forkRefs === 0) return [];
    const out: StreamState[] = [];
    // The path keys of the streams forked from it; their states may say otherwise.
    for (const { bucket, name } of forksOf.all(s.id)) {
      const fork = tx.get(streamKey(bucket, name));
      if (fork && fork.fork?.sourceId === s.id) out.push(fork);
    }
    return out;
  };
  const kept = reach(state, forks, log.copied);
  if (!kept) return log.deleteFrom(tx, state.id, 0);
  const below = log.deleteBelow(tx, state.id, kept.lo);
  if (below.more || kept.hi === Infinity) return below;
  const above = log.deleteFrom(tx, state.id, kept.hi);
  return { freed: below.freed + above.freed, more: above.more };
}

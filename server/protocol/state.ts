// What the server knows about one incarnation of a stream (spec §1.9). Values, never mutated: a
// write produces a new state, which the store installs only after its transaction commits.

import type { LifetimeState } from "./lifetime";
import type { ProducerTuple } from "./producer";
import type { ProducerTable } from "./producer-table";

export interface ForkLink {
  /** Path key (`bucket/stream`) and row id of the source incarnation. */
  sourceKey: string;
  sourceId: number;
  offset: number;
  subOffset: number;
}

/** The stream's one visible snapshot (spec §7.3): it covers [-1, offset). */
export interface SnapshotMeta {
  /** The stored blob that holds its bytes; forks may share it. */
  blobId: number;
  offset: number;
  contentType: string;
  /** Lowercase hex BLAKE3 of the type and the bytes (spec §2.13). */
  digest: string;
  size: number;
}

export interface StreamState extends LifetimeState {
  id: number;
  bucket: string;
  name: string;
  incarnation: string;
  contentType: string;
  tail: number;
  messageCount: number;
  closed: boolean;
  closedBy: ProducerTuple | null;
  /** The last accepted Stream-Seq [CW]. */
  lastSeq: string | null;
  createdAtMs: number;
  lastWriteAtMs: number | null;
  fork: ForkLink | null;
  /** A deleted fork source that live forks still reference (spec §7.4). */
  softDeleted: boolean;
  /** How many live forks were made from this incarnation; a source with forks is soft-deleted. */
  forkRefs: number;
  /**
   * Where this incarnation's attributes are stored, or null when none are set. The attributes
   * themselves (up to 16 KiB each) are read on demand, never held for every stream.
   */
  attrsId: number | null;
  /** The retained floor (spec §7.2): the earliest readable byte, always a message boundary. */
  retained: number;
  snapshot: SnapshotMeta | null;
  /** A persistent table: a write makes a new one, sharing most of this one (producer-table.ts). */
  producers: ProducerTable;
}

export const streamKey = (bucket: string, name: string) => `${bucket}/${name}`;

/** The bucket and the stream ID of a path key (streamKey's inverse; a bucket holds no slash). */
export const splitKey = (key: string) => {
  const slash = key.indexOf("/");
  return { bucket: key.slice(0, slash), name: key.slice(slash + 1) };
};

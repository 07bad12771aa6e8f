// What the server knows about one incarnation of a stream (spec §1.9). Values, never mutated
// (except the producer table, see below): a write produces a new state, which the store
// installs only after its transaction commits.

import type { LifetimeState } from "./lifetime";
import type { ProducerState, ProducerTuple } from "./producer";

export interface ForkLink {
  /** Path key (`bucket/stream`) and row id of the source incarnation. */
  sourceKey: string;
  sourceId: number;
  offset: number;
  subOffset: number;
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
  /** The last accepted Stream-Seq [SEED]. */
  lastSeq: string | null;
  createdAtMs: number;
  lastWriteAtMs: number | null;
  fork: ForkLink | null;
  /** A deleted fork source that live forks still reference (spec §7.4). */
  softDeleted: boolean;
  /** How many live forks were made from this incarnation; a source with forks is soft-deleted. */
  forkRefs: number;
  /** Normalized attribute JSON, or null when none are set. */
  attrs: string | null;
  /**
   * Shared by every state value of one incarnation and updated in place by the store (with an
   * undo log for a transaction that rolls back), so an append never copies thousands of entries.
   */
  producers: Map<string, ProducerState>;
}

export const streamKey = (bucket: string, name: string) => `${bucket}/${name}`;

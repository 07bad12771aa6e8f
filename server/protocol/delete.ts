// What deleting a stream does (spec §7.4), by DELETE or because its lifetime ended (spec §7.1).
// Pure: the engine loads the stream and its fork chain inside its transaction, asks here, and
// applies the effects in order. Both engines call these, so the soft/hard rule and the cascade up
// a fork chain are decided once.
//
// A stream that live forks still read is soft-deleted: gone for clients, its bytes kept for the
// forks. Any other is hard-deleted. Deleting a fork releases its source; the last fork of a
// soft-deleted source takes the source with it, and so on up the chain.

import { isExpired } from "./lifetime";
import { ProducerTable } from "./producer-table";
import type { StreamState } from "./state";

export type DeleteEffect =
  /**
   * The stream stays as a source its forks read through; its producers, attributes and snapshot
   * go, and it leaves its bucket's count. `next` is the row to store.
   */
  | { kind: "soft-delete"; state: StreamState; next: StreamState }
  /**
   * The stream's row, messages and producers go, with its reference to its attributes and
   * snapshot. A source that was already soft-deleted has left its bucket's count before.
   */
  | { kind: "hard-delete"; state: StreamState }
  /** A source one fork fewer reads: `next` is its row to store. Its unreached rows may now be reclaimed. */
  | { kind: "release-source"; next: StreamState };

export interface DeletePlan {
  soft: boolean;
  /** In order: the stream itself first, then its sources up the chain. */
  effects: DeleteEffect[];
}

/**
 * `sources` is the stream's fork chain as the transaction sees it, nearest first: the state at
 * each link's source key, as far as the links go. A link whose source is missing or is another
 * incarnation (its id differs) ends the chain; the engine may stop loading there.
 */
export function planDelete(state: StreamState, sources: readonly (StreamState | undefined)[]): DeletePlan {
  if (state.forkRefs > 0) {
    const next: StreamState = { ...state, softDeleted: true, producers: ProducerTable.EMPTY, attrsId: null, snapshot: null };
    return { soft: true, effects: [{ kind: "soft-delete", state, next }] };
  }
  const effects: DeleteEffect[] = [{ kind: "hard-delete", state }];
  let child = state;
  for (const source of sources) {
    if (!child.fork || !source || source.id !== child.fork.sourceId) break;
    const released: StreamState = { ...source, forkRefs: source.forkRefs - 1 };
    if (!released.softDeleted || released.forkRefs > 0) {
      effects.push({ kind: "release-source", next: released });
      break;
    }
    effects.push({ kind: "hard-delete", state: released });
    child = released;
  }
  return { soft: false, effects };
}

/**
 * Whether a stream's lifetime has ended (spec §7.1), so it must be deleted (planDelete) before
 * anything reads or writes it. A soft-deleted source has no lifetime of its own any more: its
 * forks hold it.
 */
export function hasExpired(state: StreamState, nowMs: number): boolean {
  return !state.softDeleted && isExpired(state, nowMs);
}

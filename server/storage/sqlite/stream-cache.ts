// The durable stream states that reads see, loaded from SQLite on first touch and bounded: with a
// million streams, start-up reads none of them and idle memory holds only the recently used.
//
// An entry may be a state, or null for a stream known not to exist (a create being committed
// needs that: until it is durable, reads must keep answering 404, while the row is already in
// the database). Entries are never evicted while a pin rule says so: a stream with a write
// committed but not yet durable (the database holds what readers must not see yet), one whose
// log rows are not yet folded into its row (message-log.ts: the row is behind), or one holding a
// TTL touch not yet written. Eviction is second chance (CLOCK): a hit only marks the entry, and
// the sweep gives a marked entry one more round instead of evicting it.

import type { StreamState } from "../../protocol/state";

/** How many stream states the cache holds by default (about 0.5 KiB each, producers aside). */
export const DEFAULT_CACHED_STREAMS = 100_000;

interface Entry {
  state: StreamState | null;
  used: boolean;
}

/** The stream's state as the database holds it, or undefined when it does not exist. */
export type LoadState = (key: string) => StreamState | undefined;
type EntryRule<T> = (key: string, state: StreamState | null) => T;

export class StreamCache {
  private readonly entries = new Map<string, Entry>();
  /** Trimmed only once this far over capacity, so a trim's walk past pinned entries is amortized. */
  private readonly slack: number;

  private readonly pins: EntryRule<boolean>[] = [];
  private readonly evictions: EntryRule<void>[] = [];

  constructor(
    private readonly load: LoadState,
    readonly capacity = DEFAULT_CACHED_STREAMS,
  ) {
    this.slack = Math.ceil(capacity / 16);
  }

  /** An entry stays while this rule, or any other, says it must (see above). */
  pinWhile(rule: EntryRule<boolean>): void {
    this.pins.push(rule);
  }

  /** Told of each entry evicted. */
  whenEvicted(listener: EntryRule<void>): void {
    this.evictions.push(listener);
  }

  /** The durable state, loading it on a miss; undefined when the stream does not exist. */
  get(key: string): StreamState | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      entry.used = true;
      return entry.state ?? undefined;
    }
    const state = this.load(key);
    this.entries.set(key, { state: state ?? null, used: false });
    return state;
  }

  /** The cached entry without loading: a state, null when known absent, undefined when not cached. */
  peek(key: string): StreamState | null | undefined {
    return this.entries.get(key)?.state;
  }

  set(key: string, state: StreamState | null): void {
    const entry = this.entries.get(key);
    if (entry) entry.state = state;
    else this.entries.set(key, { state, used: false });
  }

  get size(): number {
    return this.entries.size;
  }

  /** Evicts down to capacity once over it by the slack; never inside a transaction (see sqlite-store.ts). */
  trim(): void {
    if (this.entries.size <= this.capacity + this.slack) return;
    let visits = this.entries.size;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.capacity || visits-- <= 0) break;
      const stays = entry.used || this.pins.some((pinned) => pinned(key, entry.state));
      this.entries.delete(key);
      if (stays) {
        // To the back of the line: a used entry gets its second chance, a pinned one waits.
        entry.used = false;
        this.entries.set(key, entry);
        continue;
      }
      for (const evicted of this.evictions) evicted(key, entry.state);
    }
  }
}

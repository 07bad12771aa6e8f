// Sliding TTL renewal for reads (spec §7.1) in the SQLite engine. A read moves the stream's touch
// time in the cache at once; the row is written only once a quarter of the TTL has passed since
// the touch last written, so reads do not become writes, and a crash shortens a stream's life by
// at most that quarter. A stream holding a touch not yet durable stays cached (pinned) until it is.

import type { Batch } from "./batch";
import type { StreamCache } from "./stream-cache";

export interface TtlTouchDeps {
  cache: StreamCache;
  now: () => number;
  /** Writes the touch in a group-committed transaction of its own. */
  submit: (run: (tx: Batch) => void) => Promise<void>;
  writeTouch: (touchedAtMs: number, streamId: number) => void;
}

export class TtlTouches {
  /** Streams whose touch in the cache is later than their row's, and those being written. */
  private readonly unsaved = new Set<string>();
  private readonly inFlight = new Set<string>();
  /** The touch time last written, by stream id. */
  private readonly persistedAt = new Map<number, number>();

  constructor(private readonly d: TtlTouchDeps) {}

  renew(key: string): void {
    const state = this.d.cache.get(key);
    if (!state || state.ttlSeconds === null || state.softDeleted) return;
    const now = this.d.now();
    this.d.cache.set(key, { ...state, touchedAtMs: now });
    const persisted = this.persistedAt.get(state.id) ?? state.touchedAtMs;
    if (now - persisted < (state.ttlSeconds * 1000) / 4) {
      this.unsaved.add(key);
      return;
    }
    this.save(key, state.id, now);
  }

  /**
   * Whether the stream holds a touch not yet durable: if not yet written, it is written now. The
   * entry stays until it is durable: reloaded from its row before that, it would lose the touch.
   */
  saving(key: string, state: { id: number; touchedAtMs: number } | null): boolean {
    if (this.inFlight.has(key)) return true;
    if (!this.unsaved.has(key)) return false;
    if (state) this.save(key, state.id, state.touchedAtMs);
    else this.unsaved.delete(key);
    return true;
  }

  /** Whether the stream's touch in the cache may be later than its row's: unsaved or being written. */
  holds(key: string): boolean {
    return (this.unsaved.size > 0 && this.unsaved.has(key)) || (this.inFlight.size > 0 && this.inFlight.has(key));
  }

  /** Whether any stream's is. */
  get holdsAny(): boolean {
    return this.unsaved.size > 0 || this.inFlight.size > 0;
  }

  /** A stream that left the cache or was deleted: its row's touch is what a reload reads. */
  forget(streamId: number): void {
    this.persistedAt.delete(streamId);
  }

  private save(key: string, id: number, now: number): void {
    this.unsaved.delete(key);
    this.inFlight.add(key);
    this.persistedAt.set(id, now);
    this.d
      .submit((tx) => {
        const s = tx.get(key);
        if (s && s.id === id) this.d.writeTouch(s.touchedAtMs, s.id);
      })
      .catch(() => this.persistedAt.delete(id))
      .finally(() => this.inFlight.delete(key));
  }
}

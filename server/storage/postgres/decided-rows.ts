// The stream rows this instance's own appends last committed, with the version they left the row
// at. An append decided on one skips the read that would fetch the row again: its conditional
// apply (conditional-apply.ts) still checks that version, so a row that moved meanwhile (another
// instance's write, a delete, a touch) changes nothing and the write reads and decides again.
// Only decisions that write are taken from here; a refusal or a duplicate found on a kept row is
// decided again on a fresh read, as nothing would check the version for it. A change told by
// another instance or by this one's locked writes drops the stream's row at once, so the race is
// rarely run at all.

import type { StreamState } from "../../protocol/state";

export interface DecidedRow {
  state: StreamState;
  /** The row's version after the commit that left `state` (the trigger bumps it once per update). */
  version: string;
}

/** Rows kept at most; the oldest goes first. A stream written now and then just reads again. */
const MAX_ROWS = 4096;

export class DecidedRows {
  private readonly rows = new Map<string, DecidedRow>();

  /** The row kept for `key`, taken out: it is put back only by a write that commits on it. */
  take(key: string): DecidedRow | undefined {
    const row = this.rows.get(key);
    if (row) this.rows.delete(key);
    return row;
  }

  keep(key: string, row: DecidedRow): void {
    this.rows.set(key, row);
    if (this.rows.size > MAX_ROWS) this.rows.delete(this.rows.keys().next().value!);
  }

  forget(key: string): void {
    this.rows.delete(key);
  }

  clear(): void {
    this.rows.clear();
  }

  get size(): number {
    return this.rows.size;
  }
}

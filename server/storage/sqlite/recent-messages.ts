// The newest messages of each stream, held in memory: every one not yet in the message index
// (reads find those nowhere else), and beyond that the most recent ones up to a byte budget and a
// message count, so reads of recent data (live tails, consumers catching up) never go to SQLite.
// Messages are let go of oldest first across all streams, so what is held of one stream is always
// a suffix of it.

/**
 * Every message held is an object the collector keeps walking, so many small ones slow appends;
 * the messages where memory pays (large ones, whose reads are mostly copying) fill the byte budget
 * long before this count (docs/design/recent-messages.md).
 */
const MAX_HELD_MESSAGES = 4096;

export interface LogEntry {
  id: number;
  streamId: number;
  start: number;
  data: Uint8Array;
}

const NO_BYTES = new Uint8Array(0);

/** What a slot holds once its message is let go of, so the array keeps no bytes alive. */
const GONE: LogEntry = { id: 0, streamId: 0, start: 0, data: NO_BYTES };

/** A stream's held messages in offset order, from `entries[head]`. */
export interface Held {
  entries: LogEntry[];
  head: number;
}

export class RecentMessages {
  private readonly streams = new Map<number, Held>();
  /** Every message added and not yet let go of, oldest first, from `order[orderHead]`. */
  private order: LogEntry[] = [];
  private orderHead = 0;
  /** The bytes of the messages in `order` from its head. */
  private bytes = 0;

  constructor(
    private readonly budgetBytes: number,
    private readonly budgetEntries = MAX_HELD_MESSAGES,
  ) {}

  held(streamId: number): Held | undefined {
    return this.streams.get(streamId);
  }

  add(entry: LogEntry): void {
    const held = this.streams.get(entry.streamId);
    if (held) held.entries.push(entry);
    else this.streams.set(entry.streamId, { entries: [entry], head: 0 });
    this.order.push(entry);
    this.bytes += entry.data.length;
  }

  /** A deleted stream's messages go at once: their bytes are released, their slots trimmed later. */
  drop(streamId: number): void {
    const held = this.streams.get(streamId);
    if (!held) return;
    for (let i = held.head; i < held.entries.length; i++) {
      const entry = held.entries[i]!;
      this.bytes -= entry.data.length;
      entry.data = NO_BYTES;
    }
    this.streams.delete(streamId);
  }

  /** Lets go of the oldest messages while over budget, but never of one the index cannot find yet. */
  trim(indexedUpTo: number): void {
    while (this.orderHead < this.order.length && (this.bytes > this.budgetBytes || this.order.length - this.orderHead > this.budgetEntries)) {
      const entry = this.order[this.orderHead]!;
      if (entry.id > indexedUpTo) break;
      this.order[this.orderHead++] = GONE;
      this.bytes -= entry.data.length;
      const held = this.streams.get(entry.streamId);
      if (!held || held.entries[held.head] !== entry) continue;
      held.entries[held.head++] = GONE;
      if (held.head === held.entries.length) this.streams.delete(entry.streamId);
      else if (held.head >= 1024 && held.head * 2 >= held.entries.length) {
        held.entries.splice(0, held.head);
        held.head = 0;
      }
    }
    if (this.orderHead >= 4096 && this.orderHead * 2 >= this.order.length) {
      this.order = this.order.slice(this.orderHead);
      this.orderHead = 0;
    }
  }
}

/** The index of the first held message that ends after `offset`. */
export function firstEndingAfter(held: Held, offset: number): number {
  let lo = held.head;
  let hi = held.entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const e = held.entries[mid]!;
    if (e.start + e.data.length > offset) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// A stream's producer entries (spec §5.3) as a persistent value: a change makes a new table and
// leaves the old one as it was, so every StreamState stays what it was when it was handed out,
// and a rolled-back transaction just drops the tables it made.
//
// A stream may remember thousands of producers (--max-producers-per-stream), and every accepted
// append with a Producer-Id changes one entry, so a full copy per append is out. A table is a
// base Map that no one changes once built, shared by every table derived from it, plus a small
// layer of changes over it, copied per change. When the layer outgrows the square root of the
// base, both fold into a new base: a change then costs O(√n) entries amortized (at most ~100 for
// 4096 producers), never O(n).

/** What a stream remembers of one producer (spec §5.3). */
export interface ProducerState {
  epoch: number;
  lastSeq: number;
  /** Where the producer's newest accepted write started and ended, for its duplicate answer. */
  lastStart: number;
  lastNext: number;
  updatedAtMs: number;
}

/** Smallest layer that folds into the base: below it, copying the layer is cheaper than folding. */
const MIN_LAYER = 8;

export class ProducerTable {
  static readonly EMPTY = new ProducerTable(new Map(), new Map(), 0);

  static from(entries: Iterable<readonly [string, ProducerState]>): ProducerTable {
    const base = new Map(entries);
    return base.size === 0 ? ProducerTable.EMPTY : new ProducerTable(base, new Map(), base.size);
  }

  private constructor(
    private readonly base: ReadonlyMap<string, ProducerState>,
    /** Entries changed since the base was built; null for one removed from the base. */
    private readonly layer: ReadonlyMap<string, ProducerState | null>,
    readonly size: number,
  ) {}

  get(id: string): ProducerState | undefined {
    const changed = this.layer.get(id);
    return changed === undefined ? this.base.get(id) : (changed ?? undefined);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** The table with `id`'s entry set to `entry`. */
  with(id: string, entry: ProducerState): ProducerTable {
    return this.change(id, entry, this.has(id) ? this.size : this.size + 1);
  }

  /** The table without `id`'s entry. */
  without(id: string): ProducerTable {
    if (!this.has(id)) return this;
    return this.change(id, this.base.has(id) ? null : undefined, this.size - 1);
  }

  /** In the order a Map would keep: the base's entries where they were, then the ones added. */
  *entries(): IterableIterator<[string, ProducerState]> {
    for (const [id, entry] of this.base) {
      const changed = this.layer.get(id);
      if (changed === undefined) yield [id, entry];
      else if (changed !== null) yield [id, changed];
    }
    for (const [id, entry] of this.layer) if (entry !== null && !this.base.has(id)) yield [id, entry];
  }

  *keys(): IterableIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  [Symbol.iterator](): IterableIterator<[string, ProducerState]> {
    return this.entries();
  }

  /**
   * `entry` undefined drops `id` from the layer (it was only ever added there). An entry removed
   * from the base and set again belongs at the end, as in a Map: only a new base puts it there
   * (rare: a producer evicted, and back).
   */
  private change(id: string, entry: ProducerState | null | undefined, size: number): ProducerTable {
    const readded = entry !== null && entry !== undefined && this.layer.get(id) === null;
    if (readded || this.layer.size + 1 > Math.max(MIN_LAYER, Math.sqrt(this.base.size))) {
      // Set in place, as a Map keeps an entry's position when its value changes; one removed
      // before is not among the entries, so it goes to the end.
      const base = new Map(this.entries());
      if (entry === undefined || entry === null) base.delete(id);
      else base.set(id, entry);
      return base.size === 0 ? ProducerTable.EMPTY : new ProducerTable(base, new Map(), size);
    }
    const layer = new Map(this.layer);
    if (entry === undefined) layer.delete(id);
    else layer.set(id, entry);
    return new ProducerTable(this.base, layer, size);
  }
}

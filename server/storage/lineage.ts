// Where a stream's bytes are stored (spec §7.4). A fork stores only what it appends itself (and
// the prefix its sub-offset takes of the append at the fork offset); every byte below its fork
// offset is read through to its source, which may itself be a fork. A fork is made in O(1) and
// shares its source's rows, so what those rows hold is kept for as long as any reader in the
// family can still reach it (reach(), used by the reclaimer).
//
// Forks made before schema version 7 copied their inherited rows (`streams.fork_copied`): their
// own rows cover everything, and their lineage stops at them.

import type { StreamState } from "../protocol/state";

/** Rows of stream `id` serve offsets [lo, hi). */
export interface Segment {
  id: number;
  lo: number;
  hi: number;
}

export type SourceOf = (key: string) => StreamState | undefined;

/** The segments a stream's bytes are read from, lowest offsets first; they tile [first lo, ∞). */
export function lineageOf(state: StreamState, get: SourceOf, copied: ReadonlySet<number>): Segment[] {
  const out: Segment[] = [];
  let hi = Infinity;
  for (let s: StreamState | undefined = state; s; ) {
    const link: StreamState["fork"] = s.fork && !copied.has(s.id) ? s.fork : null;
    const lo = link ? Math.min(link.offset, hi) : 0;
    if (lo < hi) out.push({ id: s.id, lo, hi });
    if (!link || lo === 0) break;
    hi = lo;
    const source = get(link.sourceKey);
    s = source && source.id === link.sourceId ? source : undefined;
  }
  return out.reverse();
}

/** The segment holding `offset`, if any. */
export function segmentAt(segments: Segment[], offset: number): Segment | undefined {
  for (const seg of segments) if (offset >= seg.lo && offset < seg.hi) return seg;
  return undefined;
}

export interface Reach {
  lo: number;
  hi: number;
}

/**
 * The offsets of `state`'s own rows that some reader can still reach: its own readers above its
 * floor (none once it is soft-deleted), and each fork's readers below that fork's offset, down
 * the family. One interval covering them all: keeping a little more than needed is safe.
 */
export function reach(state: StreamState, children: (state: StreamState) => StreamState[], copied: ReadonlySet<number>): Reach | null {
  let out: Reach | null = state.softDeleted ? null : { lo: state.retained, hi: Infinity };
  for (const child of children(state)) {
    if (copied.has(child.id)) continue;
    const r = reach(child, children, copied);
    if (!r || r.lo >= child.fork!.offset) continue;
    const hi = Math.min(r.hi, child.fork!.offset);
    out = out ? { lo: Math.min(out.lo, r.lo), hi: Math.max(out.hi, hi) } : { lo: r.lo, hi };
  }
  return out;
}

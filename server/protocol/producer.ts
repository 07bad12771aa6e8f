// Idempotent producers (spec §5.3): header syntax and the decision table.

import { fail, ok, type Parsed } from "./errors";
import type { ProducerState, ProducerTable } from "./producer-table";

export type { ProducerState };

export interface ProducerTuple {
  id: string;
  epoch: number;
  seq: number;
}

export const MAX_PRODUCER_ID_BYTES = 256;

/**
 * How long a stream remembers an idle producer, and how many it holds at most (spec §5.3 [NEW],
 * configurable per [REC]). A forgotten producer must restart at Producer-Seq 0, in any epoch.
 */
export interface ProducerLimits {
  idleTtlMs: number;
  maxPerStream: number;
}

export const DEFAULT_PRODUCER_LIMITS: ProducerLimits = { idleTtlMs: 7 * 24 * 3_600_000, maxPerStream: 4096 };

/** A new producer on a full stream may take the place of one idle at least this long. */
const EVICTABLE_AFTER_MS = 3_600_000;

/** What the producer rules need besides the stream: the time, and the limits. */
export interface ProducerClock {
  nowMs: number;
  limits: ProducerLimits;
}

const INTEGER = /^[0-9]+$/;

function parseCount(name: string, raw: string): Parsed<number> {
  const value = raw.trim();
  if (!INTEGER.test(value)) return fail("INVALID_PRODUCER", `${name} must be a non-negative decimal integer`);
  const n = Number(value);
  if (n > Number.MAX_SAFE_INTEGER) return fail("INVALID_PRODUCER", `${name} is above 2^53-1`);
  return ok(n);
}

export function parseProducer(id: string | null, epoch: string | null, seq: string | null): Parsed<ProducerTuple | null> {
  if (id === null && epoch === null && seq === null) return ok(null);
  if (id === null || epoch === null || seq === null) {
    return fail("INVALID_PRODUCER", "Producer-Id, Producer-Epoch and Producer-Seq must be sent together");
  }
  const trimmedId = id.trim();
  if (trimmedId.length === 0) return fail("INVALID_PRODUCER", "Producer-Id is empty");
  if (Buffer.byteLength(trimmedId, "utf8") > MAX_PRODUCER_ID_BYTES) {
    return fail("INVALID_PRODUCER", `Producer-Id is longer than ${MAX_PRODUCER_ID_BYTES} bytes`);
  }
  const e = parseCount("Producer-Epoch", epoch);
  if (!e.ok) return e;
  const s = parseCount("Producer-Seq", seq);
  if (!s.ok) return s;
  return ok({ id: trimmedId, epoch: e.value, seq: s.value });
}

/** Whether an entry is still remembered: it has not been idle long enough to be forgotten. */
export function isRemembered(entry: ProducerState, clock: ProducerClock): boolean {
  return clock.nowMs - entry.updatedAtMs < clock.limits.idleTtlMs;
}

/** The producer's entry, unless it is missing or forgotten. */
export function rememberedProducer(table: ProducerTable, id: string, clock: ProducerClock): ProducerState | undefined {
  const entry = table.get(id);
  return entry !== undefined && isRemembered(entry, clock) ? entry : undefined;
}

export type Admission = { kind: "room" } | { kind: "evict"; id: string } | { kind: "full" };

/**
 * Whether a producer the stream does not remember fits in its table. A forgotten entry of the same
 * id is replaced in place; otherwise, on a full table, the longest-idle entry makes way if it has
 * been idle an hour (or is forgotten, under a shorter idle limit). A table over the limit (the
 * limit was lowered) never grows, and shrinks one entry per new producer.
 */
export function admitProducer(table: ProducerTable, id: string, clock: ProducerClock): Admission {
  if (table.size < clock.limits.maxPerStream || table.has(id)) return { kind: "room" };
  let oldestId = "";
  let oldestAt = Infinity;
  for (const [candidate, entry] of table) {
    if (entry.updatedAtMs < oldestAt) {
      oldestAt = entry.updatedAtMs;
      oldestId = candidate;
    }
  }
  const evictableAfter = Math.min(EVICTABLE_AFTER_MS, clock.limits.idleTtlMs);
  return clock.nowMs - oldestAt >= evictableAfter ? { kind: "evict", id: oldestId } : { kind: "full" };
}

export type ProducerVerdict =
  | { kind: "accept" }
  | { kind: "duplicate"; state: ProducerState }
  | { kind: "stale_epoch"; currentEpoch: number }
  | { kind: "new_epoch_nonzero_seq" }
  | { kind: "sequence_gap"; expected: number };

/** The decision table of spec §5.3. Nothing is written here; "accept" only proposes. */
export function evaluateProducer(current: ProducerState | undefined, tuple: ProducerTuple): ProducerVerdict {
  if (current === undefined) return tuple.seq === 0 ? { kind: "accept" } : { kind: "sequence_gap", expected: 0 };
  if (tuple.epoch < current.epoch) return { kind: "stale_epoch", currentEpoch: current.epoch };
  if (tuple.epoch > current.epoch) return tuple.seq === 0 ? { kind: "accept" } : { kind: "new_epoch_nonzero_seq" };
  if (tuple.seq <= current.lastSeq) return { kind: "duplicate", state: current };
  if (tuple.seq === current.lastSeq + 1) return { kind: "accept" };
  return { kind: "sequence_gap", expected: current.lastSeq + 1 };
}

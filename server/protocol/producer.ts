// Idempotent producers (spec §5.3): header syntax and the decision table.

import { fail, ok, type Parsed } from "./errors";

export interface ProducerTuple {
  id: string;
  epoch: number;
  seq: number;
}

export interface ProducerState {
  epoch: number;
  lastSeq: number;
  /** Where the producer's newest accepted write started and ended, for its duplicate answer. */
  lastStart: number;
  lastNext: number;
  updatedAtMs: number;
}

export const MAX_PRODUCER_ID_BYTES = 256;
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

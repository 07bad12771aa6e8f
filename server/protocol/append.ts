// The append decision (spec §5.1 Phase B), in the spec's order. Pure: it reads one stream state
// and returns a tagged result; the store applies an accepted effect inside its transaction.

import { protocolError, type ProtocolError } from "./errors";
import { incarnationMismatch } from "./incarnation";
import { admitProducer, evaluateProducer, rememberedProducer, type ProducerClock, type ProducerState, type ProducerTuple } from "./producer";
import type { StreamState } from "./state";
import { streamSeqAccepts } from "./stream-seq";

export interface AppendRequest {
  /** Normalized request Content-Type; null for a close-only request, which ignores it. */
  contentType: string | null;
  /** Stored messages (already validated and normalized); empty for a close-only request. */
  messages: Uint8Array[];
  close: boolean;
  streamSeq: string | null;
  producer: ProducerTuple | null;
  incarnation: string | null;
}

export interface AppendEffect {
  start: number;
  messages: Uint8Array[];
  bytes: number;
  close: boolean;
  streamSeq: string | null;
  producer: ProducerTuple | null;
  /** A producer removed from the stream's table to make room for this one (spec §5.3 [NEW]). */
  evicts: string | null;
  /** This producer had been forgotten for idleness, and its old entry is replaced. */
  restartsForgotten: boolean;
}

export type AppendDecision =
  | ProtocolError
  /** A retry of a write already accepted: answered as a success, nothing written. */
  | { kind: "duplicate"; incarnation: string; epoch: number; lastSeq: number; nextOffset: number | null; closed: boolean }
  /** A close-only request on a stream that is already closed: idempotent. */
  | { kind: "already_closed"; incarnation: string; tail: number; producer: ProducerTuple | null }
  | { kind: "accepted"; incarnation: string; effect: AppendEffect };

export function decideAppend(state: StreamState | undefined, req: AppendRequest, clock: ProducerClock): AppendDecision {
  if (state === undefined) return protocolError("STREAM_NOT_FOUND", "stream not found");
  if (state.softDeleted) return protocolError("STREAM_SOFT_DELETED", "stream was deleted; its forks still hold its data", { onCreate: false });

  const mismatch = incarnationMismatch(state, req.incarnation);
  if (mismatch) return mismatch;
  return decideOnStream(state, req, clock);
}

/**
 * Spec §5.1 Phase B from step 3 on, for a stream that exists and is the incarnation asked for.
 * Each refusal is about this incarnation and names it, so a client can tell (spec §5.4 [REC]).
 */
function decideOnStream(state: StreamState, req: AppendRequest, clock: ProducerClock): AppendDecision {
  const incarnation = state.incarnation;
  let evicts: string | null = null;
  let restartsForgotten = false;
  // Producer deduplication precedes every conflict check [CW], so a retry of the write that
  // closed the stream, or whose Stream-Seq is no longer greater, is still a duplicate.
  if (req.producer) {
    const remembered = rememberedProducer(state.producers, req.producer.id, clock);
    const verdict = evaluateProducer(remembered, req.producer);
    switch (verdict.kind) {
      case "stale_epoch":
        return protocolError("PRODUCER_EPOCH_STALE", `producer epoch ${req.producer.epoch} was fenced by epoch ${verdict.currentEpoch}`, {
          producerEpoch: verdict.currentEpoch,
          incarnation,
        });
      case "duplicate":
        return duplicateOf(verdict.state, req.producer, state);
      case "new_epoch_nonzero_seq":
        return protocolError("INVALID_PRODUCER", "a new Producer-Epoch must start at Producer-Seq 0", { incarnation });
      case "sequence_gap":
        return protocolError("PRODUCER_SEQ_CONFLICT", `expected Producer-Seq ${verdict.expected}, got ${req.producer.seq}`, {
          expectedSeq: verdict.expected,
          receivedSeq: req.producer.seq,
          incarnation,
        });
      case "accept":
        break;
    }
    // Spec §5.1 Phase B step 5: the producer limit, the only quota ursa has.
    if (remembered === undefined) {
      const admission = admitProducer(state.producers, req.producer.id, clock);
      if (admission.kind === "full") {
        return protocolError(
          "PRODUCER_LIMIT",
          `producer_limit: the stream has ${state.producers.size} producers (at most ${clock.limits.maxPerStream}) and none has been idle long enough to make way`,
          { incarnation },
        );
      }
      if (admission.kind === "evict") evicts = admission.id;
      restartsForgotten = state.producers.has(req.producer.id);
    }
  }

  const closeOnly = req.messages.length === 0;
  if (state.closed) {
    if (closeOnly && req.close) return { kind: "already_closed", incarnation: state.incarnation, tail: state.tail, producer: req.producer };
    return protocolError("STREAM_CLOSED", "stream is closed", { closed: true, nextOffset: state.tail, incarnation });
  }

  if (!closeOnly && req.contentType !== state.contentType) {
    return protocolError(
      "CONTENT_TYPE_MISMATCH",
      `Content-Type ${req.contentType} does not match the stream's ${state.contentType}`,
      { nextOffset: state.tail, incarnation },
    );
  }

  if (req.streamSeq !== null && !streamSeqAccepts(state.lastSeq, req.streamSeq)) {
    return protocolError(
      "STREAM_SEQ_CONFLICT",
      `Stream-Seq ${JSON.stringify(req.streamSeq)} is not greater than the last accepted ${JSON.stringify(state.lastSeq)}`,
      // lastSeq cannot be null here: only a stream holding a value refuses one [CW].
      { nextOffset: state.tail, lastSeq: state.lastSeq!, incarnation },
    );
  }

  let bytes = 0;
  for (const m of req.messages) bytes += m.length;
  return {
    kind: "accepted",
    incarnation: state.incarnation,
    effect: { start: state.tail, messages: req.messages, bytes, close: req.close, streamSeq: req.streamSeq, producer: req.producer, evicts, restartsForgotten },
  };
}

function duplicateOf(p: ProducerState, tuple: ProducerTuple, state: StreamState): AppendDecision {
  // [CW] a repeat of the newest write carries its original Stream-Next-Offset; an older one none.
  const newest = tuple.seq === p.lastSeq;
  return {
    kind: "duplicate",
    incarnation: state.incarnation,
    epoch: p.epoch,
    lastSeq: p.lastSeq,
    nextOffset: newest ? p.lastNext : null,
    closed: state.closed,
  };
}

/**
 * The state after an accepted append commits, its producer table included: the entry it evicts
 * goes, its producer's is set (a new table; the state's own is left as it was).
 */
export function applyAppend(state: StreamState, effect: AppendEffect, nowMs: number): StreamState {
  let producers = effect.evicts === null ? state.producers : state.producers.without(effect.evicts);
  if (effect.producer) producers = producers.with(effect.producer.id, producerAfter({ ...effect, producer: effect.producer }, nowMs));
  return {
    ...state,
    producers,
    tail: effect.start + effect.bytes,
    messageCount: state.messageCount + effect.messages.length,
    closed: state.closed || effect.close,
    closedBy: effect.close ? effect.producer : state.closedBy,
    lastSeq: effect.streamSeq ?? state.lastSeq,
    touchedAtMs: nowMs,
    lastWriteAtMs: effect.messages.length > 0 ? nowMs : state.lastWriteAtMs,
  };
}

/** The producer's entry after an accepted append of `effect` (spec §5.3). */
export function producerAfter(effect: AppendEffect & { producer: ProducerTuple }, nowMs: number): ProducerState {
  return {
    epoch: effect.producer.epoch,
    lastSeq: effect.producer.seq,
    lastStart: effect.start,
    lastNext: effect.start + effect.bytes,
    updatedAtMs: nowMs,
  };
}

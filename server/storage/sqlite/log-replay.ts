// Rebuilding what the deferred rows did not yet record (message-log.ts). Each log row says what
// its append left behind, and every such value only ever grows within one stream incarnation
// (tail, message count, Stream-Seq bytewise, a producer's (epoch, seq), times), so replay takes
// the larger of the row's value and the stored one: applying a row twice, or a row older than a
// summary row written since, changes nothing.

import type { ProducerState } from "../../protocol/producer";
import type { StreamState } from "../../protocol/state";
import { streamSeqAccepts } from "../../protocol/stream-seq";

export interface LogRow {
  stream_id: number;
  start: number;
  seg: number;
  len: number;
  n: number | null;
  producer_id: string | null;
  producer_epoch: number | null;
  producer_seq: number | null;
  stream_seq: string | null;
  at_ms: number | null;
}

/** The state after `row`. */
export function replayRow(state: StreamState, row: LogRow): StreamState {
  const end = row.start + row.len;
  const at = row.at_ms ?? state.touchedAtMs;
  let producers = state.producers;
  if (row.producer_id !== null && row.producer_epoch !== null && row.producer_seq !== null) {
    const known = producers.get(row.producer_id);
    if (!known || newer(row.producer_epoch, row.producer_seq, known)) {
      producers = producers.with(row.producer_id, {
        epoch: row.producer_epoch,
        lastSeq: row.producer_seq,
        lastStart: row.seg,
        lastNext: end,
        updatedAtMs: at,
      });
    }
  }
  return {
    ...state,
    producers,
    tail: Math.max(state.tail, end),
    messageCount: Math.max(state.messageCount, row.n ?? 0),
    lastSeq: row.stream_seq !== null && streamSeqAccepts(state.lastSeq, row.stream_seq) ? row.stream_seq : state.lastSeq,
    touchedAtMs: Math.max(state.touchedAtMs, at),
    lastWriteAtMs: Math.max(state.lastWriteAtMs ?? 0, at),
  };
}

const newer = (epoch: number, seq: number, known: ProducerState) => epoch > known.epoch || (epoch === known.epoch && seq > known.lastSeq);

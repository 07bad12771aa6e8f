// A new stream, once decideCreate has planned it (spec §2.5, §7.4): its first state, its token,
// and its PUT body taken as its first append. Pure; both engines build a created stream from
// these, inside the transaction that decided it.

import type { AppendEffect } from "./append";
import type { CreatePlan } from "./create";
import { nextIncarnation } from "./incarnation";
import { ProducerTable } from "./producer-table";
import type { StreamState } from "./state";

/**
 * The token of the next incarnation the server issues (spec §1.8), from the last one it issued;
 * the engine stores `counter` with the create, in the same transaction.
 */
export function mintIncarnation(lastIssued: number, nowMs: number): { counter: number; token: string } {
  const counter = nextIncarnation(lastIssued, nowMs);
  return { counter, token: String(counter) };
}

/**
 * The stream as its row is first written, before it has a row id (0 here) and before its body:
 * empty, open, touched and created now. A fork takes its source's floor and the snapshot the plan
 * kept (spec §7.4); its tail and message count are set once its inherited history is linked,
 * which only the engine can count.
 */
export function initialState(plan: CreatePlan, incarnation: string, nowMs: number): StreamState {
  const fork = plan.fork;
  return {
    id: 0,
    bucket: plan.bucket,
    name: plan.name,
    incarnation,
    contentType: plan.contentType,
    tail: 0,
    messageCount: 0,
    closed: false,
    closedBy: null,
    lastSeq: plan.streamSeq,
    ttlSeconds: plan.lifetime.ttlSeconds,
    expiresAtMs: plan.lifetime.expiresAtMs,
    touchedAtMs: nowMs,
    createdAtMs: nowMs,
    lastWriteAtMs: null,
    fork: fork && { sourceKey: fork.sourceKey, sourceId: fork.sourceId, offset: fork.offset, subOffset: fork.subOffset },
    softDeleted: false,
    forkRefs: 0,
    attrsId: null,
    retained: fork?.retained ?? 0,
    snapshot: fork?.snapshot ?? null,
    producers: ProducerTable.EMPTY,
  };
}

/**
 * A PUT's body, close and producer, applied as an append at `start` (the new stream's tail):
 * null when the PUT carries none of them. A create's Stream-Seq is the stream's starting value,
 * not a guarded write (spec §2.5 [CW]), so the append carries none.
 */
export function createAppend(plan: CreatePlan, start: number): AppendEffect | null {
  if (plan.messages.length === 0 && !plan.close && plan.producer === null) return null;
  let bytes = 0;
  for (const m of plan.messages) bytes += m.length;
  return { start, messages: plan.messages, bytes, close: plan.close, streamSeq: null, producer: plan.producer, evicts: null, restartsForgotten: false };
}

// A stream state for protocol unit tests, with overridable fields.

import type { ProducerState } from "./producer";
import type { StreamState } from "./state";

export function streamState(overrides: Partial<StreamState> = {}): StreamState {
  return {
    id: 1,
    bucket: "test",
    name: "s",
    incarnation: "100",
    contentType: "application/json",
    tail: 10,
    messageCount: 2,
    closed: false,
    closedBy: null,
    lastSeq: null,
    ttlSeconds: null,
    expiresAtMs: null,
    touchedAtMs: 0,
    createdAtMs: 0,
    lastWriteAtMs: null,
    fork: null,
    softDeleted: false,
    forkRefs: 0,
    attrs: null,
    producers: new Map(),
    ...overrides,
  };
}

export function producer(epoch: number, lastSeq: number, lastStart = 0, lastNext = 10): ProducerState {
  return { epoch, lastSeq, lastStart, lastNext, updatedAtMs: 0 };
}

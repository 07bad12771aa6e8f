// A stream state and a create request for unit tests, with overridable fields.

import type { CreatePlan, CreateRequest } from "./create";
import type { ProducerState } from "./producer";
import { ProducerTable } from "./producer-table";
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
    attrsId: null,
    retained: 0,
    snapshot: null,
    producers: ProducerTable.EMPTY,
    ...overrides,
  };
}

export function producer(epoch: number, lastSeq: number, lastStart = 0, lastNext = 10): ProducerState {
  return { epoch, lastSeq, lastStart, lastNext, updatedAtMs: 0 };
}

/** What decideCreate plans for a plain create of `test/s`. */
export function createPlan(overrides: Partial<CreatePlan> = {}): CreatePlan {
  const { bucket, name, contentType, lifetime, close, streamSeq, producer, attrs } = createRequest();
  return { bucket, name, contentType: contentType!, lifetime, close, streamSeq, producer, attrs, messages: [], fork: null, ...overrides };
}

export function createRequest(overrides: Partial<CreateRequest> = {}): CreateRequest {
  return {
    bucket: "test",
    name: "s",
    contentType: "application/json",
    lifetime: { ttlSeconds: null, expiresAtMs: null },
    close: false,
    streamSeq: null,
    producer: null,
    incarnation: null,
    body: new Uint8Array(0),
    attrs: null,
    fork: null,
    ...overrides,
  };
}

// Every write to a stream as a plan: what its decision reads, the pure decision, and the effects
// an engine applies. An engine has one way to run a write (storage's `transact`): it loads what the
// plan names inside its transaction, asks `decide`, applies the effects in order and returns the
// outcome built from the states they left. So what each write loads, decides and returns is
// written once here, and an engine only loads and applies (SQLite synchronously inside a
// group-commit step, PostgreSQL with awaited SQL under row locks).

import { decideAppend, type AppendDecision, type AppendEffect, type AppendRequest } from "./append";
import { decideBatch, type FrameAck } from "./append-batch";
import { decideAttrsPut } from "./attrs";
import { decideCreate, type CreatePlan, type CreateDecision, type CreateRequest, type ForkRequest } from "./create";
import { planDelete, type DeletePlan } from "./delete";
import { isProtocolError, type ProtocolError } from "./errors";
import type { ProducerClock } from "./producer";
import { checkAddressed } from "./read";
import { decideRetention, targetOffset, type ResourceTarget } from "./retention";
import { decidePublish, type PublishRequest } from "./snapshot";
import { splitKey, type SnapshotMeta, type StreamState } from "./state";

export type CreateOutcome = Exclude<CreateDecision, { kind: "create" }> | { kind: "created"; state: StreamState };
export type DeleteOutcome = ProtocolError | { kind: "deleted"; soft: boolean };
export type AttrsOutcome = ProtocolError | { kind: "unchanged" | "replaced"; state: StreamState };
export type PublishOutcome = ProtocolError | { kind: "unchanged" | "published"; state: StreamState; snapshot: SnapshotMeta };
export type RetentionOutcome = ProtocolError | { kind: "unchanged" | "advanced"; state: StreamState };

export interface BatchRequest {
  contentType: string;
  /** Each frame's stored messages (one for a byte frame, the flattened elements of a JSON one). */
  frames: Uint8Array[][];
  incarnation: string | null;
}

/** One ack per frame, in order; `state` is the stream after the batch. */
export type BatchOutcome = ProtocolError | { kind: "batch"; state: StreamState; acks: FrameAck[] };

/** What a decision reads of one stream. The engine loads it live: an expired stream is deleted first (planDelete). */
export interface StreamRead {
  key: string;
  /** The producer whose entry the decision needs; the others may be left unloaded. */
  producer?: string | null;
  /** The stream's stored attributes. */
  attrs?: boolean;
  /** Whether this offset is where a committed message starts, or the tail. */
  boundary?: number | null;
  /** The append at this fork's offset (ForkSource.appendAt). */
  fork?: ForkRequest;
  /** The stream's fork chain, nearest source first (planDelete). */
  chain?: boolean;
}

/** What was loaded for one StreamRead; each derived read is its empty value when it was not asked for. */
export interface StreamView {
  state: StreamState | undefined;
  attrs: string | null;
  atBoundary: boolean;
  appendAt: number[] | null;
  sources: StreamState[];
}

export type WriteEffect<Upload> =
  | { kind: "delete"; plan: DeletePlan }
  | { kind: "create"; key: string; plan: CreatePlan }
  /** Applied one after another from `state`; the live layer is told of them as one change. */
  | { kind: "append"; key: string; state: StreamState; appends: AppendEffect[] }
  | { kind: "set-attrs"; state: StreamState; attrs: string | null }
  | { kind: "publish-snapshot"; state: StreamState; upload: Upload; meta: Omit<SnapshotMeta, "blobId" | "size">; mentionsBoundary: boolean }
  /** An upload that a refused or idempotent publish leaves unreferenced. */
  | { kind: "drop-upload"; upload: Upload }
  | { kind: "set-floor"; state: StreamState; floor: number };

/** The states the effects left, by path key (undefined: deleted). */
export type Applied = ReadonlyMap<string, StreamState | undefined>;

export interface Decision<T, Upload> {
  effects: WriteEffect<Upload>[];
  result(applied: Applied): T;
}

export interface WritePlan<T, Upload = never> {
  reads: StreamRead[];
  /**
   * The bucket whose stream count the write changes. A create is counted against the quotas first,
   * before anything else is loaded: counting reclaims the bucket's expired streams, the one at
   * the path among them.
   */
  counts?: { bucket: string; creates: boolean };
  /** Whether it adds data, so a full disk refuses it. */
  grows: boolean;
  /** `refusal` is the quota's verdict when `counts.creates`, else null. */
  decide(views: StreamView[], clock: ProducerClock, refusal: ProtocolError | null): Decision<T, Upload>;
}

const refused = <T>(result: T): Decision<T, never> => ({ effects: [], result: () => result });

/** A decision's state after its effects: the key's applied state. */
const after = (applied: Applied, key: string): StreamState => applied.get(key)!;

export function appendWrite(key: string, request: AppendRequest): WritePlan<AppendDecision> {
  return {
    reads: [{ key, producer: request.producer?.id ?? null }],
    grows: true,
    decide([view], clock) {
      const decision = decideAppend(view!.state, request, clock);
      if (decision.kind !== "accepted") return refused(decision);
      return { effects: [{ kind: "append", key, state: view!.state!, appends: [decision.effect] }], result: () => decision };
    },
  };
}

export function batchWrite(key: string, request: BatchRequest): WritePlan<BatchOutcome> {
  return {
    reads: [{ key }],
    grows: true,
    decide([view], clock) {
      const checked = checkAddressed(view!.state, request.incarnation);
      if (isProtocolError(checked)) return refused(checked);
      const { acks, appends } = decideBatch(checked, request.contentType, request.frames, clock);
      if (appends.length === 0) return refused({ kind: "batch", state: checked, acks });
      return { effects: [{ kind: "append", key, state: checked, appends }], result: (applied) => ({ kind: "batch", state: after(applied, key), acks }) };
    },
  };
}

export function createWrite(key: string, request: CreateRequest): WritePlan<CreateOutcome> {
  const { fork } = request;
  return {
    reads: fork ? [{ key, attrs: true }, { key: fork.sourceKey, fork }] : [{ key, attrs: true }],
    counts: { bucket: splitKey(key).bucket, creates: true },
    grows: true,
    decide([existing, source], _clock, refusal) {
      const decision = decideCreate(existing!.state, request, source ? { state: source.state, appendAt: source.appendAt } : null, existing!.attrs);
      if (decision.kind !== "create") return refused(decision);
      if (refusal) return refused(refusal);
      return { effects: [{ kind: "create", key, plan: decision.plan }], result: (applied) => ({ kind: "created", state: after(applied, key) }) };
    },
  };
}

export function deleteWrite(key: string, incarnation: string | null): WritePlan<DeleteOutcome> {
  return {
    reads: [{ key, chain: true }],
    counts: { bucket: splitKey(key).bucket, creates: false },
    grows: false,
    decide([view]) {
      const checked = checkAddressed(view!.state, incarnation);
      if (isProtocolError(checked)) return refused(checked);
      const plan = planDelete(checked, view!.sources);
      return { effects: [{ kind: "delete", plan }], result: () => ({ kind: "deleted", soft: plan.soft }) };
    },
  };
}

export function attrsWrite(key: string, incarnation: string | null, attrs: string | null): WritePlan<AttrsOutcome> {
  return {
    reads: [{ key, attrs: true }],
    grows: true,
    decide([view]) {
      const decision = decideAttrsPut(view!.state, incarnation, attrs, view!.attrs);
      if (decision.kind !== "replace") return refused(decision);
      return { effects: [{ kind: "set-attrs", state: decision.state, attrs: decision.attrs }], result: (applied) => ({ kind: "replaced", state: after(applied, key) }) };
    },
  };
}

export function publishWrite<Upload>(key: string, upload: Upload, request: PublishRequest, digest: string, mentionsBoundary: boolean): WritePlan<PublishOutcome, Upload> {
  return {
    reads: [{ key, boundary: targetOffset(request.target) }],
    grows: true,
    decide([view]) {
      const decision = decidePublish(view!.state, request, digest, view!.atBoundary);
      if (decision.kind !== "publish") return { effects: [{ kind: "drop-upload", upload }], result: () => decision };
      const meta = { offset: decision.offset, contentType: request.contentType, digest };
      return {
        effects: [{ kind: "publish-snapshot", state: decision.state, upload, meta, mentionsBoundary }],
        result: (applied) => {
          const state = after(applied, key);
          return { kind: "published", state, snapshot: state.snapshot! };
        },
      };
    },
  };
}

export function retentionWrite(key: string, target: ResourceTarget, incarnation: string | null): WritePlan<RetentionOutcome> {
  return {
    reads: [{ key, boundary: targetOffset(target) }],
    grows: false,
    decide([view]) {
      const decision = decideRetention(view!.state, target, incarnation, view!.atBoundary);
      if (decision.kind !== "advance") return refused(decision);
      return { effects: [{ kind: "set-floor", state: decision.state, floor: decision.floor }], result: (applied) => ({ kind: "advanced", state: after(applied, key) }) };
    },
  };
}

// The create decision (spec §2.5, §7.4): create a stream, confirm an existing one whose
// configuration matches, or fork. Pure: the engine loads, inside its transaction, the state at the
// path and its attributes, and for a fork the source's state and the append at forkOffset, then
// asks here. Nothing is looked up while deciding.

import { DEFAULT_CONTENT_TYPE, isJsonType } from "./content-type";
import { protocolError, type ProtocolError } from "./errors";
import { incarnationMismatch } from "./incarnation";
import { jsonMessages } from "./json-body";
import type { Lifetime } from "./lifetime";
import type { ProducerTuple } from "./producer";
import { belowFloor } from "./read";
import type { ForkLink, SnapshotMeta, StreamState } from "./state";

export interface ForkRequest {
  sourceKey: string;
  offset: number | null;
  subOffset: number | null;
}

export interface CreateRequest {
  bucket: string;
  name: string;
  contentType: string | null;
  lifetime: Lifetime;
  close: boolean;
  streamSeq: string | null;
  producer: ProducerTuple | null;
  incarnation: string | null;
  body: Uint8Array;
  attrs: string | null;
  fork: ForkRequest | null;
}

export interface ForkSource {
  state: StreamState | undefined;
  /**
   * Lengths of the messages of the append that starts at forkOffset(request, state): [] at the
   * tail; null when no append starts there (or there is no source).
   */
  appendAt: number[] | null;
}

/** Where a fork of `source` branches off (spec §7.4): the offset asked for, or the source's tail. */
export function forkOffset(fork: ForkRequest, source: StreamState): number {
  return fork.offset ?? source.tail;
}

export interface CreatePlan {
  bucket: string;
  name: string;
  contentType: string;
  lifetime: Lifetime;
  close: boolean;
  streamSeq: string | null;
  producer: ProducerTuple | null;
  attrs: string | null;
  messages: Uint8Array[];
  fork: (ForkLink & { subBytes: number; subMessages: number; retained: number; snapshot: SnapshotMeta | null }) | null;
}

export type CreateDecision = ProtocolError | { kind: "exists"; state: StreamState } | { kind: "create"; plan: CreatePlan };

/**
 * `existingAttrs` are the stored attributes of the stream at the path (null when none are set or
 * there is no stream); `source` is loaded when the request forks.
 */
export function decideCreate(
  existing: StreamState | undefined,
  req: CreateRequest,
  source: ForkSource | null,
  existingAttrs: string | null,
): CreateDecision {
  if (existing?.softDeleted) {
    return protocolError("STREAM_SOFT_DELETED", "this path belongs to a deleted stream whose forks still hold its data", { onCreate: true });
  }
  if (existing) {
    const mismatch = incarnationMismatch(existing, req.incarnation);
    if (mismatch) return mismatch;
    const difference = configDifference(existing, req) ?? (req.attrs !== existingAttrs ? "Stream-Attrs" : null);
    if (difference) return protocolError("STREAM_ALREADY_EXISTS_CONFLICT", `stream exists with a different ${difference}`);
    return { kind: "exists", state: existing };
  }
  if (req.incarnation !== null) {
    // [CW] a PUT carrying a token for a missing stream creates nothing.
    return protocolError("STREAM_INCARNATION_MISMATCH", "no stream exists at this path, so it cannot be the incarnation you named", {});
  }
  if (req.producer && req.producer.seq !== 0) {
    return protocolError("PRODUCER_SEQ_CONFLICT", "a producer's first write must be Producer-Seq 0", {
      expectedSeq: 0,
      receivedSeq: req.producer.seq,
    });
  }

  let contentType = req.contentType ?? DEFAULT_CONTENT_TYPE;
  let lifetime = req.lifetime;
  let fork: CreatePlan["fork"] = null;
  if (req.fork) {
    const src = source?.state;
    if (!src) return protocolError("STREAM_NOT_FOUND", `fork source ${req.fork.sourceKey} not found`);
    if (src.softDeleted) return protocolError("STREAM_SOFT_DELETED", `fork source ${req.fork.sourceKey} was deleted`, { onCreate: true });
    if (req.contentType !== null && req.contentType !== src.contentType) {
      return protocolError("CONTENT_TYPE_MISMATCH", `a fork must keep its source's Content-Type ${src.contentType}`);
    }
    contentType = src.contentType;
    if (lifetime.ttlSeconds === null && lifetime.expiresAtMs === null) {
      lifetime = { ttlSeconds: src.ttlSeconds, expiresAtMs: src.expiresAtMs };
    }
    const offset = forkOffset(req.fork, src);
    if (offset > src.tail) return protocolError("INVALID_FORK", "Stream-Fork-Offset is beyond the source's tail");
    // The source's bytes below its floor are gone, so a fork cannot inherit them (spec §3.4).
    const gone = belowFloor(src, offset);
    if (gone) return gone;
    const lengths = source!.appendAt;
    if (lengths === null) return protocolError("INVALID_FORK", "Stream-Fork-Offset is not a boundary between appends");
    const sub = req.fork.subOffset ?? 0;
    let subBytes = 0;
    if (sub > 0) {
      if (lengths.length === 0) return protocolError("INVALID_FORK", "Stream-Fork-Sub-Offset needs an append at Stream-Fork-Offset");
      if (isJsonType(src.contentType)) {
        if (sub > lengths.length) return protocolError("INVALID_FORK", `the append at the fork offset holds ${lengths.length} messages`);
        for (let i = 0; i < sub; i++) subBytes += lengths[i]!;
      } else {
        if (sub > lengths[0]!) return protocolError("INVALID_FORK", `the append at the fork offset holds ${lengths[0]} bytes`);
        subBytes = sub;
      }
    }
    fork = {
      sourceKey: req.fork.sourceKey,
      sourceId: src.id,
      offset,
      subOffset: sub,
      subBytes,
      subMessages: isJsonType(src.contentType) ? sub : sub > 0 ? 1 : 0,
      // The fork starts where its source's retained history does, and keeps the snapshot that
      // covers that history when the snapshot lies within what it inherits.
      retained: src.retained,
      snapshot: src.snapshot !== null && src.snapshot.offset <= offset ? src.snapshot : null,
    };
  }

  let messages: Uint8Array[];
  if (req.body.length === 0) messages = [];
  else if (isJsonType(contentType)) {
    const parsed = jsonMessages(req.body, true);
    if (!parsed.ok) return parsed.error;
    messages = parsed.value;
  } else messages = [req.body];

  return {
    kind: "create",
    plan: {
      bucket: req.bucket,
      name: req.name,
      contentType,
      lifetime,
      close: req.close,
      streamSeq: req.streamSeq,
      producer: req.producer,
      attrs: req.attrs,
      messages,
      fork,
    },
  };
}

function configDifference(existing: StreamState, req: CreateRequest): string | null {
  const wantedType = req.contentType ?? (req.fork ? existing.contentType : DEFAULT_CONTENT_TYPE);
  if (wantedType !== existing.contentType) return "Content-Type";
  if (req.close !== existing.closed) return "closed state";
  const inheritsLifetime = req.fork !== null && req.lifetime.ttlSeconds === null && req.lifetime.expiresAtMs === null;
  if (!inheritsLifetime) {
    if (req.lifetime.ttlSeconds !== existing.ttlSeconds) return "Stream-TTL";
    if (req.lifetime.expiresAtMs !== existing.expiresAtMs) return "Stream-Expires-At";
  }
  if (req.fork) {
    const link = existing.fork;
    if (!link || link.sourceKey !== req.fork.sourceKey) return "fork source";
    if (req.fork.offset !== null && req.fork.offset !== link.offset) return "Stream-Fork-Offset";
    if ((req.fork.subOffset ?? 0) !== link.subOffset) return "Stream-Fork-Sub-Offset";
  }
  return null;
}

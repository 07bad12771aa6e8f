// Snapshots (spec §2.13–§2.16, §7.3): at most one visible per stream, published at a committed
// message boundary, identified by a BLAKE3 digest of its type and bytes. Publishing never moves
// the retained floor.

import { protocolError, type ProtocolError } from "./errors";
import { incarnationMismatch } from "./incarnation";
import { belowFloor } from "./read";
import { noRecordCoordinates, type ResourceTarget } from "./retention";
import type { SnapshotMeta, StreamState } from "./state";

export const DEFAULT_MAX_SNAPSHOT_BYTES = 128 * 1024 * 1024;

/**
 * Loaded on the first publish, not at start-up: importing hash-wasm and compiling its BLAKE3
 * module takes longer than ursa's whole start (docs/design/hot-paths.md).
 */
let blake3: Promise<typeof import("hash-wasm").createBLAKE3> | undefined;

export interface SnapshotDigest {
  update(bytes: Uint8Array): void;
  /** Lowercase hex; the digest cannot be updated afterwards. */
  digest(): string;
}

/**
 * The digest of spec §2.13, computed while the body streams in:
 * BLAKE3(u64_le(len(content_type)) ‖ content_type ‖ body), in lowercase hex.
 */
export async function snapshotDigest(contentType: string): Promise<SnapshotDigest> {
  const create = await (blake3 ??= import("hash-wasm").then((m) => m.createBLAKE3));
  const hasher = await create();
  hasher.init();
  const type = new TextEncoder().encode(contentType);
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(type.length), true);
  hasher.update(length);
  hasher.update(type);
  return { update: (bytes) => void hasher.update(bytes), digest: () => hasher.digest("hex") };
}

export interface PublishRequest {
  target: ResourceTarget;
  /** Normalized type of the snapshot blob. */
  contentType: string;
  /** Stream-Snapshot-Match, when sent. */
  match: string | null;
  incarnation: string | null;
}

/**
 * Checks 1–3 and 5 of §2.13, which do not depend on the body: a publish they refuse is refused
 * before a byte of a 128 MiB body is read. Check 4 (an identical re-publish) needs the digest,
 * but it can only hold at an offset at or below the tail, so refusing 5 early never hides it.
 */
export function precheckPublish(state: StreamState | undefined, req: PublishRequest): ProtocolError | null {
  const decided = decideUpToBody(state, req);
  if (decided !== null) return decided;
  if (req.target.kind === "offset" && req.target.offset > state!.tail) return beyondTail(state!);
  return null;
}

function decideUpToBody(state: StreamState | undefined, req: PublishRequest): ProtocolError | null {
  if (state === undefined) return protocolError("STREAM_NOT_FOUND", "stream not found");
  if (state.softDeleted) return protocolError("STREAM_SOFT_DELETED", "stream was deleted; its forks still hold its data", { onCreate: false });
  const mismatch = incarnationMismatch(state, req.incarnation);
  if (mismatch) return mismatch;
  if (req.target.kind === "record") return noRecordCoordinates();
  return belowFloor(state, req.target.offset);
}

const conflict = (state: StreamState, message: string) =>
  protocolError("SNAPSHOT_CONFLICT", message, { nextOffset: state.tail, incarnation: state.incarnation });

const beyondTail = (state: StreamState) => conflict(state, `the stream's tail is ${state.tail}; a snapshot can only cover committed data`);

export type PublishDecision =
  | ProtocolError
  /** An identical re-publish of the visible snapshot (spec §2.13 step 4, §9.2 #26). */
  | { kind: "unchanged"; state: StreamState; snapshot: SnapshotMeta }
  | { kind: "publish"; state: StreamState; offset: number };

/**
 * The whole order of §2.13 once the body is in: `digest` is the body's, `atBoundary` says whether
 * targetOffset(req.target) is where a committed message starts (or the tail), as the engine
 * loaded it inside the transaction.
 */
export function decidePublish(state: StreamState | undefined, req: PublishRequest, digest: string, atBoundary: boolean): PublishDecision {
  const early = decideUpToBody(state, req);
  if (early !== null) return early;
  const s = state!;
  const offset = (req.target as { offset: number }).offset;
  const visible = s.snapshot;
  // Before Stream-Snapshot-Match: a retried conditional publish that already landed succeeds.
  if (visible !== null && visible.offset === offset && visible.digest === digest) return { kind: "unchanged", state: s, snapshot: visible };
  if (offset > s.tail) return beyondTail(s);
  if (req.match !== null && req.match !== visible?.digest) {
    return conflict(s, visible === null ? "Stream-Snapshot-Match names a snapshot, but the stream has none" : `Stream-Snapshot-Match does not name the visible snapshot ${visible.digest}`);
  }
  if (visible !== null && visible.offset > offset) return conflict(s, `a newer snapshot is visible at ${visible.offset}`);
  if (visible !== null && visible.offset === offset) return conflict(s, `a different snapshot is already visible at ${offset}`);
  if (!atBoundary) return protocolError("INVALID_SNAPSHOT", `offset ${offset} is not where a committed message starts`);
  return { kind: "publish", state: s, offset };
}

export type SnapshotReadDecision = ProtocolError | { kind: "found"; state: StreamState; snapshot: SnapshotMeta };

/**
 * GET …/snapshot (offset null: the latest) and GET …/snapshot/{offset}. A read that would be a 404
 * without Stream-Incarnation stays one [CW], so the snapshot lookup precedes the 412.
 */
export function decideSnapshotRead(state: StreamState | undefined, offset: number | null, incarnation: string | null): SnapshotReadDecision {
  if (state === undefined) return protocolError("STREAM_NOT_FOUND", "stream not found");
  if (state.softDeleted) return protocolError("STREAM_SOFT_DELETED", "stream was deleted; its forks still hold its data", { onCreate: false });
  const visible = state.snapshot;
  if (visible === null) return protocolError("SNAPSHOT_NOT_FOUND", "the stream has no snapshot");
  if (offset !== null && offset !== visible.offset) {
    return protocolError("SNAPSHOT_NOT_FOUND", `no snapshot at ${offset}: only the latest is kept, at ${visible.offset}`);
  }
  return incarnationMismatch(state, incarnation) ?? { kind: "found", state, snapshot: visible };
}

/**
 * DELETE …/snapshot/{offset} (spec §2.16): the latest is what bootstrap needs (409), and every
 * other one is already gone (404). Nothing is ever deleted.
 */
export function decideSnapshotDelete(state: StreamState | undefined, offset: number, incarnation: string | null): ProtocolError {
  const read = decideSnapshotRead(state, offset, incarnation);
  if (read.kind === "error") return read;
  return conflict(read.state, `the snapshot at ${offset} is the latest, which bootstrap needs; publish a newer one to replace it`);
}

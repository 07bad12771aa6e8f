import { describe, expect, test } from "bun:test";
import { decideRetention, targetOffset, type ResourceTarget } from "./retention";
import { decidePublish, decideSnapshotDelete, decideSnapshotRead, precheckPublish, type PublishRequest } from "./snapshot";
import { streamState } from "./testing-state";

const visible = { blobId: 1, offset: 10, contentType: "application/json", digest: "d1", size: 4 };
const boundaries = (...offsets: number[]) => (o: number) => offsets.includes(o);
type Boundaries = (offset: number) => boolean;
/** What the engine loads for the decision: whether the target offset is a boundary. */
const publish = (state: Parameters<typeof decidePublish>[0], r: PublishRequest, digest: string, at: Boundaries) => {
  const offset = targetOffset(r.target);
  return decidePublish(state, r, digest, offset !== null && at(offset));
};
const retain = (state: Parameters<typeof decideRetention>[0], target: ResourceTarget, incarnation: string | null, at: Boundaries) => {
  const offset = targetOffset(target);
  return decideRetention(state, target, incarnation, offset !== null && at(offset));
};
const req = (offset: number, over: Partial<PublishRequest> = {}): PublishRequest => ({ target: { kind: "offset", offset }, contentType: "application/json", match: null, incarnation: null, ...over });
const code = (d: { kind: string; code?: string }) => (d.kind === "error" ? d.code : d.kind);

describe("publish, in the order of spec §2.13", () => {
  const s = streamState({ tail: 30, retained: 5, snapshot: visible, incarnation: "9" });
  const all = boundaries(0, 5, 10, 20, 30);
  test("404, then 412, then 410 below the floor", () => {
    expect(code(publish(undefined, req(0), "x", all))).toBe("STREAM_NOT_FOUND");
    expect(code(publish(s, req(0, { incarnation: "8" }), "x", all))).toBe("STREAM_INCARNATION_MISMATCH");
    expect(code(publish(s, req(0), "x", all))).toBe("STREAM_GONE");
  });
  test("an identical re-publish wins over Stream-Snapshot-Match; beyond the tail comes next", () => {
    expect(code(publish(s, req(10, { match: "stale" }), "d1", all))).toBe("unchanged");
    expect(code(publish(s, req(31, { match: "stale" }), "d2", all))).toBe("SNAPSHOT_CONFLICT");
  });
  test("Match, then a newer visible snapshot, then the same offset, then the boundary", () => {
    expect(publish(s, req(20, { match: "stale" }), "d2", all)).toMatchObject({ code: "SNAPSHOT_CONFLICT", message: expect.stringMatching(/Match/) });
    expect(publish(s, req(5), "d2", all)).toMatchObject({ code: "SNAPSHOT_CONFLICT", message: expect.stringMatching(/newer/) });
    expect(publish(s, req(10), "d2", all)).toMatchObject({ code: "SNAPSHOT_CONFLICT", message: expect.stringMatching(/different/) });
    expect(code(publish(s, req(25), "d2", all))).toBe("INVALID_SNAPSHOT");
    expect(publish(s, req(20, { match: "d1" }), "d2", all)).toMatchObject({ kind: "publish", offset: 20 });
    expect(code(publish(streamState({ tail: 30 }), req(20, { match: "d1" }), "d2", all))).toBe("SNAPSHOT_CONFLICT");
  });
  test("the precheck refuses only what the body cannot change", () => {
    expect(code(precheckPublish(s, req(31))!)).toBe("SNAPSHOT_CONFLICT");
    expect(code(precheckPublish(s, req(0))!)).toBe("STREAM_GONE");
    expect(precheckPublish(s, req(10, { match: "stale" }))).toBeNull();
    expect(precheckPublish(s, req(5))).toBeNull();
  });
});

describe("read and delete (spec §2.14–§2.16)", () => {
  const s = streamState({ snapshot: visible, incarnation: "9" });
  test("a read that is 404 without Stream-Incarnation stays 404 with it", () => {
    expect(code(decideSnapshotRead(s, 3, "8"))).toBe("SNAPSHOT_NOT_FOUND");
    expect(code(decideSnapshotRead(streamState(), null, "8"))).toBe("SNAPSHOT_NOT_FOUND");
    expect(code(decideSnapshotRead(s, 10, "8"))).toBe("STREAM_INCARNATION_MISMATCH");
    expect(decideSnapshotRead(s, null, "9")).toMatchObject({ kind: "found", snapshot: visible });
  });
  test("the latest cannot be deleted (409); any other offset is gone (404)", () => {
    expect(code(decideSnapshotDelete(s, 10, null))).toBe("SNAPSHOT_CONFLICT");
    expect(code(decideSnapshotDelete(s, 3, null))).toBe("SNAPSHOT_NOT_FOUND");
  });
});

describe("retention, in the order of spec §2.17", () => {
  const s = streamState({ tail: 30, retained: 5, snapshot: visible, incarnation: "9" });
  const all = boundaries(0, 5, 8, 10, 30);
  test("404, 412, backwards, no snapshot, past the snapshot, no-op, boundary", () => {
    expect(code(retain(undefined, { kind: "offset", offset: 8 }, null, all))).toBe("STREAM_NOT_FOUND");
    expect(code(retain(s, { kind: "offset", offset: 4 }, "8", all))).toBe("STREAM_INCARNATION_MISMATCH");
    expect(code(retain(s, { kind: "offset", offset: 4 }, null, all))).toBe("SNAPSHOT_CONFLICT");
    expect(code(retain(streamState({ tail: 30 }), { kind: "offset", offset: 8 }, null, all))).toBe("SNAPSHOT_CONFLICT");
    expect(code(retain(s, { kind: "offset", offset: 11 }, null, all))).toBe("SNAPSHOT_CONFLICT");
    expect(code(retain(s, { kind: "offset", offset: 5 }, null, boundaries()))).toBe("unchanged");
    expect(code(retain(s, { kind: "offset", offset: 7 }, null, all))).toBe("INVALID_SNAPSHOT");
    expect(retain(s, { kind: "offset", offset: 10 }, null, all)).toMatchObject({ kind: "advance", floor: 10 });
  });
  test("a record target needs record coordinates, which no stream has", () => {
    expect(code(retain(s, { kind: "record", record: 1 }, null, all))).toBe("INVALID_RECORD_BOUNDARIES");
  });
});

// Table-driven HTTP scenarios for the stream's sub-resources (spec §2.10–§2.18, §10): attributes,
// snapshots, retention, bootstrap and append-batch, and reads against a retained floor. Every
// refused request answers its status and stable code and leaves the stream exactly as it was:
// bytes, guards, TTL, attributes, snapshot and floor (the harness fingerprint covers them all).

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { frames } from "../testing/frames";
import { runScenario, scenarioTitle, seedScenarioStreams, setupRequest, type Scenario } from "../testing/scenario";

const J = { "Content-Type": "application/json" };
const T = { "Content-Type": "text/plain" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
/** Every stream the setup made; a refused request must change none of them. */
const ALL = ["test-b/json", "test-b/text", "test-b/closed", "test-b/snap"];

let h: Harness;
beforeEach(async () => {
  h = harness();
  await seedScenarioStreams(h);
  // Three 8-byte messages at 0, 8 and 16 (tail 24); the snapshot covers [0, 16), the floor is 8.
  await setupRequest(h, "PUT", "/test-b/snap", { ...J, "Stream-Attrs": '{"title":"snap"}' }, '[{"n":1},{"n":2},{"n":3}]');
  await setupRequest(h, "PUT", `/test-b/snap/snapshot/${at(16)}`, J, '{"count":2}');
  await setupRequest(h, "PUT", `/test-b/snap/retention/${at(8)}`);
});
afterEach(() => h.close());

const guard = (name: string, value: string): Scenario => ({
  name: `append-batch with ${name}`,
  method: "POST",
  path: "/test-b/json/append-batch",
  headers: { ...J, [name]: value },
  body: frames(["1"]),
  status: 400,
  code: "UNSUPPORTED_HEADER",
  unchanged: ALL,
});

const scenarios: Scenario[] = [
  // Attributes (spec §2.11–§2.12)
  { name: "attrs without Content-Type", method: "PUT", path: "/test-b/json/attrs", body: "{}", status: 400, code: "MISSING_CONTENT_TYPE", unchanged: ALL },
  { name: "attrs as text/plain", method: "PUT", path: "/test-b/json/attrs", headers: T, body: "{}", status: 400, code: "INVALID_STREAM_ATTRS", unchanged: ALL },
  { name: "attrs with a malformed Content-Type", method: "PUT", path: "/test-b/json/attrs", headers: { "Content-Type": "json" }, body: "{}", status: 400, code: "INVALID_CONTENT_TYPE", unchanged: ALL },
  { name: "attrs that are not JSON", method: "PUT", path: "/test-b/snap/attrs", headers: J, body: "{", status: 400, code: "INVALID_STREAM_ATTRS", unchanged: ALL },
  ...["[1]", '"title"', "7", "null"].map((body): Scenario => ({ name: `attrs body ${body}`, method: "PUT", path: "/test-b/snap/attrs", headers: J, body, status: 400, code: "INVALID_STREAM_ATTRS", unchanged: ALL })),
  { name: "attrs title not a string", method: "PUT", path: "/test-b/snap/attrs", headers: J, body: '{"title":1}', status: 400, code: "INVALID_STREAM_ATTRS", unchanged: ALL },
  { name: "attrs metadata not an object", method: "PUT", path: "/test-b/snap/attrs", headers: J, body: '{"metadata":[1]}', status: 400, code: "INVALID_STREAM_ATTRS", unchanged: ALL },
  { name: "attrs over 16 KiB", method: "PUT", path: "/test-b/snap/attrs", headers: J, body: JSON.stringify({ title: "x".repeat(16 * 1024) }), status: 400, code: "INVALID_STREAM_ATTRS", unchanged: ALL },
  { name: "attrs of a missing stream (GET)", method: "GET", path: "/test-b/nope/attrs", status: 404, code: "STREAM_NOT_FOUND" },
  { name: "attrs of a missing stream (PUT)", method: "PUT", path: "/test-b/nope/attrs", headers: J, body: "{}", status: 404, code: "STREAM_NOT_FOUND", absent: "test-b/nope" },
  { name: "attrs GET with a stale Stream-Incarnation", method: "GET", path: "/test-b/snap/attrs", headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", has: { "Stream-Incarnation": /^[0-9]+$/ } },
  { name: "attrs PUT with a made-up Stream-Incarnation", method: "PUT", path: "/test-b/snap/attrs", headers: { ...J, "Stream-Incarnation": "not-ours" }, body: "{}", status: 412, code: "STREAM_INCARNATION_MISMATCH", unchanged: ALL },
  { name: "PATCH attrs", method: "PATCH", path: "/test-b/snap/attrs", status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: "GET, HEAD, PUT, OPTIONS" }, unchanged: ALL },
  { name: "attrs take no path argument", method: "GET", path: "/test-b/snap/attrs/x", status: 404, code: "NOT_FOUND" },
  { name: "an unknown sub-resource", method: "GET", path: "/test-b/snap/keyed-state", status: 404, code: "NOT_FOUND" },
  { name: "sub-resources are not on the v1 surface", method: "GET", path: "/v1/stream/json/attrs", status: 400, code: "INVALID_STREAM_ID" },

  // Snapshot publish (spec §2.13), in the spec's order of checks
  ...["-1", "now", "abc", at(1).replace(/^0/, "1")].map((o): Scenario => ({ name: `snapshot at offset ${o}`, method: "PUT", path: `/test-b/snap/snapshot/${o}`, headers: J, body: "{}", status: 400, code: "INVALID_OFFSET", unchanged: ALL })),
  { name: "snapshot without an offset or ?record", method: "PUT", path: "/test-b/snap/snapshot", headers: J, body: "{}", status: 400, code: "INVALID_QUERY", unchanged: ALL },
  { name: "snapshot at ?record=x", method: "PUT", path: "/test-b/snap/snapshot?record=x", headers: J, body: "{}", status: 400, code: "INVALID_QUERY", unchanged: ALL },
  { name: "snapshot at a record: no stream has record coordinates", method: "PUT", path: "/test-b/snap/snapshot?record=2", headers: J, body: "{}", status: 400, code: "INVALID_RECORD_BOUNDARIES", unchanged: ALL },
  { name: "snapshot with a blank Content-Type", method: "PUT", path: `/test-b/json/snapshot/${at(8)}`, headers: { "Content-Type": " " }, body: "{}", status: 400, code: "INVALID_SNAPSHOT", unchanged: ALL },
  { name: "snapshot with an empty Stream-Snapshot-Match", method: "PUT", path: `/test-b/snap/snapshot/${at(24)}`, headers: { ...J, "Stream-Snapshot-Match": "" }, body: "{}", status: 400, code: "INVALID_SNAPSHOT", unchanged: ALL },
  { name: "snapshot of a missing stream", method: "PUT", path: `/test-b/nope/snapshot/${at(0)}`, headers: J, body: "{}", status: 404, code: "STREAM_NOT_FOUND", absent: "test-b/nope" },
  // 412 before 410 on a publish (the spec's order, step 2 before step 3).
  { name: "snapshot below the floor with a stale Stream-Incarnation", method: "PUT", path: `/test-b/snap/snapshot/${at(0)}`, headers: { ...J, "Stream-Incarnation": "1" }, body: "{}", status: 412, code: "STREAM_INCARNATION_MISMATCH", unchanged: ALL },
  { name: "snapshot below the floor", method: "PUT", path: `/test-b/snap/snapshot/${at(0)}`, headers: J, body: "{}", status: 410, code: "STREAM_GONE", has: { "Stream-Next-Offset": at(8), "Stream-Earliest-Offset": at(8) }, unchanged: ALL },
  { name: "snapshot beyond the tail", method: "PUT", path: `/test-b/snap/snapshot/${at(25)}`, headers: J, body: "{}", status: 409, code: "SNAPSHOT_CONFLICT", has: { "Stream-Next-Offset": at(24) }, unchanged: ALL },
  { name: "snapshot with Stream-Snapshot-Match and no snapshot", method: "PUT", path: `/test-b/json/snapshot/${at(8)}`, headers: { ...J, "Stream-Snapshot-Match": "abc" }, body: "{}", status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "snapshot with a Stream-Snapshot-Match of another digest", method: "PUT", path: `/test-b/snap/snapshot/${at(24)}`, headers: { ...J, "Stream-Snapshot-Match": "abc" }, body: "{}", status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "snapshot below the visible one (stale)", method: "PUT", path: `/test-b/snap/snapshot/${at(8)}`, headers: J, body: '{"count":1}', status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "snapshot at the visible one's offset with other bytes", method: "PUT", path: `/test-b/snap/snapshot/${at(16)}`, headers: J, body: '{"count":3}', status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "snapshot at the visible one's offset with another type", method: "PUT", path: `/test-b/snap/snapshot/${at(16)}`, headers: T, body: '{"count":2}', status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "snapshot inside a message", method: "PUT", path: `/test-b/snap/snapshot/${at(20)}`, headers: J, body: "{}", status: 400, code: "INVALID_SNAPSHOT", unchanged: ALL },
  { name: "snapshot inside a byte-stream append", method: "PUT", path: `/test-b/text/snapshot/${at(2)}`, body: "x", status: 400, code: "INVALID_SNAPSHOT", unchanged: ALL },
  { name: "snapshot over the size limit", method: "PUT", path: `/test-b/snap/snapshot/${at(24)}`, headers: J, body: new Uint8Array(4 * 1024 * 1024 + 1), status: 413, code: "PAYLOAD_TOO_LARGE", unchanged: ALL },
  { name: "POST on a snapshot", method: "POST", path: "/test-b/snap/snapshot", status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: "GET, HEAD, PUT, OPTIONS" }, unchanged: ALL },

  // Snapshot read and delete (spec §2.14–§2.16)
  { name: "latest snapshot of a stream without one", method: "GET", path: "/test-b/json/snapshot", status: 404, code: "SNAPSHOT_NOT_FOUND" },
  { name: "latest snapshot of a missing stream", method: "GET", path: "/test-b/nope/snapshot", status: 404, code: "STREAM_NOT_FOUND" },
  { name: "latest snapshot with a stale Stream-Incarnation", method: "GET", path: "/test-b/snap/snapshot", headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH" },
  { name: "snapshot read at an older offset", method: "GET", path: `/test-b/snap/snapshot/${at(8)}`, status: 404, code: "SNAPSHOT_NOT_FOUND" },
  // A read that would be 404 without the header stays one [CW].
  { name: "snapshot read at an older offset with a stale Stream-Incarnation", method: "GET", path: `/test-b/snap/snapshot/${at(8)}`, headers: { "Stream-Incarnation": "1" }, status: 404, code: "SNAPSHOT_NOT_FOUND" },
  { name: "snapshot read with a stale Stream-Incarnation", method: "GET", path: `/test-b/snap/snapshot/${at(16)}`, headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH" },
  { name: "snapshot read at -1", method: "GET", path: "/test-b/snap/snapshot/-1", status: 400, code: "INVALID_OFFSET" },
  { name: "DELETE the latest snapshot", method: "DELETE", path: `/test-b/snap/snapshot/${at(16)}`, status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "DELETE another snapshot", method: "DELETE", path: `/test-b/snap/snapshot/${at(8)}`, status: 404, code: "SNAPSHOT_NOT_FOUND", unchanged: ALL },
  { name: "DELETE the latest snapshot with a stale Stream-Incarnation", method: "DELETE", path: `/test-b/snap/snapshot/${at(16)}`, headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", unchanged: ALL },

  // Retention (spec §2.17), in the spec's order of checks
  { name: "retention at a malformed offset", method: "PUT", path: "/test-b/snap/retention/x", status: 400, code: "INVALID_OFFSET", unchanged: ALL },
  { name: "retention at -1", method: "PUT", path: "/test-b/snap/retention/-1", status: 400, code: "INVALID_OFFSET", unchanged: ALL },
  { name: "retention without an offset or ?record", method: "PUT", path: "/test-b/snap/retention", status: 400, code: "INVALID_QUERY", unchanged: ALL },
  { name: "retention at a record", method: "PUT", path: "/test-b/snap/retention?record=1", status: 400, code: "INVALID_RECORD_BOUNDARIES", unchanged: ALL },
  { name: "retention of a missing stream", method: "PUT", path: `/test-b/nope/retention/${at(0)}`, status: 404, code: "STREAM_NOT_FOUND", absent: "test-b/nope" },
  { name: "retention with a stale Stream-Incarnation", method: "PUT", path: `/test-b/snap/retention/${at(16)}`, headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", unchanged: ALL },
  { name: "retention backwards", method: "PUT", path: `/test-b/snap/retention/${at(0)}`, status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "retention without a snapshot", method: "PUT", path: `/test-b/json/retention/${at(8)}`, status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "retention past the snapshot", method: "PUT", path: `/test-b/snap/retention/${at(24)}`, status: 409, code: "SNAPSHOT_CONFLICT", unchanged: ALL },
  { name: "retention inside a message", method: "PUT", path: `/test-b/snap/retention/${at(12)}`, status: 400, code: "INVALID_SNAPSHOT", unchanged: ALL },
  { name: "GET retention", method: "GET", path: `/test-b/snap/retention/${at(8)}`, status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: "PUT, OPTIONS" }, unchanged: ALL },

  // Reads against the floor (spec §3.4), 410 before 416 and 412
  ...["-1", at(0), at(7)].map((o): Scenario => ({ name: `read at ${o} below the floor`, method: "GET", path: `/test-b/snap?offset=${o}`, status: 410, code: "STREAM_GONE", has: { "Stream-Next-Offset": at(8), "Stream-Earliest-Offset": at(8) }, unchanged: ALL })),
  { name: "read without an offset once retention moved", method: "GET", path: "/test-b/snap", status: 410, code: "STREAM_GONE", has: { "Stream-Earliest-Offset": at(8) } },
  { name: "read below the floor with a stale Stream-Incarnation", method: "GET", path: "/test-b/snap?offset=-1", headers: { "Stream-Incarnation": "1" }, status: 410, code: "STREAM_GONE" },
  { name: "long-poll below the floor", method: "GET", path: "/test-b/snap?offset=-1&live=long-poll", status: 410, code: "STREAM_GONE", has: { "Stream-Next-Offset": at(8) } },
  { name: "SSE below the floor", method: "GET", path: `/test-b/snap?offset=${at(0)}&live=sse`, status: 410, code: "STREAM_GONE", has: { "Stream-Earliest-Offset": at(8) } },
  { name: "a fork below the source's floor", method: "PUT", path: "/test-b/fork", headers: { ...J, "Stream-Forked-From": "/test-b/snap", "Stream-Fork-Offset": at(0) }, status: 410, code: "STREAM_GONE", has: { "Stream-Earliest-Offset": at(8) }, unchanged: ALL, absent: "test-b/fork" },

  // Bootstrap (spec §2.18)
  ...["sse", "long-poll", ""].map((live): Scenario => ({ name: `bootstrap with live=${live}`, method: "GET", path: `/test-b/snap/bootstrap?live=${live}`, status: 400, code: "INVALID_QUERY" })),
  { name: "bootstrap with consistency=strong", method: "GET", path: "/test-b/snap/bootstrap?consistency=strong", status: 400, code: "INVALID_QUERY" },
  { name: "bootstrap of a missing stream", method: "GET", path: "/test-b/nope/bootstrap", status: 404, code: "STREAM_NOT_FOUND" },
  { name: "bootstrap with a stale Stream-Incarnation", method: "GET", path: "/test-b/snap/bootstrap", headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", has: { "Stream-Incarnation": /^[0-9]+$/ } },
  { name: "POST bootstrap", method: "POST", path: "/test-b/snap/bootstrap", status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: "GET, HEAD, OPTIONS" }, unchanged: ALL },

  // Append-batch (spec §2.10)
  { name: "append-batch with no frames", method: "POST", path: "/test-b/json/append-batch", headers: J, body: new Uint8Array(0), status: 400, code: "BAD_REQUEST", unchanged: ALL },
  { name: "append-batch cut inside a length", method: "POST", path: "/test-b/json/append-batch", headers: J, body: new Uint8Array([0, 0, 1]), status: 400, code: "BAD_REQUEST", unchanged: ALL },
  { name: "append-batch cut inside a frame", method: "POST", path: "/test-b/json/append-batch", headers: J, body: new Uint8Array([...frames(["1"]), 0, 0, 0, 5, 0x31]), status: 400, code: "BAD_REQUEST", unchanged: ALL },
  { name: "append-batch with a zero-length frame", method: "POST", path: "/test-b/json/append-batch", headers: J, body: new Uint8Array([...frames(["1"]), 0, 0, 0, 0]), status: 400, code: "EMPTY_APPEND", unchanged: ALL },
  { name: "append-batch without Content-Type", method: "POST", path: "/test-b/text/append-batch", body: frames(["a"]), status: 400, code: "MISSING_CONTENT_TYPE", unchanged: ALL },
  { name: "append-batch with a malformed Content-Type", method: "POST", path: "/test-b/text/append-batch", headers: { "Content-Type": "text" }, body: frames(["a"]), status: 400, code: "INVALID_CONTENT_TYPE", unchanged: ALL },
  guard("Stream-Seq", "006"),
  guard("Stream-Closed", "true"),
  guard("Producer-Id", "p1"),
  guard("Producer-Epoch", "1"),
  guard("Producer-Seq", "1"),
  guard("Stream-Record-Match", "2"),
  // One bad frame refuses the whole batch: the good frame before it is not appended.
  { name: "append-batch with an invalid JSON frame", method: "POST", path: "/test-b/json/append-batch", headers: J, body: frames(["1", "{"]), status: 400, code: "INVALID_JSON", unchanged: ALL },
  { name: "append-batch with a [] frame", method: "POST", path: "/test-b/json/append-batch", headers: J, body: frames(["1", "[]"]), status: 400, code: "EMPTY_JSON_ARRAY", unchanged: ALL },
  { name: "append-batch of 513 frames", method: "POST", path: "/test-b/json/append-batch", headers: J, body: frames(Array.from({ length: 513 }, () => "1")), status: 413, code: "PAYLOAD_TOO_LARGE", unchanged: ALL },
  { name: "append-batch over the body limit", method: "POST", path: "/test-b/text/append-batch", headers: T, body: frames(["x".repeat(1024 * 1024)]), status: 413, code: "PAYLOAD_TOO_LARGE", unchanged: ALL },
  { name: "append-batch to a missing stream", method: "POST", path: "/test-b/nope/append-batch", headers: J, body: frames(["1"]), status: 404, code: "STREAM_NOT_FOUND", absent: "test-b/nope" },
  { name: "append-batch with a stale Stream-Incarnation", method: "POST", path: "/test-b/json/append-batch", headers: { ...J, "Stream-Incarnation": "1" }, body: frames(["1"]), status: 412, code: "STREAM_INCARNATION_MISMATCH", has: { "Stream-Incarnation": /^[0-9]+$/ }, unchanged: ALL },
  { name: "GET append-batch", method: "GET", path: "/test-b/json/append-batch", status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: "POST, OPTIONS" }, unchanged: ALL },
];

describe("sub-resources: bad input gets a 4xx with a stable code and commits nothing (spec §10)", () => {
  // What the store's background work would delete must not have been orphaned either.
  for (const s of scenarios) test(scenarioTitle(s), () => runScenario(h, s, () => h.store.reclaimed()));
});

test("a snapshot body streamed past the limit (no Content-Length) is refused with 413 and commits nothing", async () => {
  const before = await Promise.all(ALL.map((k) => h.fingerprint(k)));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent > 5 * 1024 * 1024) return controller.close();
      sent += 256 * 1024;
      controller.enqueue(new Uint8Array(256 * 1024));
    },
  });
  const res = await h.request("PUT", `/test-b/snap/snapshot/${at(24)}`, { headers: J, body });
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
  await h.store.reclaimed();
  expect(await Promise.all(ALL.map((k) => h.fingerprint(k)))).toEqual(before);
});

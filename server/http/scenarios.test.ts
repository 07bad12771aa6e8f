// Table-driven HTTP scenarios (spec §10): every bad input gets its status and stable code, and a
// refused request leaves the stream exactly as it was: bytes, Stream-Seq, producers, closure, TTL.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { runScenario, scenarioTitle, seedScenarioStreams, type Scenario } from "../testing/scenario";

const J = { "Content-Type": "application/json" };
const long = (n: number) => "x".repeat(n);

let h: Harness;
beforeEach(async () => {
  h = harness();
  await seedScenarioStreams(h);
});
afterEach(() => h.close());

const scenarios: Scenario[] = [
  // Paths and identifiers
  { name: "bucket shorter than 4", method: "PUT", path: "/abc/s", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "uppercase bucket", method: "PUT", path: "/ABCD/s", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "bucket with a dot", method: "PUT", path: "/ab.cd/s", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "reserved __ bucket", method: "PUT", path: "/__abcd/s", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "bucket longer than 64", method: "PUT", path: `/${long(65)}/s`, status: 400, code: "INVALID_BUCKET_ID" },
  { name: "stream id with ..", method: "PUT", path: "/test-b/a..b", status: 400, code: "INVALID_STREAM_ID", absent: "test-b/a..b" },
  { name: "stream id with %2F", method: "PUT", path: "/test-b/a%2Fb", status: 400, code: "INVALID_STREAM_ID", absent: "test-b/a/b" },
  { name: "stream id with a malformed escape", method: "PUT", path: "/test-b/a%ZZ", status: 400, code: "INVALID_STREAM_ID", absent: "test-b/a%ZZ" },
  { name: "stream id with NUL", method: "PUT", path: "/test-b/a%00b", status: 400, code: "INVALID_STREAM_ID" },
  { name: "stream id over 122 bytes", method: "PUT", path: `/test-b/${long(123)}`, status: 400, code: "INVALID_STREAM_ID" },
  { name: "bucket+stream over 122 bytes", method: "PUT", path: `/test-b/${long(116)}`, status: 400, code: "INVALID_STREAM_ID" },
  { name: "reserved stream id `streams`", method: "PUT", path: "/test-b/streams", status: 400, code: "INVALID_STREAM_ID" },
  { name: "v1 stream id with a slash", method: "PUT", path: "/v1/stream/a/b", status: 400, code: "INVALID_STREAM_ID" },
  { name: "DS subscription prefix is reserved", method: "GET", path: "/v1/stream/__ds/jwks.json", status: 404, code: "NOT_FOUND" },
  { name: "unknown route", method: "GET", path: "/test-b/json/attrs/x", status: 404, code: "NOT_FOUND" },
  { name: "PATCH on a stream", method: "PATCH", path: "/test-b/json", status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: /POST/ } },
  { name: "POST on a bucket", method: "POST", path: "/test-b", status: 405, code: "METHOD_NOT_ALLOWED", has: { Allow: /PUT/ } },

  // PUT
  ...["abc", "-1", "03600", "+3600", "3600.0", "3.6e3", "", "99999999999999999"].map(
    (ttl): Scenario => ({ name: `Stream-TTL ${JSON.stringify(ttl)}`, method: "PUT", path: "/test-b/new", headers: { "Stream-TTL": ttl }, status: 400, code: "INVALID_RETENTION", absent: "test-b/new" }),
  ),
  ...["tomorrow", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00", "1969-12-31T23:59:59Z", "2026-01-01 00:00:00Z"].map(
    (at): Scenario => ({ name: `Stream-Expires-At ${at}`, method: "PUT", path: "/test-b/new", headers: { "Stream-Expires-At": at }, status: 400, code: "INVALID_RETENTION", absent: "test-b/new" }),
  ),
  { name: "TTL and Expires-At together", method: "PUT", path: "/test-b/new", headers: { "Stream-TTL": "60", "Stream-Expires-At": "2030-01-01T00:00:00Z" }, status: 400, code: "INVALID_RETENTION", absent: "test-b/new" },
  { name: "malformed Content-Type", method: "PUT", path: "/test-b/new", headers: { "Content-Type": "json" }, status: 400, code: "INVALID_CONTENT_TYPE", absent: "test-b/new" },
  { name: "invalid JSON initial body", method: "PUT", path: "/test-b/new", headers: J, body: "{", status: 400, code: "INVALID_JSON", absent: "test-b/new" },
  { name: "JSON nested deeper than 128", method: "PUT", path: "/test-b/new", headers: J, body: "[".repeat(129) + "]".repeat(129), status: 400, code: "INVALID_JSON", absent: "test-b/new" },
  { name: "Stream-Attrs not JSON", method: "PUT", path: "/test-b/new", headers: { "Stream-Attrs": "{" }, status: 400, code: "INVALID_STREAM_ATTRS", absent: "test-b/new" },
  { name: "Stream-Attrs not an object", method: "PUT", path: "/test-b/new", headers: { "Stream-Attrs": "[1]" }, status: 400, code: "INVALID_STREAM_ATTRS", absent: "test-b/new" },
  { name: "Stream-Attrs title not a string", method: "PUT", path: "/test-b/new", headers: { "Stream-Attrs": '{"title":1}' }, status: 400, code: "INVALID_STREAM_ATTRS", absent: "test-b/new" },
  { name: "partial producer headers on PUT", method: "PUT", path: "/test-b/new", headers: { "Producer-Id": "p" }, status: 400, code: "INVALID_PRODUCER", absent: "test-b/new" },
  { name: "Stream-Seq over 256 bytes on PUT", method: "PUT", path: "/test-b/new", headers: { "Stream-Seq": long(257) }, status: 400, code: "INVALID_STREAM_SEQ", absent: "test-b/new" },
  { name: "existing stream, other type", method: "PUT", path: "/test-b/json", headers: { "Content-Type": "text/plain" }, status: 409, code: "STREAM_ALREADY_EXISTS_CONFLICT", unchanged: ["test-b/json"] },
  { name: "existing stream, type parameters differ", method: "PUT", path: "/test-b/json", headers: { "Content-Type": "application/json; charset=utf-8" }, status: 409, code: "STREAM_ALREADY_EXISTS_CONFLICT", unchanged: ["test-b/json"] },
  { name: "existing stream, other TTL", method: "PUT", path: "/test-b/text", headers: { "Content-Type": "text/plain", "Stream-TTL": "60" }, status: 409, code: "STREAM_ALREADY_EXISTS_CONFLICT", unchanged: ["test-b/text"] },
  { name: "existing closed stream without Stream-Closed", method: "PUT", path: "/test-b/closed", headers: { "Content-Type": "text/plain" }, status: 409, code: "STREAM_ALREADY_EXISTS_CONFLICT", unchanged: ["test-b/closed"] },
  { name: "producer on create with seq 1", method: "PUT", path: "/test-b/new", headers: { "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": "1" }, status: 409, code: "PRODUCER_SEQ_CONFLICT", has: { "Producer-Expected-Seq": "0" }, absent: "test-b/new" },
  { name: "Stream-Incarnation for a missing stream creates nothing", method: "PUT", path: "/test-b/new", headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", lacks: ["Stream-Last-Seq"], absent: "test-b/new" },
  { name: "a made-up Stream-Incarnation for a missing stream creates nothing", method: "PUT", path: "/test-b/new", headers: { "Stream-Incarnation": "abc" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", absent: "test-b/new" },
  { name: "a Stream-Incarnation over 256 bytes", method: "PUT", path: "/test-b/new", headers: { "Stream-Incarnation": long(257) }, status: 400, code: "BAD_REQUEST", absent: "test-b/new" },
  { name: "PUT body too large", method: "PUT", path: "/test-b/new", body: long(1024 * 1024 + 1), status: 413, code: "PAYLOAD_TOO_LARGE", absent: "test-b/new" },

  // POST
  { name: "empty append", method: "POST", path: "/test-b/json", headers: J, body: "", status: 400, code: "EMPTY_APPEND", unchanged: ["test-b/json"] },
  { name: "append without Content-Type", method: "POST", path: "/test-b/text", body: "x", status: 400, code: "MISSING_CONTENT_TYPE", unchanged: ["test-b/text"] },
  { name: "append with malformed Content-Type", method: "POST", path: "/test-b/text", headers: { "Content-Type": "text" }, body: "x", status: 400, code: "INVALID_CONTENT_TYPE", unchanged: ["test-b/text"] },
  { name: "append of invalid JSON", method: "POST", path: "/test-b/json", headers: J, body: '{"a":', status: 400, code: "INVALID_JSON", unchanged: ["test-b/json"] },
  { name: "append of []", method: "POST", path: "/test-b/json", headers: J, body: "[]", status: 400, code: "EMPTY_JSON_ARRAY", unchanged: ["test-b/json"] },
  { name: "only Producer-Id", method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": "p1" }, body: "1", status: 400, code: "INVALID_PRODUCER", unchanged: ["test-b/json"] },
  { name: "blank Producer-Id", method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": " ", "Producer-Epoch": "1", "Producer-Seq": "1" }, body: "1", status: 400, code: "INVALID_PRODUCER", unchanged: ["test-b/json"] },
  { name: "Producer-Id over 256 bytes", method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": long(257), "Producer-Epoch": "1", "Producer-Seq": "0" }, body: "1", status: 400, code: "INVALID_PRODUCER", unchanged: ["test-b/json"] },
  ...["1abc", "0xyz", "1e3", "-1", "+1", "9007199254740992"].map(
    (v): Scenario => ({ name: `Producer-Seq ${v}`, method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": "p1", "Producer-Epoch": "1", "Producer-Seq": v }, body: "1", status: 400, code: "INVALID_PRODUCER", unchanged: ["test-b/json"] }),
  ),
  { name: "new epoch with seq 1", method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": "p1", "Producer-Epoch": "2", "Producer-Seq": "1" }, body: "1", status: 400, code: "INVALID_PRODUCER", unchanged: ["test-b/json"] },
  { name: "Stream-Seq over 256 bytes", method: "POST", path: "/test-b/json", headers: { ...J, "Stream-Seq": long(257) }, body: "1", status: 400, code: "INVALID_STREAM_SEQ", unchanged: ["test-b/json"] },
  { name: "append to a missing stream", method: "POST", path: "/test-b/nope", headers: J, body: "1", status: 404, code: "STREAM_NOT_FOUND", absent: "test-b/nope" },
  { name: "append with a token from another server", method: "POST", path: "/test-b/json", headers: { ...J, "Stream-Incarnation": "ursula-7f3a" }, body: "1", status: 412, code: "STREAM_INCARNATION_MISMATCH", has: { "Stream-Incarnation": /^[0-9]+$/ }, unchanged: ["test-b/json"] },
  { name: "append with a stale Stream-Incarnation", method: "POST", path: "/test-b/json", headers: { ...J, "Stream-Incarnation": "1" }, body: "1", status: 412, code: "STREAM_INCARNATION_MISMATCH", has: { "Stream-Incarnation": /^[0-9]+$/ }, lacks: ["Stream-Last-Seq"], unchanged: ["test-b/json"] },
  { name: "stale producer epoch", method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": "p1", "Producer-Epoch": "0", "Producer-Seq": "1" }, body: "1", status: 403, code: "PRODUCER_EPOCH_STALE", has: { "Producer-Epoch": "1" }, unchanged: ["test-b/json"] },
  { name: "producer sequence gap", method: "POST", path: "/test-b/json", headers: { ...J, "Producer-Id": "p1", "Producer-Epoch": "1", "Producer-Seq": "5" }, body: "1", status: 409, code: "PRODUCER_SEQ_CONFLICT", has: { "Producer-Expected-Seq": "1", "Producer-Received-Seq": "5" }, lacks: ["Stream-Last-Seq"], unchanged: ["test-b/json"] },
  { name: "append to a closed stream", method: "POST", path: "/test-b/closed", headers: { "Content-Type": "text/plain" }, body: "more", status: 409, code: "STREAM_CLOSED", has: { "Stream-Closed": "true", "Stream-Next-Offset": "0000000000000000_0000000000000005" }, lacks: ["Stream-Last-Seq"], unchanged: ["test-b/closed"] },
  { name: "Content-Type differs by a parameter", method: "POST", path: "/test-b/json", headers: { "Content-Type": "application/json; charset=utf-8", "Stream-Seq": "006" }, body: "1", status: 409, code: "CONTENT_TYPE_MISMATCH", lacks: ["Stream-Last-Seq"], unchanged: ["test-b/json"] },
  { name: "Stream-Seq not greater", method: "POST", path: "/test-b/json", headers: { ...J, "Stream-Seq": "005" }, body: "1", status: 409, code: "STREAM_SEQ_CONFLICT", has: { "Stream-Last-Seq": "005", "Stream-Next-Offset": /_0000000000000016$/, "Stream-Incarnation": /^[0-9]+$/ }, lacks: ["Stream-Closed", "Producer-Expected-Seq"], unchanged: ["test-b/json"] },
  { name: "append body too large", method: "POST", path: "/test-b/text", headers: { "Content-Type": "text/plain" }, body: long(1024 * 1024 + 1), status: 413, code: "PAYLOAD_TOO_LARGE", unchanged: ["test-b/text"] },

  // GET
  { name: "empty offset", method: "GET", path: "/test-b/json?offset=", status: 400, code: "INVALID_OFFSET" },
  { name: "repeated offset", method: "GET", path: "/test-b/json?offset=-1&offset=-1", status: 400, code: "INVALID_OFFSET" },
  ...["0,1", "0%201", "NOW", "..%2Fx", "a%2Fb", "%00", "1%0D%0A", "1111111111111111_0000000000000000"].map(
    (o): Scenario => ({ name: `offset ${o}`, method: "GET", path: `/test-b/json?offset=${o}`, status: 400, code: "INVALID_OFFSET" }),
  ),
  { name: "offset inside a JSON message", method: "GET", path: "/test-b/json?offset=3", status: 400, code: "INVALID_OFFSET" },
  { name: "live=foo", method: "GET", path: "/test-b/json?offset=-1&live=foo", status: 400, code: "INVALID_QUERY" },
  { name: "live without offset", method: "GET", path: "/test-b/json?live=sse", status: 400, code: "INVALID_QUERY" },
  { name: "max_bytes 0", method: "GET", path: "/test-b/json?max_bytes=0", status: 400, code: "INVALID_QUERY" },
  { name: "max_bytes not a number", method: "GET", path: "/test-b/json?max_bytes=ten", status: 400, code: "INVALID_QUERY" },
  { name: "timeout_ms not a number", method: "GET", path: "/test-b/json?offset=now&live=long-poll&timeout_ms=1s", status: 400, code: "INVALID_QUERY" },
  { name: "consistency=strong", method: "GET", path: "/test-b/json?consistency=strong", status: 400, code: "INVALID_QUERY" },
  { name: "read a missing stream", method: "GET", path: "/test-b/nope?offset=now&live=long-poll", status: 404, code: "STREAM_NOT_FOUND" },
  { name: "offset beyond the tail", method: "GET", path: "/test-b/text?offset=6", status: 416, code: "OFFSET_OUT_OF_RANGE", has: { "Stream-Next-Offset": "0000000000000000_0000000000000005" } },
  { name: "read with a stale Stream-Incarnation", method: "GET", path: "/test-b/text?offset=-1", headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH" },

  // HEAD and DELETE
  { name: "HEAD a missing stream", method: "HEAD", path: "/test-b/nope", status: 404 },
  { name: "HEAD with a stale Stream-Incarnation", method: "HEAD", path: "/test-b/text", headers: { "Stream-Incarnation": "1" }, status: 412, has: { "Stream-Incarnation": /^[0-9]+$/ } },
  { name: "DELETE a missing stream", method: "DELETE", path: "/test-b/nope", status: 404, code: "STREAM_NOT_FOUND" },
  { name: "DELETE with a stale Stream-Incarnation deletes nothing", method: "DELETE", path: "/test-b/text", headers: { "Stream-Incarnation": "1" }, status: 412, code: "STREAM_INCARNATION_MISMATCH", unchanged: ["test-b/text"] },

  // Buckets
  { name: "PUT an invalid bucket", method: "PUT", path: "/B", status: 400, code: "INVALID_BUCKET_ID" },
  // Every method is told that an ID is malformed (spec §2.1-§2.3), even one no client means as a bucket.
  { name: "GET /favicon.ico", method: "GET", path: "/favicon.ico", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "GET /robots.txt", method: "GET", path: "/robots.txt", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "GET a segment under 4 characters", method: "GET", path: "/abc", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "GET an uppercase bucket", method: "GET", path: "/Rp-abcd", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "DELETE a segment that cannot be a bucket", method: "DELETE", path: "/B", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "HEAD a segment that cannot be a bucket", method: "HEAD", path: "/ab", status: 400 },
  { name: "POST to a segment that cannot be a bucket", method: "POST", path: "/Rp-abcd", status: 400, code: "INVALID_BUCKET_ID" },
  { name: "list with limit 0", method: "GET", path: "/test-b/streams?limit=0", status: 400, code: "INVALID_QUERY" },
  { name: "list with limit 1001", method: "GET", path: "/test-b/streams?limit=1001", status: 400, code: "INVALID_QUERY" },
  { name: "GET a missing bucket", method: "GET", path: "/nope-bucket", status: 404, code: "BUCKET_NOT_FOUND" },
  { name: "list a missing bucket", method: "GET", path: "/nope-bucket/streams", status: 404, code: "BUCKET_NOT_FOUND" },
  { name: "DELETE a non-empty bucket", method: "DELETE", path: "/test-b", status: 409, code: "BUCKET_NOT_EMPTY", unchanged: ["test-b/json"] },
];

describe("bad input gets a 4xx with a stable code and commits nothing (spec §10)", () => {
  for (const s of scenarios) test(scenarioTitle(s), () => runScenario(h, s));
});

describe("inputs that are not errors (spec §10)", () => {
  test("a Stream-Seq with a non-printable byte is ignored: accepted, nothing stored", async () => {
    const res = await h.request("POST", "/test-b/json", { headers: { ...J, "Stream-Seq": "00\u00e9" }, body: "3" });
    expect(res.status).toBe(204);
    expect((await h.store.get("test-b/json"))!.lastSeq).toBe("005");
  });
  test("Stream-Closed: yes is not a close", async () => {
    const res = await h.request("POST", "/test-b/text", { headers: { "Content-Type": "text/plain", "Stream-Closed": "yes" }, body: "!" });
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Closed")).toBeNull();
    expect((await h.store.get("test-b/text"))!.closed).toBe(false);
  });
  test("Stream-Closed: TRUE closes (case-insensitive)", async () => {
    const res = await h.request("POST", "/test-b/text", { headers: { "Stream-Closed": "TRUE" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Closed")).toBe("true");
  });
  test("a close-only request ignores a mismatched Content-Type", async () => {
    const res = await h.request("POST", "/test-b/json", { headers: { "Content-Type": "image/png", "Stream-Closed": "true" } });
    expect(res.status).toBe(204);
    expect((await h.store.get("test-b/json"))!.closed).toBe(true);
  });
  test("a repeated close-only request is 204 with Stream-Closed", async () => {
    const res = await h.request("POST", "/test-b/closed", { headers: { "Stream-Closed": "true" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Closed")).toBe("true");
    expect(res.headers.get("Stream-Next-Offset")).toBe("0000000000000000_0000000000000005");
  });
  test("a producer duplicate is 204 and appends nothing", async () => {
    const before = await h.fingerprint("test-b/json");
    const res = await h.request("POST", "/test-b/json", {
      headers: { ...J, "Producer-Id": "p1", "Producer-Epoch": "1", "Producer-Seq": "0" },
      body: '[{"n":1},{"n":2}]',
    });
    expect(res.status).toBe(204);
    expect(await h.fingerprint("test-b/json")).toBe(before);
  });
});

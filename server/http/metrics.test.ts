// /__ursula/metrics after known traffic: each count exactly, in the Prometheus text format.

import { afterEach, beforeEach, expect, test } from "bun:test";
import type { RouteFamily } from "../ops/server-metrics";
import { harness, type Harness } from "../testing/app-harness";

let h: Harness;
beforeEach(() => (h = harness()));
afterEach(() => h.close());

/** Every sample of an exposition, `name{labels}` to value; also checks each family has HELP and TYPE. */
async function scrape(): Promise<Map<string, number>> {
  const res = await h.request("GET", "/__ursula/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of (await res.text()).trimEnd().split("\n")) {
    const type = /^# TYPE (\S+) (counter|gauge|histogram)$/.exec(line);
    if (type) typed.add(type[1]!);
    if (line.startsWith("#")) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    expect(m).not.toBeNull();
    expect(typed.has(m![1]!.replace(/_(bucket|sum|count)$/, "")) || typed.has(m![1]!)).toBe(true);
    samples.set(m![1]! + (m![2] ?? ""), Number(m![3]));
  }
  return samples;
}

const TEXT = { "Content-Type": "text/plain" };
const requests = (family: string, method: string, status: number) => `ursa_http_requests_total{family="${family}",method="${method}",status="${status}"}`;

test("requests by family, method and status; error codes; appended bytes and messages", async () => {
  expect((await h.request("PUT", "/met-b/s", { headers: TEXT, body: "xy" })).status).toBe(201);
  for (const body of ["a", "bb", "ccc"]) expect((await h.request("POST", "/met-b/s", { headers: TEXT, body })).status).toBe(204);
  expect((await h.request("PUT", "/met-b/j", { headers: { "Content-Type": "application/json" } })).status).toBe(201);
  expect((await h.request("POST", "/met-b/j", { headers: { "Content-Type": "application/json" }, body: '[{"n":1},{"n":2}]' })).status).toBe(204);
  expect((await h.request("POST", "/met-b/missing", { headers: TEXT, body: "z" })).status).toBe(404);
  expect((await h.request("POST", "/met-b/s", { headers: { "Content-Type": "application/json" }, body: "{}" })).status).toBe(409);
  expect((await h.request("GET", "/met-b/s?offset=-1")).status).toBe(200);
  expect((await h.request("HEAD", "/met-b/s")).status).toBe(200);
  expect((await h.request("GET", "/met-b/streams")).status).toBe(200);
  expect((await h.request("GET", "/met-b")).status).toBe(200);
  expect((await h.request("GET", "/favicon.ico")).status).toBe(400);
  expect((await h.request("OPTIONS", "/met-b/s")).status).toBe(204);
  expect((await h.request("GET", "/__ursula/health")).status).toBe(200);

  const m = await scrape();
  const counted = [...m].filter(([k]) => k.startsWith("ursa_http_requests_total"));
  expect(Object.fromEntries(counted)).toEqual({
    [requests("stream", "GET", 200)]: 1,
    [requests("stream", "HEAD", 200)]: 1,
    [requests("stream", "POST", 204)]: 4,
    [requests("stream", "POST", 404)]: 1,
    [requests("stream", "POST", 409)]: 1,
    [requests("stream", "PUT", 201)]: 2,
    [requests("bucket", "GET", 200)]: 1,
    [requests("bucket", "GET", 400)]: 1,
    [requests("listing", "GET", 200)]: 1,
    [requests("admin", "GET", 200)]: 1,
    [requests("preflight", "OPTIONS", 204)]: 1,
  });
  expect(Object.fromEntries([...m].filter(([k]) => k.startsWith("ursa_http_error_responses_total")))).toEqual({
    'ursa_http_error_responses_total{code="CONTENT_TYPE_MISMATCH"}': 1,
    'ursa_http_error_responses_total{code="INVALID_BUCKET_ID"}': 1,
    'ursa_http_error_responses_total{code="STREAM_NOT_FOUND"}': 1,
  });
  // Bytes as offsets count them: "xy" on create, then "a", "bb", "ccc"; and the two JSON messages.
  const tail = async (path: string) => Number((await h.request("HEAD", path)).headers.get("Stream-Next-Offset")!.split("_")[1]);
  expect(await tail("/met-b/s")).toBe(8);
  expect(m.get("ursa_appended_bytes_total")).toBe(8 + (await tail("/met-b/j")));
  expect(m.get("ursa_appended_messages_total")).toBe(1 + 3 + 2);
  expect([m.get("ursa_streams"), m.get("ursa_buckets")]).toEqual([2, 1]);
  expect(m.get("ursa_ready")).toBe(1);
  expect(m.get("ursa_database_bytes")).toBeGreaterThan(0);
  // Every write, the creates' and appends' alike, went through group commit.
  expect(m.get("ursa_group_commit_batch_writes_sum")).toBeGreaterThanOrEqual(8);
  expect(m.get('ursa_group_commit_batch_writes_bucket{le="+Inf"}')).toBe(m.get("ursa_group_commit_batch_writes_count")!);
  expect(m.get("ursa_group_commit_commit_seconds_count")).toBe(m.get("ursa_group_commit_batch_writes_count")!);
  expect(m.get("ursa_group_commit_sync_seconds_count")).toBe(0);

  // The scrape itself is counted once it is answered (and the two HEADs above).
  const again = await scrape();
  expect(again.get(requests("admin", "GET", 200))).toBe(2);
  expect(again.get(requests("stream", "HEAD", 200))).toBe(3);
});

test("live readers, by kind, while they are connected", async () => {
  expect((await h.request("PUT", "/met-b/live", { headers: TEXT })).status).toBe(201);
  const abort = new AbortController();
  const sse = await Promise.all([1, 2].map(() => h.request("GET", "/met-b/live?offset=-1&live=sse", { signal: abort.signal })));
  expect(sse.map((r) => r.status)).toEqual([200, 200]);
  const readers = sse.map((r) => r.body!.getReader());
  await Promise.all(readers.map((r) => r.read()));
  const poll = h.request("GET", "/met-b/live?offset=now&live=long-poll&timeout_ms=5000");
  await new Promise((r) => setTimeout(r, 20));

  let m = await scrape();
  expect([m.get('ursa_live_readers{kind="sse"}'), m.get('ursa_live_readers{kind="long_poll"}')]).toEqual([2, 1]);

  expect((await h.request("POST", "/met-b/live", { headers: TEXT, body: "wake" })).status).toBe(204);
  expect((await poll).status).toBe(200);
  abort.abort();
  await Promise.all(readers.map((r) => r.cancel()));
  for (let i = 0; i < 50 && h.hub.active > 0; i++) await new Promise((r) => setTimeout(r, 5));
  m = await scrape();
  expect([m.get('ursa_live_readers{kind="sse"}'), m.get('ursa_live_readers{kind="long_poll"}')]).toEqual([0, 0]);
  expect(m.get(requests("stream", "GET", 200))).toBe(3);
});

test("route families, from the route each request takes", () => {
  const cases: [string, string, RouteFamily][] = [
    ["POST", "/b123/s", "stream"],
    ["GET", "/v1/stream/x", "stream"],
    ["GET", "/v1/stream", "stream"],
    ["GET", "/b123/streams", "listing"],
    ["GET", "/b123/xstreams", "stream"],
    ["PUT", "/b123", "bucket"],
    ["GET", "/favicon.ico", "bucket"],
    ["GET", "/__ursula/metrics", "admin"],
    ["GET", "/ui/assets/x.js", "console"],
    ["GET", "/", "console"],
    ["OPTIONS", "/b123/s", "preflight"],
    ["GET", "/a/b/c", "other"],
    ["GET", "/b123/", "other"],
    ["POST", "/b123/s/append-batch", "append_batch"],
    ["PUT", "/b123/s/attrs", "attrs"],
    ["GET", "/b123/s/attrs/x", "other"],
    ["GET", "/b123/s/snapshot", "snapshot"],
    ["DELETE", "/b123/s/snapshot/0000000000000000_0000000000000004", "snapshot"],
    ["GET", "/b123/s/snapshot/", "other"],
    ["PUT", "/b123/s/retention/7", "retention"],
    ["PUT", "/b123/s/retention/7/8", "other"],
    ["GET", "/b123/s/bootstrap", "bootstrap"],
    ["GET", "/b123//bootstrap", "other"],
    ["GET", "/v1/stream/x/attrs", "stream"],
    // A method the listing does not answer goes on to the stream route ("streams" is a reserved stream ID).
    ["POST", "/b123/streams", "stream"],
    ["HEAD", "/b123/streams", "listing"],
    ["PATCH", "/b123/s/attrs", "attrs"],
    ["POST", "/__ursula/health", "admin"],
  ];
  expect(cases.map(([method, raw]) => h.routeFamily(method, raw))).toEqual(cases.map(([, , family]) => family));
});

test("each sub-resource counts under its own family, answered or refused", async () => {
  expect((await h.request("PUT", "/met-b/sub", { headers: TEXT, body: "abcd" })).status).toBe(201);
  expect((await h.request("GET", "/met-b/sub/attrs")).status).toBe(200);
  expect((await h.request("PUT", "/met-b/sub/snapshot", { headers: TEXT, body: "snap" })).status).toBe(400);
  expect((await h.request("GET", "/met-b/sub/snapshot")).status).toBe(404);
  expect((await h.request("PUT", "/met-b/sub/retention", { headers: TEXT })).status).toBe(400);
  expect((await h.request("GET", "/met-b/sub/bootstrap")).status).toBe(200);
  expect((await h.request("DELETE", "/met-b/sub/append-batch")).status).toBe(405);
  expect((await h.request("GET", "/met-b/sub/nonesuch")).status).toBe(404);

  const counted = [...(await scrape())].filter(([k]) => k.startsWith("ursa_http_requests_total") && !k.includes('family="admin"'));
  const families = new Map<string, number>();
  for (const [k, n] of counted) {
    const family = /family="([^"]+)"/.exec(k)![1]!;
    families.set(family, (families.get(family) ?? 0) + n);
  }
  expect(Object.fromEntries(families)).toEqual({ stream: 1, attrs: 1, snapshot: 2, retention: 1, bootstrap: 1, append_batch: 1, other: 1 });
});

test("a request that holds the event loop shows in the lag metrics", async () => {
  await Bun.sleep(50);
  const until = performance.now() + 150;
  while (performance.now() < until);
  await Bun.sleep(50);
  const samples = await scrape();
  expect(samples.get("ursa_event_loop_lag_max_seconds")).toBeGreaterThanOrEqual(0.1);
  expect(samples.get('ursa_event_loop_lag_seconds_bucket{le="0.1"}')).toBeLessThan(samples.get("ursa_event_loop_lag_seconds_count")!);
  expect(samples.get("ursa_event_loop_lag_seconds_count")).toBeLessThanOrEqual(h.lag.histogram.snapshot().count);
});

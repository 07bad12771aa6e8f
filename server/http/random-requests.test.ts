// Random sequences of requests, valid and malformed mixed, against the app: the table in
// scenarios.test.ts names the cases we thought of; this looks for the ones we did not. Whatever
// is sent, the answer is never a 5xx, every error carries a stable code, a refused write leaves
// every stream exactly as it was, and an accepted append stored all of its body.

import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { harness, type Harness } from "../testing/app-harness";

const BUCKET = "fuzz-b";
const STREAMS = ["json", "text", "closed", "new"];
const KEYS = STREAMS.map((s) => `${BUCKET}/${s}`);

// Values that sit on the edges of what the header parsers accept, beside arbitrary printable text.
const edgeValue = fc.constantFrom(
  "", " ", "0", "1", "-1", "+1", "01", "1e3", "1.5", "true", "TRUE", "false", "005", "006", "zzz",
  "9007199254740991", "9007199254740992", "x".repeat(257), "p1", "application/json", "text/plain",
  "application/json; charset=utf-8", "text", "0000000000000000_0000000000000005", "now", "2030-01-01T00:00:00Z",
  '{"title":"t"}', "{", "/fuzz-b/text", "/fuzz-b/nope",
);
const printable = fc.string({ unit: fc.constantFrom(..." \t!\"#%&'()*+,-./0123456789:;<=>?@AZaz[\\]^_`{|}~"), maxLength: 24 });
const headerValue = fc.oneof({ weight: 3, arbitrary: edgeValue }, { weight: 1, arbitrary: printable });

const HEADER_NAMES = [
  "Content-Type", "Stream-Seq", "Stream-Closed", "Stream-TTL", "Stream-Expires-At", "Stream-Attrs",
  "Stream-Incarnation", "Producer-Id", "Producer-Epoch", "Producer-Seq", "Stream-Forked-From",
  "Stream-Fork-Offset", "Stream-Fork-Sub-Offset", "If-None-Match", "Last-Event-ID",
];
const anyHeaders = fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue, { maxKeys: 6 });
// Most random headers fail a parser; these pass them, so the stream rules get their turn too.
const wellFormed = fc.record(
  {
    "Content-Type": fc.constantFrom("text/plain", "application/json"),
    "Stream-Seq": fc.constantFrom("004", "006", "007", "1"),
    "Producer-Id": fc.constantFrom("p1", "p2", "p3"),
    "Producer-Epoch": fc.constantFrom("0", "1", "2"),
    "Producer-Seq": fc.constantFrom("0", "1", "2"),
    "Stream-Closed": fc.constant("true"),
  },
  { requiredKeys: ["Content-Type"] },
);
const headers = fc.oneof(anyHeaders, fc.tuple(wellFormed, anyHeaders).map(([w, a]) => ({ ...a, ...w })), wellFormed);

const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...STREAMS) },
  { weight: 1, arbitrary: fc.constantFrom("streams", "a..b", "a%2Fb", "a%ZZ", "%00", "x".repeat(130), "%E2%82", "__x", "") },
  { weight: 1, arbitrary: printable.map(encodeURIComponent) },
);
const path = fc.oneof(
  { weight: 8, arbitrary: segment.map((s) => `/${BUCKET}/${s}`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("ABCD", "abc", "__ab", "fuzz-c", BUCKET), segment).map(([b, s]) => `/${b}/${s}`) },
  { weight: 1, arbitrary: fc.constantFrom(`/${BUCKET}`, `/${BUCKET}/streams`, "/v1/stream/x", "/v1/stream/", "/__ursula/streams", `/${BUCKET}/json/x`) },
);
const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.constantFrom("?offset=-1", "?offset=now", "?offset=0000000000000000_0000000000000003", "?offset=3", "?offset=", "?offset=-1&max_bytes=1", "?max_bytes=0", "?offset=-1&live=foo", "?limit=0", "?consistency=leader", "?offset=now&live=long-poll&timeout_ms=1", "?offset=-1&live=long-poll", "?offset=-1&live=sse", "?offset=now&live=sse&cursor=x", "?offset=-1&live=long-poll&timeout_ms=abc") },
  { weight: 1, arbitrary: printable.map((q) => `?offset=${encodeURIComponent(q)}`) },
);
const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 3, arbitrary: fc.constantFrom('{"n":1}', "[1,2]", "[]", "{", "1", '[{"a":[]}]', "hello", "[".repeat(130)) },
  { weight: 2, arbitrary: printable },
);
const anyRequest = fc.record({
  method: fc.constantFrom("PUT", "POST", "POST", "POST", "DELETE", "GET", "HEAD", "PATCH"),
  path,
  query,
  headers,
  body,
});
// A valid first write from a producer the seeded streams do not know: the producer limit's turn.
const newProducerAppend = fc
  .tuple(fc.constantFrom(["json", "application/json", "[7]"], ["text", "text/plain", "abc"]), fc.constantFrom("p3", "p4"))
  .map(([[stream, contentType, b], id]) => ({
    method: "POST" as const,
    path: `/${BUCKET}/${stream}`,
    query: "",
    headers: { "Content-Type": contentType, "Producer-Id": id, "Producer-Epoch": "0", "Producer-Seq": "0" } as Record<string, string>,
    body: b,
  }));
// A valid creation: random headers seldom pass every parser at once, so without this a run of 300
// could end with no 201 at all (it did once in CI), and the check below would fail by chance.
const newStream = fc
  .tuple(fc.constantFrom("application/json", "text/plain"), fc.constantFrom<Record<string, string>>({}, { "Stream-TTL": "60" }, { "Stream-Closed": "true" }))
  .map(([contentType, extra]) => ({
    method: "PUT" as const,
    path: `/${BUCKET}/new`,
    query: "",
    headers: { "Content-Type": contentType, ...extra },
    body: "",
  }));
const request = fc.oneof({ weight: 9, arbitrary: anyRequest }, { weight: 1, arbitrary: newProducerAppend }, { weight: 1, arbitrary: newStream });
type Req = typeof anyRequest extends fc.Arbitrary<infer T> ? T : never;

// Small producer limits, and time that passes between requests, so that producers are forgotten,
// evicted and refused with 429 too. Ten idle minutes forget a producer; no stream TTL runs out.
const PRODUCER_LIMITS = { idleTtlMs: 10 * 60_000, maxPerStream: 2 };
const pause = fc.constantFrom(0, 0, 0, 0, 6 * 60_000, 11 * 60_000);

async function seed(h: Harness): Promise<void> {
  const ok = async (method: string, p: string, hs: Record<string, string>, b?: string) => {
    const r = await h.request(method, p, { headers: hs, body: b });
    if (r.status >= 300) throw new Error(`setup ${method} ${p}: ${r.status} ${await r.text()}`);
  };
  await ok("PUT", `/${BUCKET}/json`, { "Content-Type": "application/json" });
  await ok("POST", `/${BUCKET}/json`, { "Content-Type": "application/json", "Stream-Seq": "005", "Producer-Id": "p1", "Producer-Epoch": "1", "Producer-Seq": "0" }, "[1,2]");
  await ok("PUT", `/${BUCKET}/text`, { "Content-Type": "text/plain", "Stream-TTL": "3600" }, "hello");
  // Both streams start full of producers (PRODUCER_LIMITS), so a third gets 429 until one is idle.
  await ok("POST", `/${BUCKET}/json`, { "Content-Type": "application/json", "Producer-Id": "p2", "Producer-Epoch": "0", "Producer-Seq": "0" }, "[3]");
  for (const id of ["p1", "p2"]) await ok("POST", `/${BUCKET}/text`, { "Content-Type": "text/plain", "Producer-Id": id, "Producer-Epoch": "0", "Producer-Seq": "0" }, id);
  await ok("PUT", `/${BUCKET}/closed`, { "Content-Type": "text/plain", "Stream-Closed": "true" }, "final");
}

const withoutForkRefs = (fingerprint: string | null) => fingerprint?.replace(/"forkRefs":\d+/, "") ?? null;
const withoutTouch = (fingerprint: string | null) => fingerprint?.replace(/"touchedAtMs":\d+/, "") ?? null;

async function bytesOf(h: Harness, key: string): Promise<Buffer | null> {
  const s = await h.store.get(key);
  return s ? Buffer.concat((await h.store.readRange(s, 0, Number.MAX_SAFE_INTEGER, false)).chunks) : null;
}

async function check(h: Harness, r: Req): Promise<number> {
  const target = KEYS.find((k) => r.path === `/${k}`);
  const before = new Map(await Promise.all(KEYS.map(async (k) => [k, await h.fingerprint(k)] as const)));
  const targetState = target ? await h.store.get(target) : undefined;
  const bytesBefore = target ? await bytesOf(h, target) : null;
  const res = await h.request(r.method, r.path + r.query, { headers: r.headers, body: r.method === "GET" || r.method === "HEAD" ? undefined : r.body });
  const what = `${r.method} ${r.path}${r.query} ${JSON.stringify(r.headers)} ${JSON.stringify(r.body)} → ${res.status}`;

  expect(res.status, what).toBeGreaterThanOrEqual(200);
  expect(res.status, what).toBeLessThan(500);
  if (res.status >= 400 && r.method !== "HEAD") {
    expect(res.headers.get("Content-Type"), what).toBe("application/json");
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code, what).toMatch(/^[A-Z_]+$/);
    expect(error.message.length, what).toBeGreaterThan(0);
  } else {
    await res.body?.cancel();
  }

  // A refused write touches nothing. An accepted one changes the stream it names and, at most,
  // the fork count of another: creating or deleting a fork counts references on its source, and
  // deleting the last fork of a deleted source removes that source.
  const accepted = res.status < 300 && r.method !== "GET" && r.method !== "HEAD";
  for (const k of KEYS) {
    if (accepted && k === target) continue;
    const was = before.get(k)!;
    const now = await h.fingerprint(k);
    // A read renews its stream's sliding TTL (spec §7.1), once time has passed.
    if (r.method === "GET" && k === target) expect(withoutTouch(now), `${what}: ${k}`).toBe(withoutTouch(was));
    else if (!accepted) expect(now, `${what}: ${k}`).toBe(was);
    else if (!(r.method === "DELETE" && now === null && was?.includes('"softDeleted":true'))) {
      expect(withoutForkRefs(now), `${what}: ${k}`).toBe(withoutForkRefs(was));
    }
  }

  // An accepted append of a byte stream stored its whole body, or nothing if it was a duplicate.
  if (r.method === "POST" && res.status < 300 && target && targetState && targetState.contentType === "text/plain") {
    const after = (await bytesOf(h, target))!;
    const duplicate = r.headers["Producer-Id"] !== undefined && res.status === 204;
    const expected = duplicate ? bytesBefore! : Buffer.concat([bytesBefore!, Buffer.from(r.body)]);
    expect(after.equals(expected), `${what}: stored ${after.length} bytes, expected ${expected.length}`).toBe(true);
  }
  return res.status;
}

describe("random request sequences", () => {
  test("never a 5xx; errors carry a code; refused writes change nothing; accepted appends store their whole body", async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(pause, request), { minLength: 1, maxLength: 8 }), async (steps) => {
        const h = harness({ longPollTimeoutMs: 1, producerLimits: PRODUCER_LIMITS });
        try {
          await seed(h);
          for (const [ms, r] of steps) {
            h.clock.now += ms;
            statuses.add(await check(h, r));
          }
        } finally {
          await h.close();
        }
      }),
      { numRuns: 300 },
    );
    // The generators must reach past the parsers: acceptances, and refusals at every stage.
    for (const status of [200, 201, 204, 400, 404, 409, 412, 429]) expect(statuses).toContain(status);
  }, 120_000);
});

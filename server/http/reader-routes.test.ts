// GET /__ursula/api/streams/{bucket}/{stream}/readers and the bucket list by live readers: what
// the hub keeps of each reader, how far behind the tail it is, and who may see it.

import { afterEach, describe, expect, test } from "bun:test";
import { NO_AUTH, type AuthConfig } from "../auth/authenticator";
import { ALL_SCOPES, READ } from "../auth/scopes";
import type { BucketPage, ReaderPage, StreamPage } from "../introspection-api";
import { harness, type Harness } from "../testing/app-harness";
import { readerPage } from "./reader-routes";

const T = { "Content-Type": "text/plain" };
const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;

let h: Harness;
let abort: AbortController;
afterEach(async () => {
  abort?.abort();
  await h.close();
});

async function put(path: string, headers: Record<string, string>, body?: string, auth: Record<string, string> = {}) {
  const r = await h.request("PUT", path, { headers: { ...headers, ...auth }, body });
  expect(r.status).toBe(201);
}

/** An SSE reader from `offset`, read until its first control event, so it has been sent up to the tail. */
async function sseReader(path: string, client: string, headers: Record<string, string> = {}) {
  const res = await h.request("GET", `${path}?offset=-1&live=sse`, { headers: { "x-test-client": client, ...headers }, signal: abort.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes("event: control")) text += new TextDecoder().decode((await reader.read()).value);
  return reader;
}

async function readers(path: string, query = "", headers: Record<string, string> = {}) {
  const res = await h.request("GET", `/__ursula/api/streams${path}/readers${query}`, { headers });
  return { status: res.status, body: (await res.json()) as ReaderPage & { error?: { code: string } } };
}

describe("the readers of a stream", () => {
  test("an SSE reader and a long-poll reader, each with its address, kind, offset and age; gone once they leave", async () => {
    h = harness();
    abort = new AbortController();
    await put("/rd-b/s", T, "hello");
    expect((await readers("/rd-b/s")).body).toMatchObject({ readers: [], total: 0, truncated: false, tail_offset: 5 });

    const sse = await sseReader("/rd-b/s", "10.1.1.1");
    const poll = h.request("GET", `/rd-b/s?offset=${at(5)}&live=long-poll&timeout_ms=5000`, { headers: { "x-test-client": "10.2.2.2" } });
    for (let i = 0; i < 100 && h.hub.readersOf((await h.store.get("rd-b/s"))!.id) < 2; i++) await Bun.sleep(5);

    const { status, body } = await readers("/rd-b/s");
    expect(status).toBe(200);
    expect([body.bucket_id, body.stream_id, body.next_offset, body.total, body.truncated]).toEqual(["rd-b", "s", at(5), 2, false]);
    const byKind = Object.fromEntries(body.readers.map((r) => [r.kind, r]));
    expect(byKind.sse).toMatchObject({ address: "10.1.1.1", offset: at(5), offset_bytes: 5, behind_bytes: 0, behind_messages: 0 });
    expect(byKind["long-poll"]).toMatchObject({ address: "10.2.2.2", offset: at(5), behind_bytes: 0, behind_messages: 0 });
    for (const r of body.readers) {
      expect(r.started_at_ms).toBeLessThanOrEqual(Date.now());
      expect(r.since_ms).toBeGreaterThanOrEqual(0);
    }

    // The append wakes both; the SSE reader is sent it and its offset moves on.
    expect((await h.request("POST", "/rd-b/s", { headers: T, body: " world" })).status).toBe(204);
    expect((await poll).status).toBe(200);
    await sse.read();
    const after = (await readers("/rd-b/s")).body;
    expect(after.readers.map((r) => [r.kind, r.offset_bytes, r.behind_bytes])).toEqual([["sse", 11, 0]]);

    abort.abort();
    await sse.cancel().catch(() => undefined);
    for (let i = 0; i < 100 && h.hub.active > 0; i++) await Bun.sleep(5);
    expect((await readers("/rd-b/s")).body.total).toBe(0);
  });

  test("behind in bytes and in messages, most behind first, bounded by limit", async () => {
    h = harness();
    // Messages at 0, 8 and 16; tail 24.
    await put("/rd-b/j", J, '[{"n":1},{"n":2},{"n":3}]');
    const state = (await h.store.get("rd-b/j"))!;
    const subs = [0, 8, 16, 24, 8].map((offset, i) => h.hub.subscribe(state.id, undefined, `10.0.0.${i}`, { bucket: "rd-b", offset, startedAtMs: 1_000 + i }));
    const page = await readerPage(h.store, h.hub, state, 3, 10_000);
    expect(page.readers.map((r) => [r.address, r.behind_bytes, r.behind_messages, r.since_ms])).toEqual([
      ["10.0.0.0", 24, 3, 9_000],
      ["10.0.0.1", 16, 2, 8_999],
      ["10.0.0.4", 16, 2, 8_996],
    ]);
    expect([page.total, page.truncated]).toEqual([5, true]);
    expect(page.readers.every((r) => !r.behind_messages_capped)).toBe(true);
    const res = await readers("/rd-b/j", "?limit=2");
    expect([res.body.readers.length, res.body.total, res.body.truncated]).toEqual([2, 5, true]);
    expect((await readers("/rd-b/j", "?limit=0")).status).toBe(400);
    for (const s of subs) s.close();
  });

  test("a missing stream is 404", async () => {
    h = harness();
    const res = await readers("/rd-b/none");
    expect([res.status, res.body.error?.code]).toEqual([404, "STREAM_NOT_FOUND"]);
  });
});

describe("who may see readers", () => {
  const ADMIN_TOKEN = "admin-all-0123456789";
  const OTHER = "read-other-0123456789";
  const AUTH: AuthConfig = {
    ...NO_AUTH,
    tokens: [
      { token: ADMIN_TOKEN, scopes: ALL_SCOPES, buckets: null },
      { token: OTHER, scopes: READ, buckets: new Set(["other-b"]) },
    ],
  };
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

  test("a token of another bucket gets the 404 of a missing stream, and never sees the bucket in the list by readers", async () => {
    h = harness({ security: { auth: AUTH } });
    abort = new AbortController();
    await put("/secret-b/s", T, "x", bearer(ADMIN_TOKEN));
    await put("/other-b/s", T, "y", bearer(ADMIN_TOKEN));
    await sseReader("/secret-b/s", "10.9.9.9", bearer(ADMIN_TOKEN));

    const seen = await readers("/secret-b/s", "", bearer(ADMIN_TOKEN));
    expect([seen.status, seen.body.total, seen.body.readers[0]?.address]).toEqual([200, 1, "10.9.9.9"]);
    const hidden = await readers("/secret-b/s", "", bearer(OTHER));
    expect([hidden.status, hidden.body.error?.code]).toEqual([404, "STREAM_NOT_FOUND"]);
    expect(JSON.stringify(hidden.body)).not.toContain("10.9.9.9");
    expect((await readers("/secret-b/s")).status).toBe(401);

    const list = (await (await h.request("GET", "/__ursula/api/buckets?sort=readers", { headers: bearer(OTHER) })).json()) as BucketPage;
    expect(list.buckets.map((b) => [b.bucket_id, b.live_readers])).toEqual([["other-b", 0]]);
  });
});

describe("live readers in the lists", () => {
  async function buckets(query: string) {
    const res = await h.request("GET", `/__ursula/api/buckets${query}`);
    return { status: res.status, body: (await res.json()) as BucketPage };
  }

  test("sort=readers: most readers first, then by ID, paged across both parts; every row counts its readers", async () => {
    h = harness();
    abort = new AbortController();
    for (const b of ["aa-b", "bb-b", "cc-b", "dd-b", "ee-b"]) await put(`/${b}/s`, T, "x");
    await put("/dd-b/t", T, "x");
    await sseReader("/dd-b/s", "10.0.0.1");
    await sseReader("/dd-b/t", "10.0.0.2");
    await sseReader("/bb-b/s", "10.0.0.3");

    const byName = await buckets("");
    expect(byName.body.sort).toBe("name");
    expect(byName.body.buckets.map((b) => [b.bucket_id, b.live_readers])).toEqual([["aa-b", 0], ["bb-b", 1], ["cc-b", 0], ["dd-b", 2], ["ee-b", 0]]);

    const order: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 5; i++) {
      const page: { status: number; body: BucketPage } = await buckets(`?sort=readers&limit=2${after === null ? "" : `&after=${encodeURIComponent(after)}`}`);
      expect([page.status, page.body.sort, page.body.total]).toEqual([200, "readers", 5]);
      order.push(...page.body.buckets.map((b) => `${b.bucket_id}:${b.live_readers}`));
      after = page.body.next_cursor;
      expect(page.body.has_more).toBe(after !== null);
      if (after === null) break;
    }
    expect(order).toEqual(["dd-b:2", "bb-b:1", "aa-b:0", "cc-b:0", "ee-b:0"]);
    expect((await buckets("?sort=readers&prefix=dd")).body.buckets.map((b) => b.bucket_id)).toEqual(["dd-b"]);
    expect((await buckets("?sort=busiest")).status).toBe(400);
    expect((await buckets("?sort=readers&after=zzz")).status).toBe(400);

    const streams = (await (await h.request("GET", "/__ursula/api/buckets/dd-b/streams")).json()) as StreamPage;
    expect(streams.streams.map((s) => [s.stream_id, s.live_readers])).toEqual([["s", 1], ["t", 1]]);
  });
});

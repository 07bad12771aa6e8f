// Buckets and expired streams (spec §2.2–§2.4, §7.1): an expired stream is not counted, not
// listed, and does not keep its bucket from being deleted.

import { afterEach, beforeEach, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

let h: Harness;
beforeEach(async () => {
  h = harness();
  for (const name of ["a", "b", "c", "d"]) {
    const ttl: Record<string, string> = name === "b" || name === "c" ? { "Stream-TTL": "10" } : {};
    expect((await h.request("PUT", `/test-b/${name}`, { headers: ttl })).status).toBe(201);
  }
  h.clock.now += 11_000;
});
afterEach(() => h.close());

test("GET /{bucket} counts only the live streams", async () => {
  expect(await (await h.request("GET", "/test-b")).json()).toMatchObject({ bucket_id: "test-b", streams: 2 });
});

test("the listing leaves expired streams out, and a page of `limit` is still full", async () => {
  const page = (await (await h.request("GET", "/test-b/streams?limit=1")).json()) as { streams: { stream_id: string }[]; has_more: boolean; next_cursor: string };
  expect(page.streams.map((s) => s.stream_id)).toEqual(["a"]);
  expect(page.has_more).toBe(true);
  const next = (await (await h.request("GET", `/test-b/streams?limit=1&after=${page.next_cursor}`)).json()) as { streams: { stream_id: string }[]; has_more: boolean; next_cursor: string | null };
  // b and c expired: the second page is d, and nothing follows.
  expect(next.streams.map((s) => s.stream_id)).toEqual(["d"]);
  expect(next.has_more).toBe(false);
  expect(next.next_cursor).toBeNull();
});

test("expired streams do not keep a bucket from being deleted", async () => {
  expect((await h.request("DELETE", "/test-b/a")).status).toBe(204);
  expect((await h.request("DELETE", "/test-b")).status).toBe(409);
  expect((await h.request("DELETE", "/test-b/d")).status).toBe(204);
  expect((await h.request("DELETE", "/test-b")).status).toBe(204);
  expect((await h.request("GET", "/test-b")).status).toBe(404);
});

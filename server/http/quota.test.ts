// --max-buckets and --max-streams-per-bucket: a create past a cap is 429 QUOTA_EXCEEDED and
// creates nothing, bucket included.

import { expect, test } from "bun:test";
import { harness } from "../testing/app-harness";

const put = (h: ReturnType<typeof harness>, path: string, headers: Record<string, string> = {}) =>
  h.request("PUT", path, { headers: { "content-type": "text/plain", ...headers }, body: "x" });
const code = async (r: Response) => ((await r.json()) as { error: { code: string } }).error.code;

test("past --max-buckets, neither a stream PUT nor a bucket PUT creates a bucket", async () => {
  const h = harness({ quotas: { maxBuckets: 2, maxStreamsPerBucket: Infinity } });
  expect((await put(h, "/aaaa/s")).status).toBe(201);
  expect((await h.request("PUT", "/bbbb")).status).toBe(201);
  const stream = await put(h, "/cccc/s");
  expect([stream.status, await code(stream), stream.headers.get("retry-after")]).toEqual([429, "QUOTA_EXCEEDED", null]);
  const bucket = await h.request("PUT", "/dddd");
  expect([bucket.status, await code(bucket)]).toEqual([429, "QUOTA_EXCEEDED"]);
  expect([await h.store.hasBucket("cccc"), await h.store.hasBucket("dddd"), await h.fingerprint("cccc/s")]).toEqual([false, false, null]);
  // Existing buckets take new streams; PUT of an existing bucket is still 200.
  expect((await put(h, "/bbbb/s")).status).toBe(201);
  expect((await h.request("PUT", "/aaaa")).status).toBe(200);
  await h.close();
});

test("past --max-streams-per-bucket a create is refused, concurrent ones included; an existing stream's PUT and a delete's freed place still work", async () => {
  const h = harness({ quotas: { maxBuckets: Infinity, maxStreamsPerBucket: 2 } });
  const racing = await Promise.all(["/b123/s1", "/b123/s2", "/b123/s3", "/b123/s4"].map((p) => put(h, p)));
  expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 429, 429]);
  expect((await h.store.listStreams("b123", { prefix: "", after: null, limit: 10 })).total).toBe(2);
  const [created] = (await h.store.listStreams("b123", { prefix: "", after: null, limit: 10 })).items;
  expect((await put(h, `/b123/${created!.name}`)).status).toBe(200);
  const fork = await put(h, "/b123/copy", { "stream-forked-from": `/b123/${created!.name}` });
  expect([fork.status, await code(fork)]).toEqual([429, "QUOTA_EXCEEDED"]);
  expect(await h.fingerprint("b123/copy")).toBeNull();
  // Another bucket has its own count.
  expect((await put(h, "/b456/s1")).status).toBe(201);
  expect((await h.request("DELETE", `/b123/${created!.name}`)).status).toBe(204);
  expect((await put(h, "/b123/s9")).status).toBe(201);
  await h.close();
});

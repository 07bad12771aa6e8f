// Stream requests skip the router (app.ts); these pin down that every path it must leave alone
// still reaches the route that owns it, and that a stream path answers as the route would.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { isBucketedStreamPath } from "./stream-routes";

const code = async (r: Response) => ((await r.json()) as { error: { code: string } }).error.code;

describe("isBucketedStreamPath", () => {
  test("takes exactly /{bucket}/{stream}, raw", () => {
    for (const p of ["/bench/s1", "/abcd/a%2Fb", "/x/y", "/abcd/%ZZ"]) expect(isBucketedStreamPath(p)).toBe(true);
  });
  test("leaves the console, the admin API, listings, v1 and other shapes to the router", () => {
    for (const p of ["/", "/abcd", "/abcd/", "//s", "/abcd/s/", "/abcd/s/t", "/ui/index.html", "/__ursula/health", "/abcd/streams", "/v1/stream", "/v1/stream/x"]) {
      expect(isBucketedStreamPath(p)).toBe(false);
    }
  });
});

describe("stream paths take the fast path, and the paths it declines reach their routes", () => {
  let h: Harness;
  beforeEach(() => (h = harness()));
  afterEach(() => h.close());

  test("a stream write and read, a malformed escape, a bad bucket", async () => {
    expect((await h.request("PUT", "/fast/s1", { headers: { "content-type": "text/plain" } })).status).toBe(201);
    expect((await h.request("POST", "/fast/s1", { headers: { "content-type": "text/plain" }, body: "hi" })).status).toBe(204);
    const read = await h.request("GET", "/fast/s1?offset=-1");
    expect(await read.text()).toBe("hi");
    expect(read.headers.get("x-content-type-options")).toBe("nosniff");
    const bad = await h.request("GET", "/fast/%ZZ");
    expect([bad.status, await code(bad)]).toEqual([400, "INVALID_STREAM_ID"]);
    const short = await h.request("GET", "/abc/s");
    expect([short.status, await code(short)]).toEqual([400, "INVALID_BUCKET_ID"]);
  });

  test("the v1 surface takes it too, with the answers its route gave", async () => {
    expect((await h.request("PUT", "/v1/stream/fast-v1", { headers: { "content-type": "text/plain" } })).status).toBe(201);
    expect((await h.request("POST", "/v1/stream/fast-v1", { headers: { "content-type": "text/plain" }, body: "hi" })).status).toBe(204);
    expect(await (await h.request("GET", "/v1/stream/fast-v1?offset=-1")).text()).toBe("hi");
    const answers: [string, number, string][] = [];
    for (const p of ["/v1/stream", "/v1/stream/", "/v1/stream/a/b", "/v1/stream/%ZZ", "/v1/stream/__ds/x", "/v1/streamx/y"]) {
      const r = await h.request("GET", p);
      answers.push([p, r.status, await code(r)]);
    }
    expect(answers).toEqual([
      ["/v1/stream", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/a/b", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/%ZZ", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/__ds/x", 404, "NOT_FOUND"],
      ["/v1/streamx/y", 404, "NOT_FOUND"],
    ]);
  });

  test("paths the fast path declines still reach their own routes", async () => {
    await h.request("PUT", "/fast/s1", { headers: { "content-type": "text/plain" } });
    const listing = await h.request("GET", "/fast/streams");
    expect(listing.status).toBe(200);
    expect(JSON.stringify(await listing.json())).toContain("s1");
    const reserved = await h.request("POST", "/fast/streams", { headers: { "content-type": "text/plain" }, body: "x" });
    expect(await code(reserved)).toBe("INVALID_STREAM_ID");
    expect((await h.request("GET", "/__ursula/health")).status).toBe(200);
    const v1 = await h.request("PUT", "/v1/stream/fast-v1", { headers: { "content-type": "text/plain" } });
    expect([v1.status, v1.headers.get("location")]).toEqual([201, "http://ursa.test/v1/stream/fast-v1"]);
    const preflight = await h.request("OPTIONS", "/fast/s1", { headers: { origin: "http://elsewhere.test", "access-control-request-method": "GET" } });
    expect([preflight.status, preflight.headers.get("access-control-max-age")]).toEqual([204, "600"]);
  });
});

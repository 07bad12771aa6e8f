// The one route table (router.ts): rows are tried most specific first, whatever order they were
// added in, a method a row does not answer falls through (or is a resource's 405), HEAD is derived
// from GET, the route names the metrics family, and every path of the app reaches the route that
// owns it.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { ROUTE_FAMILIES } from "../ops/server-metrics";
import { dispatcher, Routes } from "./router";

const code = async (r: Response) => ((await r.json()) as { error: { code: string } }).error.code;

describe("dispatcher", () => {
  const named = (name: string) => () => new Response(name);
  const unmatched = () => new Response("none", { status: 404 });
  const answer = async (d: ReturnType<typeof dispatcher>, method: string, raw: string) =>
    (await d.serve(new Request(`http://x${raw}`, { method }), d.match(method, raw))).text();

  test("the most specific row wins, in any order of adding", async () => {
    const rows: [string, string][] = [
      ["/:a/:b", "param-param"],
      ["/:a/fixed", "param-literal"],
      ["/lit/*", "literal-rest"],
      ["/lit/:b", "literal-param"],
      ["/", "root"],
      ["/:a", "param"],
    ];
    for (const order of [rows, [...rows].reverse()]) {
      const t = new Routes("other");
      for (const [pattern, name] of order) t.all(pattern, named(name));
      const d = dispatcher(t, unmatched);
      const seen = [];
      for (const raw of ["/", "/x", "/x/y", "/x/fixed", "/lit/y", "/lit/y/z", "/lit/", "/x/", "//y", "/x/y/z"]) seen.push([raw, await answer(d, "GET", raw)]);
      expect(seen).toEqual([
        ["/", "root"],
        ["/x", "param"],
        ["/x/y", "param-param"],
        ["/x/fixed", "param-literal"],
        ["/lit/y", "literal-param"],
        ["/lit/y/z", "literal-rest"],
        ["/lit/", "literal-rest"],
        // A parameter is never empty.
        ["/x/", "none"],
        ["//y", "none"],
        ["/x/y/z", "none"],
      ]);
    }
  });

  test("a method a row does not answer goes on to the next row; GET rows answer HEAD", async () => {
    const t = new Routes("other").get("/:a/streams", named("listing")).all("/:a/:b", named("stream"));
    const d = dispatcher(t, unmatched);
    expect(await answer(d, "GET", "/x/streams")).toBe("listing");
    expect(await answer(d, "HEAD", "/x/streams")).toBe("listing");
    expect(await answer(d, "POST", "/x/streams")).toBe("stream");
    const only = dispatcher(new Routes("other").get("/a", named("a")), unmatched);
    expect(await answer(only, "DELETE", "/a")).toBe("none");
  });

  test("a prefix applies to every row a table takes; * is what follows the fixed segments, still encoded", async () => {
    const t = new Routes("other", "/pre").all("/*", (c) => new Response(c.rest)).get("/p/:x", (c) => new Response(c.req.param("x")));
    const d = dispatcher(new Routes("other").routes(t), unmatched);
    expect(await answer(d, "GET", "/pre/a%2Fb/c")).toBe("a%2Fb/c");
    expect(await answer(d, "GET", "/pre/p/caf%C3%A9")).toBe("café");
    expect(await answer(d, "GET", "/pre/p/%ZZ")).toBe("%ZZ");
    expect(await answer(d, "GET", "/other")).toBe("none");
  });

  test("HEAD is derived once: a row's own HEAD handler, else its GET handler, told it answers a HEAD", async () => {
    const t = new Routes("other").get("/g", (c) => new Response(`get head=${c.head}`)).on(["GET", "HEAD"], "/own", (c) => new Response(c.method));
    const d = dispatcher(t, unmatched);
    expect(await answer(d, "HEAD", "/g")).toBe("get head=true");
    expect(await answer(d, "GET", "/g")).toBe("get head=false");
    expect(await answer(d, "HEAD", "/own")).toBe("HEAD");
  });

  test("a resource answers a method it lacks with 405 and its Allow list, after the refusal of its path", async () => {
    const t = new Routes("bucket").resource("/:id", {
      family: "bucket",
      on: "a thing",
      target: (c) => (c.req.param("id") === "bad" ? new Response("bad id", { status: 400 }) : c.req.param("id")),
      methods: { GET: (_c, id) => new Response(`got ${id}`), PUT: (_c, id) => new Response(`put ${id}`) },
    });
    const d = dispatcher(t, unmatched);
    expect(await answer(d, "GET", "/x")).toBe("got x");
    expect(await answer(d, "HEAD", "/x")).toBe("got x");
    const refused = await d.serve(new Request("http://x/x", { method: "POST" }), d.match("POST", "/x"));
    expect([refused.status, refused.headers.get("allow")]).toEqual([405, "GET, HEAD, PUT, OPTIONS"]);
    expect(await refused.text()).toContain("POST is not allowed on a thing");
    expect(await answer(d, "POST", "/bad")).toBe("bad id");
  });

  test("the family of a request is its route's; OPTIONS is a preflight; a path no row takes is other", () => {
    const t = new Routes("other").routes(new Routes("listing").get("/:a/streams", named("l"))).routes(new Routes("stream").all("/:a/:b", named("s")));
    const d = dispatcher(t, unmatched);
    const family = (method: string, raw: string) => ROUTE_FAMILIES[d.match(method, raw).family];
    expect([family("GET", "/x/streams"), family("POST", "/x/streams"), family("OPTIONS", "/x/streams"), family("GET", "/x/y/z")]).toEqual(["listing", "stream", "preflight", "other"]);
  });

  test("two rows that take the same requests are refused when the table is built", () => {
    expect(() => dispatcher(new Routes("other").all("/:a/:b", named("1")).get("/:x/:y", named("2")), unmatched)).toThrow(/take the same requests/);
    expect(() => dispatcher(new Routes("other").get("/:a", named("1")).on(["PUT"], "/:b", named("2")), unmatched)).not.toThrow();
    expect(() => new Routes("other").all("/a/*/b", named("1"))).toThrow();
  });
});

describe("every path reaches the route that owns it", () => {
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

  test("the v1 surface, and the paths next to it", async () => {
    expect((await h.request("PUT", "/v1/stream/fast-v1", { headers: { "content-type": "text/plain" } })).status).toBe(201);
    expect((await h.request("POST", "/v1/stream/fast-v1", { headers: { "content-type": "text/plain" }, body: "hi" })).status).toBe(204);
    expect(await (await h.request("GET", "/v1/stream/fast-v1?offset=-1")).text()).toBe("hi");
    const answers: [string, number, string][] = [];
    for (const p of ["/v1/stream", "/v1/stream/", "/v1/stream/a/b", "/v1/stream/%ZZ", "/v1/stream/__ds/x", "/v1/streamx/y"]) {
      const r = await h.request("GET", p);
      answers.push([p, r.status, await code(r)]);
    }
    // A sub-resource's path under a first segment that can never be a bucket is refused as the
    // stream's own path is (they were 404 while stream requests skipped the router).
    for (const p of ["/v1/x/attrs", "/__x/y/bootstrap"]) {
      const r = await h.request("POST", p);
      answers.push([p, r.status, await code(r)]);
    }
    expect(answers).toEqual([
      ["/v1/stream", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/a/b", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/%ZZ", 400, "INVALID_STREAM_ID"],
      ["/v1/stream/__ds/x", 404, "NOT_FOUND"],
      ["/v1/streamx/y", 404, "NOT_FOUND"],
      ["/v1/x/attrs", 400, "INVALID_BUCKET_ID"],
      ["/__x/y/bootstrap", 400, "INVALID_BUCKET_ID"],
    ]);
  });

  test("listings, the admin API, v1 and preflights", async () => {
    await h.request("PUT", "/fast/s1", { headers: { "content-type": "text/plain" } });
    const listing = await h.request("GET", "/fast/streams");
    expect(listing.status).toBe(200);
    expect(JSON.stringify(await listing.json())).toContain("s1");
    // A bucket answers HEAD as its GET, as its Allow list says (it was 405 while HEAD reached the method switch).
    const head = await h.request("HEAD", "/fast");
    expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([200, "application/json", ""]);
    const reserved = await h.request("POST", "/fast/streams", { headers: { "content-type": "text/plain" }, body: "x" });
    expect(await code(reserved)).toBe("INVALID_STREAM_ID");
    expect((await h.request("GET", "/__ursula/health")).status).toBe(200);
    const v1 = await h.request("PUT", "/v1/stream/fast-v1", { headers: { "content-type": "text/plain" } });
    expect([v1.status, v1.headers.get("location")]).toEqual([201, "http://ursa.test/v1/stream/fast-v1"]);
    const preflight = await h.request("OPTIONS", "/fast/s1", { headers: { origin: "http://elsewhere.test", "access-control-request-method": "GET" } });
    expect([preflight.status, preflight.headers.get("access-control-max-age")]).toEqual([204, "600"]);
  });
});

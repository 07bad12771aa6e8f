// What a browser page on another origin, or on a rebound name, can do, judged from the headers a
// browser sends (in-process; e2e/browser-safety.spec.ts runs the same attacks in Chromium).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NO_AUTH } from "../../auth/authenticator";
import { ALL_SCOPES } from "../../auth/scopes";
import { harness, type Harness } from "../../testing/app-harness";

const CROSS_SITE = { "sec-fetch-site": "cross-site", origin: "https://evil.example" };
const SAME_SITE = { "sec-fetch-site": "same-site", origin: "http://ursa.test:3000" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin", origin: "http://ursa.test" };
const TOKEN = "browser-token-0123456789";

const code = async (r: Response) => ((await r.json()) as { error: { code: string } }).error.code;

describe("DNS rebinding: a Host the server does not answer to", () => {
  let h: Harness;
  beforeAll(async () => {
    h = harness();
    await h.request("PUT", "/demo/s1", { headers: { "content-type": "text/plain" }, body: "hello" });
  });
  afterAll(() => h.close());

  test("is refused on every route family with 421, echoing nothing of the host", async () => {
    const host = "rebind.attacker.example:4437";
    const requests: [string, string][] = [
      ["GET", "/demo/s1?offset=-1"],
      ["POST", "/demo/s1"],
      ["PUT", "/demo/s2"],
      ["DELETE", "/demo/s1"],
      ["GET", "/v1/stream/x?offset=-1"],
      ["PUT", "/newbucket"],
      ["GET", "/demo"],
      ["GET", "/demo/streams"],
      ["GET", "/"],
      ["GET", "/ui/"],
      ["GET", "/__ursula/api/info"],
      ["GET", "/__ursula/api/buckets"],
      ["GET", "/__ursula/health"],
      ["OPTIONS", "/demo/s1"],
    ];
    for (const [method, path] of requests) {
      const r = await h.request(method, path, { host, headers: { "content-type": "text/plain", origin: `http://${host}`, "access-control-request-method": "DELETE" }, body: method === "POST" ? "x" : undefined });
      const text = await r.text();
      expect([method, path, r.status, JSON.parse(text).error.code]).toEqual([method, path, 421, "HOST_NOT_ALLOWED"]);
      expect(text).not.toContain("attacker");
      expect(r.headers.get("location")).toBeNull();
    }
    expect(await (await h.request("GET", "/demo/s1?offset=-1")).text()).toBe("hello");
    expect(await h.fingerprint("demo/s2")).toBeNull();
  });

  test("IP literals and localhost names are answered", async () => {
    for (const host of ["127.0.0.1:4437", "[::1]:4437", "localhost:4437", "console.localhost"]) {
      expect([host, (await h.request("GET", "/demo/s1?offset=-1", { host })).status]).toEqual([host, 200]);
    }
  });
});

describe("cross-origin writes", () => {
  let h: Harness;
  beforeAll(async () => {
    h = harness();
    await h.request("PUT", "/demo/s1", { headers: { "content-type": "text/plain" }, body: "hello" });
  });
  afterAll(() => h.close());

  test("are refused whatever their content type, including the simple ones that skip a preflight", async () => {
    const before = await h.fingerprint("demo/s1");
    for (const from of [CROSS_SITE, SAME_SITE, { origin: "https://evil.example" }]) {
      for (const type of ["text/plain", "application/json", "application/x-www-form-urlencoded", undefined]) {
        const headers: Record<string, string> = { ...from, ...(type ? { "content-type": type } : {}) };
        const post = await h.request("POST", "/demo/s1", { headers, body: "x" });
        expect([post.status, await code(post)]).toEqual([403, "CROSS_ORIGIN_FORBIDDEN"]);
      }
      expect((await h.request("PUT", "/demo/new", { headers: from })).status).toBe(403);
      expect((await h.request("DELETE", "/demo/s1", { headers: from })).status).toBe(403);
      expect((await h.request("PUT", "/evilbucket", { headers: from })).status).toBe(403);
    }
    expect(await h.fingerprint("demo/s1")).toBe(before);
    expect(await h.fingerprint("demo/new")).toBeNull();
    expect(await h.store.hasBucket("evilbucket")).toBe(false);
  });

  test("from the same origin, and from clients that are not browsers, go through", async () => {
    expect((await h.request("POST", "/demo/s1", { headers: { ...SAME_ORIGIN, "content-type": "text/plain" }, body: "1" })).status).toBe(204);
    expect((await h.request("POST", "/demo/s1", { headers: { origin: "http://ursa.test", "content-type": "text/plain" }, body: "2" })).status).toBe(204);
    expect((await h.request("POST", "/demo/s1", { headers: { "content-type": "text/plain" }, body: "3" })).status).toBe(204);
    expect(await (await h.request("GET", "/demo/s1?offset=-1")).text()).toBe("hello123");
  });

  test("a bearer header means nothing when authentication is off", async () => {
    const r = await h.request("POST", "/demo/s1", { headers: { ...CROSS_SITE, authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" }, body: "x" });
    expect(r.status).toBe(403);
  });

  test("cross-origin reads of stream data stay open; the introspection API is refused", async () => {
    const read = await h.request("GET", "/demo/s1?offset=-1", { headers: CROSS_SITE });
    expect([read.status, read.headers.get("access-control-allow-origin")]).toEqual([200, "*"]);
    const api = await h.request("GET", "/__ursula/api/buckets", { headers: CROSS_SITE });
    expect([api.status, api.headers.get("access-control-allow-origin")]).toEqual([403, null]);
    const whoami = await h.request("GET", "/__ursula/api/whoami", { headers: SAME_SITE });
    expect(whoami.status).toBe(403);
    const own = await h.request("GET", "/__ursula/api/buckets", { headers: SAME_ORIGIN });
    expect([own.status, own.headers.get("access-control-allow-origin")]).toEqual([200, null]);
  });
});

describe("with authentication on", () => {
  test("a cross-origin write carrying a valid token is judged by the token; without one, or with a wrong one, it is refused", async () => {
    const h = harness({ security: { auth: { ...NO_AUTH, tokens: [{ token: TOKEN, scopes: ALL_SCOPES, buckets: null }] } } });
    const as = (extra: Record<string, string>) => ({ headers: { ...CROSS_SITE, "content-type": "text/plain", ...extra }, body: "x" });
    expect((await h.request("PUT", "/demo/s1", as({ authorization: `Bearer ${TOKEN}` }))).status).toBe(201);
    expect((await h.request("POST", "/demo/s1", as({}))).status).toBe(403);
    expect((await h.request("POST", "/demo/s1", as({ authorization: "Bearer wrong-token-0123456789" }))).status).toBe(401);
    expect(await (await h.request("GET", "/demo/s1?offset=-1", { headers: { authorization: `Bearer ${TOKEN}` } })).text()).toBe("x");
    await h.close();
  });
});

describe("--cors-origins", () => {
  test("a listed origin may read and write and is named in the answer; others get no grant and cannot write", async () => {
    const h = harness({ security: { cors: { any: false, origins: new Set(["http://app.test:5173"]) } } });
    const app = { "sec-fetch-site": "cross-site", origin: "http://app.test:5173" };
    const put = await h.request("PUT", "/demo/s1", { headers: { ...app, "content-type": "text/plain" }, body: "a" });
    expect([put.status, put.headers.get("access-control-allow-origin"), put.headers.get("vary")]).toEqual([201, "http://app.test:5173", "Origin"]);
    const api = await h.request("GET", "/__ursula/api/buckets", { headers: app });
    expect([api.status, api.headers.get("access-control-allow-origin")]).toEqual([200, "http://app.test:5173"]);
    const other = await h.request("GET", "/demo/s1?offset=-1", { headers: CROSS_SITE });
    expect([other.status, other.headers.get("access-control-allow-origin")]).toEqual([200, null]);
    expect((await h.request("POST", "/demo/s1", { headers: { ...CROSS_SITE, "content-type": "text/plain" }, body: "b" })).status).toBe(403);
    await h.close();
  });
});

describe("preflights", () => {
  test("list only reads for an origin that may not write; credentials are never allowed", async () => {
    const h = harness();
    const r = await h.request("OPTIONS", "/demo/s1", {
      headers: { origin: "https://evil.example", "access-control-request-method": "DELETE", "access-control-request-headers": "content-type, stream-seq, x-evil, if-none-match" },
    });
    expect([r.status, r.headers.get("access-control-allow-methods"), r.headers.get("access-control-allow-headers"), r.headers.get("access-control-allow-credentials")]).toEqual([
      204,
      "GET, HEAD",
      "if-none-match",
      null,
    ]);
    await h.close();
  });
});

describe("stream bytes cannot script the console's origin", () => {
  test("every stream read, and every API answer, carries Content-Security-Policy: sandbox", async () => {
    const h = harness();
    await h.request("PUT", "/demo/page", { headers: { "content-type": "text/html" }, body: "<script>alert(1)</script>" });
    for (const path of ["/demo/page?offset=-1", "/demo/page?offset=-1&live=long-poll", "/v1/stream/none?offset=-1", "/demo/streams", "/__ursula/api/info"]) {
      const r = await h.request("GET", path);
      expect([path, r.headers.get("content-security-policy")]).toEqual([path, "sandbox"]);
    }
    const sse = await h.request("GET", "/demo/page?offset=-1&live=sse");
    expect(sse.headers.get("content-security-policy")).toBe("sandbox");
    await sse.body?.cancel();
    expect((await h.request("HEAD", "/demo/page")).headers.get("content-security-policy")).toBe("sandbox");
    await h.close();
  });
});

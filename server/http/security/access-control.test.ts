// Scopes, bucket limits and concealment over HTTP, in-process (docs/security.md).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NO_AUTH, type AuthConfig } from "../../auth/authenticator";
import { ADMIN, ALL_SCOPES, READ, WRITE } from "../../auth/scopes";
import { AUDIENCE, ISSUER, testIssuer } from "../../auth/testing-jwt";
import { harness, type Harness } from "../../testing/app-harness";

const ADMIN_ALL = "admin-all-0123456789";
const READ_ALL = "read-all-0123456789ab";
const READ_DEMO = "read-demo-0123456789a";
const WRITE_DEMO = "write-demo-0123456789";
const WRITE_ONLY = "write-only-0123456789";

const TOKENS: AuthConfig = {
  ...NO_AUTH,
  tokens: [
    { token: ADMIN_ALL, scopes: ALL_SCOPES, buckets: null },
    { token: READ_ALL, scopes: READ, buckets: null },
    { token: READ_DEMO, scopes: READ, buckets: new Set(["demo"]) },
    { token: WRITE_DEMO, scopes: READ | WRITE, buckets: new Set(["demo"]) },
    { token: WRITE_ONLY, scopes: WRITE, buckets: new Set(["demo"]) },
  ],
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function answer(h: Harness, method: string, path: string, token: string | null, init: { headers?: Record<string, string>; body?: string } = {}) {
  const r = await h.request(method, path, { ...init, headers: { ...(token ? bearer(token) : {}), ...init.headers } });
  const text = method === "HEAD" ? "" : await r.text();
  let code = "";
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? "";
  } catch {}
  return { status: r.status, code, text, challenge: r.headers.get("www-authenticate") };
}

async function seed(h: Harness) {
  for (const path of ["/demo/s1", "/private/p1"]) {
    const r = await h.request("PUT", path, { headers: { ...bearer(ADMIN_ALL), "content-type": "text/plain" }, body: "hello" });
    expect(r.status).toBe(201);
  }
}

describe("bearer tokens with scopes and buckets", () => {
  let h: Harness;
  beforeAll(async () => {
    h = harness({ security: { auth: TOKENS } });
    await seed(h);
  });
  afterAll(() => h.close());

  test("no token, or a wrong one, is 401 with a Bearer challenge (RFC 6750 §3)", async () => {
    const none = await answer(h, "GET", "/demo/s1?offset=-1", null);
    expect([none.status, none.code, none.challenge]).toEqual([401, "UNAUTHORIZED", 'Bearer realm="ursa"']);
    const wrong = await answer(h, "GET", "/demo/s1?offset=-1", "not-a-token-at-all-xyz");
    expect([wrong.status, wrong.code]).toEqual([401, "UNAUTHORIZED"]);
    expect(wrong.challenge).toBe('Bearer realm="ursa", error="invalid_token", error_description="the token is not valid"');
    expect(wrong.text).not.toContain("not-a-token-at-all-xyz");
  });

  test("each scope allows its actions and is refused the others with 403", async () => {
    const rows: (string | number)[][] = [
      [READ_DEMO, "GET", "/demo/s1?offset=-1", 200],
      [READ_DEMO, "HEAD", "/demo/s1", 200],
      [READ_DEMO, "GET", "/demo/streams", 200],
      [READ_DEMO, "GET", "/demo", 200],
      [READ_DEMO, "POST", "/demo/s1", 403, "INSUFFICIENT_SCOPE"],
      [READ_DEMO, "PUT", "/demo/new", 403, "INSUFFICIENT_SCOPE"],
      [WRITE_ONLY, "GET", "/demo/s1?offset=-1", 403, "INSUFFICIENT_SCOPE"],
      [WRITE_DEMO, "POST", "/demo/s1", 204],
      [WRITE_DEMO, "PUT", "/demo/s2", 201],
      [WRITE_DEMO, "DELETE", "/demo/s2", 403, "INSUFFICIENT_SCOPE"],
      [WRITE_DEMO, "PUT", "/demo", 403, "INSUFFICIENT_SCOPE"],
      [WRITE_DEMO, "PUT", "/demo/s1/retention/0000000000000000_0000000000000001", 403, "INSUFFICIENT_SCOPE"],
      [READ_ALL, "DELETE", "/demo/s2", 403, "INSUFFICIENT_SCOPE"],
      [ADMIN_ALL, "DELETE", "/demo/s2", 204],
      [ADMIN_ALL, "PUT", "/extra", 201],
      [ADMIN_ALL, "DELETE", "/extra", 204],
    ];
    const got: (string | number)[][] = [];
    for (const [token, method, path] of rows as [string, string, string][]) {
      const r = await answer(h, method, path, token, { headers: { "content-type": "text/plain" }, body: method === "POST" ? "x" : undefined });
      got.push([token, method, path, r.status, ...(r.code ? [r.code] : [])]);
    }
    expect(got).toEqual(rows);
    const refused = await answer(h, "POST", "/demo/s1", READ_DEMO, { headers: { "content-type": "text/plain" }, body: "x" });
    expect(refused.challenge).toBe('Bearer realm="ursa", error="insufficient_scope", scope="write"');
    expect(await (await h.request("GET", "/demo/s1?offset=-1", { headers: bearer(READ_DEMO) })).text()).toBe("hellox");
  });

  test("a bucket outside the token's list answers exactly as a missing one: 404", async () => {
    const missing = await answer(h, "GET", "/demo/nothing-here?offset=-1", READ_DEMO);
    const hidden = await answer(h, "GET", "/private/p1?offset=-1", READ_DEMO);
    expect([hidden.status, hidden.text]).toEqual([missing.status, missing.text]);
    expect(missing.status).toBe(404);
    const missingBucket = await answer(h, "GET", "/nobucket", ADMIN_ALL);
    for (const path of ["/private", "/private/streams", "/__ursula/api/buckets/private/streams"]) {
      const r = await answer(h, "GET", path, READ_DEMO);
      expect([path, r.status, r.text]).toEqual([path, 404, missingBucket.text]);
    }
    const detail = await answer(h, "GET", "/__ursula/api/streams/private/p1", READ_DEMO);
    expect([detail.status, detail.code]).toEqual([404, "STREAM_NOT_FOUND"]);
    // Not even the write scope reveals it, and nothing is created.
    const put = await answer(h, "PUT", "/private/new", WRITE_DEMO, { headers: { "content-type": "text/plain" } });
    expect([put.status, put.code]).toEqual([404, "STREAM_NOT_FOUND"]);
    expect(await h.fingerprint("private/new")).toBeNull();
    expect(await h.fingerprint("private/p1")).not.toBeNull();
  });

  test("a fork may not copy a stream from a bucket the token cannot read", async () => {
    const hidden = await answer(h, "PUT", "/demo/copy", WRITE_DEMO, { headers: { "stream-forked-from": "/private/p1" } });
    const missing = await answer(h, "PUT", "/demo/copy", ADMIN_ALL, { headers: { "stream-forked-from": "/private/none" } });
    expect([hidden.status, hidden.code]).toEqual([404, "STREAM_NOT_FOUND"]);
    expect(hidden.text).toBe(missing.text.replace("private/none", "private/p1"));
    expect(await h.fingerprint("demo/copy")).toBeNull();
    expect((await answer(h, "PUT", "/demo/copy", WRITE_DEMO, { headers: { "stream-forked-from": "/demo/s1" } })).status).toBe(201);
  });

  test("the console's listing shows only the token's buckets; the data path only to an admin of the whole server", async () => {
    const listing = await (await h.request("GET", "/__ursula/api/buckets", { headers: bearer(READ_DEMO) })).json();
    expect(listing).toMatchObject({ buckets: [{ bucket_id: "demo" }], total: 1, has_more: false });
    const all = await (await h.request("GET", "/__ursula/api/buckets", { headers: bearer(READ_ALL) })).json();
    expect((all as { buckets: { bucket_id: string }[] }).buckets.map((b) => b.bucket_id)).toEqual(["demo", "private"]);
    const info = async (token: string) => ((await (await h.request("GET", "/__ursula/api/info", { headers: bearer(token) })).json()) as { data_path: string | null }).data_path;
    expect([await info(READ_DEMO), await info(READ_ALL), await info(ADMIN_ALL)]).toEqual([null, null, ":memory:"]);
  });

  test("server-wide routes need the scope on every bucket", async () => {
    expect((await answer(h, "GET", "/__ursula/no-such-route", READ_DEMO)).code).toBe("INSUFFICIENT_SCOPE");
    expect((await answer(h, "GET", "/__ursula/no-such-route", READ_ALL)).code).toBe("NOT_FOUND");
    expect((await answer(h, "DELETE", "/__ursula/no-such-route", READ_ALL)).code).toBe("INSUFFICIENT_SCOPE");
    expect((await answer(h, "GET", "/__ursula/health", null)).status).toBe(200);
  });

  test("access_token works on GET and HEAD, not on writes, and never alongside the header", async () => {
    expect((await answer(h, "GET", `/demo/s1?offset=-1&access_token=${READ_DEMO}`, null)).status).toBe(200);
    expect((await answer(h, "HEAD", `/demo/s1?access_token=${READ_DEMO}`, null)).status).toBe(200);
    expect((await answer(h, "POST", `/demo/s1?access_token=${WRITE_DEMO}`, null, { headers: { "content-type": "text/plain" }, body: "y" })).status).toBe(401);
    const both = await answer(h, "GET", `/demo/s1?offset=-1&access_token=${READ_DEMO}`, READ_DEMO);
    expect([both.status, both.challenge]).toEqual([400, 'Bearer realm="ursa", error="invalid_request", error_description="send one bearer token, in the header or in access_token, not both"']);
  });

  test("whoami says how the server authenticates and what this request may do", async () => {
    const me = async (token: string | null) => (await h.request("GET", "/__ursula/api/whoami", { headers: token ? bearer(token) : {} })).json();
    expect(await me(null)).toEqual({ auth: "token", authenticated: false, scopes: [], buckets: null, public_read: false });
    expect(await me(WRITE_DEMO)).toEqual({ auth: "token", authenticated: true, scopes: ["read", "write"], buckets: ["demo"], public_read: false });
    expect(await me(ADMIN_ALL)).toEqual({ auth: "token", authenticated: true, scopes: ["read", "write", "admin"], buckets: null, public_read: false });
    expect((await answer(h, "GET", "/__ursula/api/whoami", "wrong-token-0123456789")).status).toBe(401);
  });

  test("the console's files need no token", async () => {
    // The harness has no built console; what matters is that the gate let the requests through.
    expect((await h.request("GET", "/ui/assets/none.js")).status).toBe(404);
    expect((await h.request("GET", "/")).status).toBe(302);
  });
});

describe("--public-read", () => {
  let h: Harness;
  beforeAll(async () => {
    h = harness({ security: { auth: { ...TOKENS, publicRead: true } } });
    await seed(h);
  });
  afterAll(() => h.close());

  test("anyone may read every bucket; writes and server-wide routes still need a token", async () => {
    expect((await answer(h, "GET", "/private/p1?offset=-1", null)).status).toBe(200);
    expect((await answer(h, "GET", "/private/p1?offset=-1", READ_DEMO)).status).toBe(200);
    expect((await answer(h, "POST", "/private/p1", null, { headers: { "content-type": "text/plain" }, body: "x" })).status).toBe(401);
    expect((await answer(h, "GET", "/__ursula/no-such-route", null)).status).toBe(401);
    const listing = (await (await h.request("GET", "/__ursula/api/buckets")).json()) as { total: number };
    expect(listing.total).toBe(2);
    expect(await (await h.request("GET", "/__ursula/api/whoami")).json()).toEqual({ auth: "token", authenticated: false, scopes: ["read"], buckets: null, public_read: true });
  });
});

describe("no authentication configured (the default)", () => {
  test("every request may do everything, and whoami says so", async () => {
    const h = harness();
    expect(await (await h.request("GET", "/__ursula/api/whoami")).json()).toEqual({ auth: "none", authenticated: false, scopes: ["read", "write", "admin"], buckets: null, public_read: true });
    expect(((await (await h.request("GET", "/__ursula/api/info")).json()) as { data_path: string }).data_path).toBe(":memory:");
    expect((await h.request("DELETE", "/demo/none")).status).toBe(404);
    await h.close();
  });
});

describe("JWT access tokens over HTTP", () => {
  test("scopes and buckets come from the claims; a bad token is 401 with the reason", async () => {
    const issuer = await testIssuer();
    const h = harness({ security: { auth: { ...NO_AUTH, jwt: { keys: { kind: "file", jwks: { keys: [issuer.jwk] } }, issuer: ISSUER, audience: AUDIENCE } } } });
    await h.request("PUT", "/demo/s1", { headers: { ...bearer(await issuer.sign({ scope: "write" })), "content-type": "text/plain" }, body: "hi" });
    const reader = await issuer.sign({ scope: "read", buckets: ["demo"] });
    expect((await answer(h, "GET", "/demo/s1?offset=-1", reader)).status).toBe(200);
    expect((await answer(h, "POST", "/demo/s1", reader, { headers: { "content-type": "text/plain" }, body: "x" })).code).toBe("INSUFFICIENT_SCOPE");
    expect((await answer(h, "GET", "/other/s1?offset=-1", reader)).status).toBe(404);
    const expired = await answer(h, "GET", "/demo/s1?offset=-1", await issuer.sign({ scope: "read" }, { expiresInS: -3600 }));
    expect([expired.status, expired.challenge]).toEqual([401, 'Bearer realm="ursa", error="invalid_token", error_description="the token has expired"']);
    expect(await (await h.request("GET", "/__ursula/api/whoami", { headers: bearer(reader) })).json()).toEqual({ auth: "jwt", authenticated: true, scopes: ["read"], buckets: ["demo"], public_read: false });
    await h.close();
  });
});

describe("a live read ends when its token stops being accepted", () => {
  // A token signed 58 s past its exp is still inside the minute of clock tolerance: accepted
  // for about 2 s more. Both live reads would otherwise last 60 s.
  test("SSE ends with a resumable control and long-poll answers, then the token is refused", async () => {
    const issuer = await testIssuer();
    const h = harness({ longPollTimeoutMs: 60_000, sseMaxDurationMs: 60_000, security: { auth: { ...NO_AUTH, jwt: { keys: { kind: "file", jwks: { keys: [issuer.jwk] } }, issuer: ISSUER, audience: AUDIENCE } } } });
    try {
      await h.request("PUT", "/demo/s1", { headers: { ...bearer(await issuer.sign({ scope: "write" })), "content-type": "text/plain" }, body: "hi" });
      const expiring = await issuer.sign({ scope: "read" }, { expiresInS: -58 });
      const began = Date.now();
      const [sse, poll] = await Promise.all([answer(h, "GET", "/demo/s1?offset=-1&live=sse", expiring), answer(h, "GET", "/demo/s1?offset=now&live=long-poll", expiring)]);
      const tookMs = Date.now() - began;
      expect(sse.status).toBe(200);
      expect(sse.text).toContain("data:hi");
      // The last control carries where to resume, and does not say the stream is closed.
      const controls = sse.text.split("event: control\ndata:").slice(1).map((c) => JSON.parse(c.split("\n")[0]!) as Record<string, unknown>);
      expect(controls.at(-1)).toMatchObject({ streamNextOffset: expect.any(String) });
      expect(controls.at(-1)).not.toHaveProperty("streamClosed");
      expect(poll.status).toBe(204);
      expect(tookMs).toBeLessThan(20_000);
      while (Date.now() - began < 3_000) await Bun.sleep(100);
      const again = await answer(h, "GET", "/demo/s1?offset=-1&live=sse", expiring);
      expect([again.status, again.challenge]).toEqual([401, 'Bearer realm="ursa", error="invalid_token", error_description="the token has expired"']);
    } finally {
      await h.close();
    }
  }, 30_000);

  test("a token that does not expire keeps the configured duration", async () => {
    const h = harness({ longPollTimeoutMs: 1_500, security: { auth: TOKENS } });
    try {
      await seed(h);
      const began = Date.now();
      const poll = await answer(h, "GET", "/demo/s1?offset=now&live=long-poll", READ_ALL);
      expect(poll.status).toBe(204);
      expect(Date.now() - began).toBeGreaterThanOrEqual(1_400);
    } finally {
      await h.close();
    }
  });
});

// Keep the bit values honest: the rows above spell scopes by name.
test("scope bits", () => expect([READ, WRITE, ADMIN, ALL_SCOPES]).toEqual([1, 2, 4, 7]));

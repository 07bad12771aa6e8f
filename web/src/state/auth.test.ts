import { describe, expect, test } from "bun:test";
import type { WhoAmI, WhoAmIResult } from "../api/introspection";
import { AuthModel } from "./auth";
import { AttemptLog } from "./attempts";
import { send } from "../api/exchange";
import { installCredentials } from "../api/credentials";

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
}

const READER: WhoAmI = { auth: "token", authenticated: true, scopes: ["read"], buckets: ["demo"], public_read: false };
const ANONYMOUS: WhoAmI = { auth: "token", authenticated: false, scopes: [], buckets: null, public_read: false };

/** A server with one token, "reader-token-0123456789", that may read bucket demo. */
function server(): (token: string | null) => Promise<WhoAmIResult> {
  return async (token) => {
    if (token === null) return { ok: true, data: ANONYMOUS };
    if (token === "reader-token-0123456789") return { ok: true, data: READER };
    return { ok: false, status: 401, message: "unknown token", invalidToken: true };
  };
}

describe("the token", () => {
  test("asked for when the server needs one; kept in session storage once the server accepts it", async () => {
    const storage = memoryStorage();
    const auth = new AuthModel({ storage, whoami: server() });
    await auth.refresh();
    expect(auth.ask.value).toEqual({ kind: "needed" });
    expect(await auth.submit("wrong-token-000000000")).toBe("The server refused this token: unknown token");
    expect(auth.token.value).toBeNull();
    expect(storage.m.size).toBe(0);
    expect(await auth.submit("  Bearer reader-token-0123456789 ")).toBeNull();
    expect(auth.token.value).toBe("reader-token-0123456789");
    expect(storage.m.get("ursa.token")).toBe("reader-token-0123456789");
    expect(auth.ask.value).toBeNull();
    expect(auth.epoch.value).toBe(1);
    // A reload of the tab finds it again.
    expect(new AuthModel({ storage, whoami: server() }).token.value).toBe("reader-token-0123456789");
  });
  test("forget: gone from storage, and every page reads again without it", async () => {
    const storage = memoryStorage();
    const auth = new AuthModel({ storage, whoami: server() });
    await auth.submit("reader-token-0123456789");
    await auth.forget();
    expect(storage.m.size).toBe(0);
    expect([auth.token.value, auth.epoch.value, auth.who.value]).toEqual([null, 2, ANONYMOUS]);
  });
  test("a 401 challenge opens the prompt; a refused stored token says so", async () => {
    const auth = new AuthModel({ storage: memoryStorage(), whoami: server() });
    auth.challenged({}, "/demo/s");
    expect(auth.ask.value).toEqual({ kind: "needed", path: "/demo/s" });
    const stale = memoryStorage();
    stale.setItem("ursa.token", "expired-token-00000000");
    const again = new AuthModel({ storage: stale, whoami: server() });
    await again.refresh();
    expect(again.ask.value).toEqual({ kind: "refused", description: "unknown token" });
  });
  test("a token the server stops taking is dropped; after \"Not now\" a poll's 401 asks no more", async () => {
    const storage = memoryStorage();
    const auth = new AuthModel({ storage, whoami: server() });
    await auth.submit("reader-token-0123456789");
    auth.challenged({ error: "invalid_token", description: "revoked" }, "/demo/s");
    expect([auth.token.value, storage.m.size, auth.ask.value]).toEqual([null, 0, { kind: "refused", description: "revoked" }]);
    auth.dismiss();
    auth.challenged({}, "/demo/s");
    expect(auth.ask.value).toBeNull();
    auth.prompt();
    expect(auth.ask.value).toEqual({ kind: "needed" });
  });
  test("what a write would need, from whoami's scopes and buckets", async () => {
    const auth = new AuthModel({ storage: memoryStorage(), whoami: server() });
    expect(auth.need("admin", "demo")).toBeNull(); // nothing known yet: the server decides
    await auth.submit("reader-token-0123456789");
    expect(auth.need("read", "demo")).toBeNull();
    expect(auth.need("write", "demo")).toEqual({ scope: "write", text: "needs the write scope: this token has read" });
    expect(auth.need("read", "other")).toEqual({ scope: "read", bucket: "other", text: "needs a token for bucket other: this one is limited to demo" });
    const open = new AuthModel({ storage: null, whoami: async () => ({ ok: true, data: { auth: "none", authenticated: false, scopes: ["read", "write", "admin"], buckets: null, public_read: true } }) });
    await open.refresh();
    expect(open.need("admin", "x")).toBeNull();
    expect(open.ask.value).toBeNull();
  });
});

describe("the token on the wire and off the record", () => {
  test("sent as Authorization: Bearer, never in the exchange, the timeline or its storage", async () => {
    const storage = memoryStorage();
    const auth = new AuthModel({ storage: memoryStorage(), whoami: server() });
    await auth.submit("reader-token-0123456789");
    installCredentials({ token: () => auth.token.value, challenged: (c, p) => auth.challenged(c, p) });
    let sent: string | null = null;
    const fetchImpl = (async (_url: string, init: RequestInit) => {
      sent = new Headers(init.headers).get("authorization");
      return new Response(null, { status: 204 });
    }) as unknown as typeof fetch;
    const ex = await send({ method: "POST", path: "/demo/s", headers: [["Content-Type", "text/plain"]], body: "x" }, { origin: "http://h", fetchImpl });
    expect(sent!).toBe("Bearer reader-token-0123456789");
    expect(ex.bearer).toBe(true);
    expect(JSON.stringify(ex)).not.toContain("reader-token");
    // A token typed into the request itself is masked when the timeline records it.
    const typed = await send({ method: "GET", path: "/demo/s?access_token=typed-token-0123456789", headers: [["Authorization", "Bearer typed-token-0123456789"]] }, { origin: "http://h", fetchImpl });
    const log = new AttemptLog({ storage });
    log.record(ex, "composer");
    log.record(typed, "composer");
    const stored = storage.m.get("ursa.attempts.v1")!;
    expect(stored).not.toContain("reader-token");
    expect(stored).not.toContain("typed-token");
    expect(JSON.stringify(log.entries.value)).not.toContain("typed-token");
    expect(log.entries.value[0]!.exchange.request.headers).toEqual([["Authorization", "Bearer $URSA_TOKEN"]]);
    installCredentials({ token: () => null, challenged: () => {} });
  });
  test("a 401 with a Bearer challenge reaches the prompt", async () => {
    const auth = new AuthModel({ storage: memoryStorage(), whoami: server() });
    installCredentials({ token: () => auth.token.value, challenged: (c, p) => auth.challenged(c, p) });
    const fetchImpl = (async () => new Response('{"error":{"code":"UNAUTHORIZED","message":"m"}}', { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="ursa"' } })) as unknown as typeof fetch;
    await send({ method: "GET", path: "/demo/s?offset=-1", headers: [] }, { origin: "http://h", fetchImpl });
    expect(auth.ask.value).toEqual({ kind: "needed", path: "/demo/s?offset=-1" });
    installCredentials({ token: () => null, challenged: () => {} });
  });
});

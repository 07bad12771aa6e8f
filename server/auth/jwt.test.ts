import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JwtVerifier, type AuthResult } from "./jwt";
import { ADMIN, READ, WRITE } from "./scopes";
import { AUDIENCE, ISSUER, serveJwks, testIssuer, type TestIssuer } from "./testing-jwt";

let issuer: TestIssuer;
let stranger: TestIssuer;
let jwks: ReturnType<typeof serveJwks>;
let verifier: JwtVerifier;

beforeAll(async () => {
  issuer = await testIssuer("k1");
  // Same kid, other key: what a forger who knows the kid would send.
  stranger = await testIssuer("k1");
  jwks = serveJwks([issuer.jwk]);
  verifier = new JwtVerifier({ keys: { kind: "url", url: jwks.url, refreshMs: 600_000 }, issuer: ISSUER, audience: AUDIENCE });
});
afterAll(() => jwks.stop());

const refusal = (r: AuthResult) => (r.ok ? "accepted" : `${r.error.code}: ${r.error.message}`);

describe("JWT access tokens against a JWKS served over HTTP", () => {
  test("a valid token gives its scopes and buckets", async () => {
    const token = await issuer.sign({ scope: "read write other:scope", buckets: ["demo", "logs"], exp: 4_102_444_800 });
    const r = await verifier.verify(token);
    // Accepted until exp plus the minute of clock tolerance it is verified with.
    expect(r).toEqual({ ok: true, principal: { kind: "jwt", scopes: READ | WRITE, buckets: new Set(["demo", "logs"]), acceptedUntilMs: 4_102_444_860_000 } });
    const all = await verifier.verify(await issuer.sign({ scope: "admin", exp: 4_102_444_800 }));
    expect(all).toEqual({ ok: true, principal: { kind: "jwt", scopes: ADMIN, buckets: null, acceptedUntilMs: 4_102_444_860_000 } });
  });

  test("expired, wrong audience, wrong issuer and wrong key are refused as invalid tokens", async () => {
    expect(refusal(await verifier.verify(await issuer.sign({}, { expiresInS: -3600 })))).toBe("UNAUTHORIZED: the token has expired");
    expect(refusal(await verifier.verify(await issuer.sign({ aud: "another-service" })))).toBe("UNAUTHORIZED: the token was not issued for this server");
    expect(refusal(await verifier.verify(await issuer.sign({ iss: "https://elsewhere.test" })))).toBe("UNAUTHORIZED: the token was not issued for this server");
    expect(refusal(await verifier.verify(await stranger.sign({ scope: "admin" })))).toBe("UNAUTHORIZED: the token is not valid");
  });

  test("RFC 9068: typ at+jwt and sub, client_id, iat, exp and jti are required", async () => {
    expect(refusal(await verifier.verify(await issuer.sign({}, { typ: "JWT" })))).toStartWith("UNAUTHORIZED");
    for (const claim of ["sub", "client_id", "iat", "exp", "jti"]) {
      expect(refusal(await verifier.verify(await issuer.sign({}, { omit: [claim] })))).toStartWith("UNAUTHORIZED");
    }
    expect(refusal(await verifier.verify("not.a.jwt"))).toStartWith("UNAUTHORIZED");
  });

  test("a scope or buckets claim of the wrong type makes the token invalid rather than broader", async () => {
    expect(refusal(await verifier.verify(await issuer.sign({ scope: ["admin"] })))).toStartWith("UNAUTHORIZED");
    expect(refusal(await verifier.verify(await issuer.sign({ buckets: "demo" })))).toStartWith("UNAUTHORIZED");
  });

  test("a verified token is remembered until it expires or a minute passes, and not fetched again", async () => {
    let now = Date.now();
    const v = new JwtVerifier({ keys: { kind: "url", url: jwks.url, refreshMs: 600_000 }, issuer: ISSUER, audience: AUDIENCE }, () => now);
    const before = jwks.fetches();
    const token = await issuer.sign({ scope: "read" }, { expiresInS: 30 });
    expect((await v.verify(token)).ok).toBe(true);
    expect(jwks.fetches()).toBe(before + 1);
    expect(v.remembers(token)?.scopes).toBe(READ);
    now += 31_000;
    expect(v.remembers(token)).toBeUndefined();
  });

  test("a JWKS that cannot be fetched is the server's trouble: 503, not 401", async () => {
    const down = serveJwks([]);
    down.stop();
    const v = new JwtVerifier({ keys: { kind: "url", url: down.url, refreshMs: 600_000 }, issuer: ISSUER, audience: AUDIENCE });
    expect(refusal(await v.verify(await issuer.sign()))).toStartWith("AUTH_UNAVAILABLE");
  });

  test("a JWKS from a file verifies the same way", async () => {
    const v = new JwtVerifier({ keys: { kind: "file", jwks: { keys: [issuer.jwk] } }, issuer: ISSUER, audience: AUDIENCE });
    expect((await v.verify(await issuer.sign({ scope: "read" }))).ok).toBe(true);
    expect(refusal(await v.verify(await stranger.sign({ scope: "read" })))).toStartWith("UNAUTHORIZED");
  });
});

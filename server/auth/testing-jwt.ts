// For tests: a key pair, a JWKS served over real HTTP on loopback, and RFC 9068 tokens signed
// with whatever claims a test wants to get wrong.

import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";

export const ISSUER = "https://issuer.test";
export const AUDIENCE = "ursa-test";

export interface TestIssuer {
  jwk: JWK;
  sign(claims?: JWTPayload, options?: { typ?: string; kid?: string; expiresInS?: number; omit?: string[] }): Promise<string>;
}

export async function testIssuer(kid = "k1"): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return {
    jwk,
    async sign(claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = { iss: ISSUER, aud: AUDIENCE, sub: "user-1", client_id: "client-1", jti: crypto.randomUUID(), iat: now, exp: now + (options.expiresInS ?? 300), ...claims };
      for (const name of options.omit ?? []) delete payload[name];
      return new SignJWT(payload).setProtectedHeader({ alg: "ES256", typ: options.typ ?? "at+jwt", kid: options.kid ?? kid }).sign(privateKey);
    },
  };
}

/** A JWKS at http://127.0.0.1:PORT/jwks.json, counting its fetches. */
export function serveJwks(keys: JWK[]): { url: string; fetches: () => number; stop: () => void } {
  let fetches = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      fetches++;
      return Response.json({ keys });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/jwks.json`, fetches: () => fetches, stop: () => void server.stop(true) };
}

// JWT bearer tokens: RFC 9068 access tokens (`typ: at+jwt`) verified with jose against a JWKS
// from a file or a URL, as Ursula's gateway verifies them. The issuer and audience must match;
// sub, client_id, iat, exp and jti must be present; only asymmetric algorithms are accepted (a
// shared secret cannot prove who issued a token). Scopes come from the `scope` claim (space-
// separated: read, write, admin), buckets from a `buckets` array claim (absent: every bucket).
//
// A verified token is remembered for up to a minute (never past its exp), so a writer that sends
// the same token with every append pays for one signature check a minute, not one per request.

import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { protocolError, type ProtocolError } from "../protocol/errors";
import { invalidToken } from "./authorize";
import type { Principal } from "./principal";
import { scopeOf } from "./scopes";

export type JwksSource = { kind: "file"; jwks: JSONWebKeySet } | { kind: "url"; url: string; refreshMs: number };

export interface JwtOptions {
  keys: JwksSource;
  issuer: string;
  audience: string;
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; error: ProtocolError };

const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
/** Clocks differ; Ursula's gateway allows the same. */
const CLOCK_TOLERANCE_S = 60;
const REMEMBER_MS = 60_000;
const REMEMBERED_TOKENS = 1024;
/** jose's codes for a JWKS that could not be fetched or read: the server's trouble, not the token's. */
const UNAVAILABLE = new Set(["ERR_JOSE_GENERIC", "ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"]);

export class JwtVerifier {
  private readonly getKey: JWTVerifyGetKey;
  private readonly remembered = new Map<string, { principal: Principal; untilMs: number }>();

  constructor(
    private readonly options: JwtOptions,
    private readonly now: () => number = Date.now,
  ) {
    const keys = options.keys;
    this.getKey =
      keys.kind === "file"
        ? createLocalJWKSet(keys.jwks)
        : createRemoteJWKSet(new URL(keys.url), { cacheMaxAge: keys.refreshMs, cooldownDuration: 30_000, timeoutDuration: 5_000 });
  }

  /** A token verified within the last minute and not yet expired. */
  remembers(token: string): Principal | undefined {
    const entry = this.remembered.get(token);
    if (entry === undefined) return undefined;
    if (entry.untilMs > this.now()) return entry.principal;
    this.remembered.delete(token);
    return undefined;
  }

  async verify(token: string): Promise<AuthResult> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.getKey, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        typ: "at+jwt",
        algorithms: ALGORITHMS,
        requiredClaims: ["sub", "client_id", "iat", "exp", "jti"],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      return { ok: false, error: refusal(error) };
    }
    const principal = principalOf(payload);
    if (principal === null) return { ok: false, error: invalidToken("the token's scope or buckets claim is malformed") };
    if (this.remembered.size >= REMEMBERED_TOKENS) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(token, { principal, untilMs: Math.min(payload.exp! * 1000, this.now() + REMEMBER_MS) });
    return { ok: true, principal };
  }
}

function refusal(error: unknown): ProtocolError {
  if (!(error instanceof errors.JOSEError) || UNAVAILABLE.has(error.code)) {
    return protocolError("AUTH_UNAVAILABLE", "the keys that verify tokens could not be fetched; retry shortly");
  }
  if (error instanceof errors.JWTExpired) return invalidToken("the token has expired");
  if (error instanceof errors.JWTClaimValidationFailed) return invalidToken("the token was not issued for this server");
  return invalidToken("the token is not valid");
}

function principalOf(payload: JWTPayload): Principal | null {
  const { scope, buckets } = payload as { scope?: unknown; buckets?: unknown };
  if (scope !== undefined && typeof scope !== "string") return null;
  if (buckets !== undefined && !(Array.isArray(buckets) && buckets.every((b) => typeof b === "string"))) return null;
  let scopes = 0;
  // Scopes ursa does not know may be meant for another audience's API: ignored, not refused.
  for (const name of (scope ?? "").split(/\s+/)) scopes |= scopeOf(name) ?? 0;
  return { kind: "jwt", scopes, buckets: buckets === undefined ? null : new Set(buckets as string[]), acceptedUntilMs: payload.exp! * 1000 + CLOCK_TOLERANCE_S * 1000 };
}

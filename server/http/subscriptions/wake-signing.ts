// How a webhook receiver knows a wake came from this server (DS §6): the body is signed with the
// server's Ed25519 key, `Webhook-Signature: t=<unix seconds>,kid=<key id>,ed25519=<base64url>` over
// `<t>.<body>`, and the public key is published as a JWKS at `__ds/jwks.json`. The callback and
// lease tokens a receiver or worker sends back are HMAC-SHA256 over the subscription and the
// generation they were given for. Both keys are kept by the store, so they outlive a restart.

import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, timingSafeEqual, type KeyObject } from "node:crypto";
import type { SubscriptionStore } from "../../storage/subscriptions";

export interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

export class WakeSigning {
  private constructor(
    private readonly privateKey: KeyObject,
    readonly jwk: Jwk,
    private readonly tokenKey: Buffer,
  ) {}

  static async open(store: SubscriptionStore): Promise<WakeSigning> {
    const pem = await store.secret("webhook-signing-key", () => generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString());
    const token = await store.secret("callback-token-key", () => randomBytes(32).toString("base64url"));
    const privateKey = createPrivateKey(pem);
    const pub = createPublicKey(privateKey).export({ format: "jwk" }) as { kty: string; crv: string; x: string };
    const kid = `ds_${createHash("sha256").update(pub.x).digest("base64url").slice(0, 16)}`;
    return new WakeSigning(privateKey, { kty: pub.kty, crv: pub.crv, x: pub.x, kid, alg: "EdDSA", use: "sig" }, Buffer.from(token, "base64url"));
  }

  get kid(): string {
    return this.jwk.kid;
  }

  /** The `Webhook-Signature` value for a body sent at `nowMs`. */
  signature(body: string, nowMs: number): string {
    const t = Math.floor(nowMs / 1000);
    const sig = sign(null, Buffer.from(`${t}.${body}`), this.privateKey).toString("base64url");
    return `t=${t},kid=${this.kid},ed25519=${sig}`;
  }

  /** A token for one generation of one subscription. */
  token(subject: string, generation: number): string {
    const payload = Buffer.from(JSON.stringify({ sub: subject, gen: generation, jti: randomBytes(6).toString("hex") })).toString("base64url");
    return `${payload}.${this.mac(payload)}`;
  }

  /** The generation a token was given for, or null when this server did not give it for `subject`. */
  generationOf(token: string, subject: string): number | null {
    const [payload, mac, extra] = token.split(".");
    if (payload === undefined || mac === undefined || extra !== undefined) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as { sub?: unknown; gen?: unknown };
      return claims.sub === subject && typeof claims.gen === "number" ? claims.gen : null;
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac("sha256", this.tokenKey).update(payload).digest("base64url");
  }
}

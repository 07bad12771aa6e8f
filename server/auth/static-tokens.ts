// Looking up a static token without a comparison whose time depends on how much of a real token
// was guessed right: the presented token is hashed, and the hash, which an attacker cannot steer
// towards a real token's, is what is looked up and then compared in constant time.

import { createHash, timingSafeEqual } from "node:crypto";
import type { Principal } from "./principal";
import type { TokenEntry } from "./token-file";

const digest = (token: string) => createHash("sha256").update(token, "utf8").digest();

export class StaticTokens {
  private readonly byDigest = new Map<string, { digest: Buffer; principal: Principal }>();

  constructor(entries: readonly TokenEntry[]) {
    for (const e of entries) {
      const d = digest(e.token);
      this.byDigest.set(d.toString("base64"), { digest: d, principal: { kind: "token", scopes: e.scopes, buckets: e.buckets } });
    }
  }

  get size(): number {
    return this.byDigest.size;
  }

  lookup(token: string): Principal | undefined {
    const d = digest(token);
    const entry = this.byDigest.get(d.toString("base64"));
    return entry && timingSafeEqual(entry.digest, d) ? entry.principal : undefined;
  }
}

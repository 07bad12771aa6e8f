// Turns a bearer token into a principal: a static token (token-file.ts), else a JWT (jwt.ts).
// Static tokens and remembered JWTs answer at once; only a JWT not seen in the last minute waits
// for a signature check.

import { invalidToken } from "./authorize";
import { JwtVerifier, type AuthResult, type JwtOptions } from "./jwt";
import { StaticTokens } from "./static-tokens";
import type { TokenEntry } from "./token-file";

export type AuthMode = "none" | "token" | "jwt";

export interface AuthConfig {
  tokens: TokenEntry[];
  jwt: JwtOptions | null;
  /** Anyone may read every bucket without a token. */
  publicRead: boolean;
  /** Refuse to start without a way to authenticate. */
  requireAuth: boolean;
}

export const NO_AUTH: AuthConfig = { tokens: [], jwt: null, publicRead: false, requireAuth: false };

export function authMode(config: AuthConfig): AuthMode {
  if (config.jwt) return "jwt";
  return config.tokens.length > 0 ? "token" : "none";
}

const INVALID: AuthResult = { ok: false, error: invalidToken("the token is not valid") };

export class Authenticator {
  private readonly tokens: StaticTokens;
  private readonly jwt: JwtVerifier | null;

  constructor(config: AuthConfig, now: () => number = Date.now) {
    this.tokens = new StaticTokens(config.tokens);
    this.jwt = config.jwt && new JwtVerifier(config.jwt, now);
  }

  authenticate(token: string): AuthResult | Promise<AuthResult> {
    const principal = this.tokens.lookup(token) ?? this.jwt?.remembers(token);
    if (principal) return { ok: true, principal };
    return this.jwt ? this.jwt.verify(token) : INVALID;
  }
}

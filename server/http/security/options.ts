// The security options, read from the same flags and environment as the rest (config.ts), and
// what the server says about them when it starts.

import { authMode, NO_AUTH, type AuthConfig } from "../../auth/authenticator";
import { isLoopbackName, parseAuthOptions } from "../../auth/options";
import { parseCorsOrigins, type CorsRules } from "./cors";
import { parseAllowedHosts, type HostRules } from "./host-check";

export interface SecurityConfig {
  allowedHosts: HostRules;
  cors: CorsRules;
  auth: AuthConfig;
}

/** No options given: loopback names and IP literals, CORS reads from anywhere, no authentication. */
export const DEFAULT_SECURITY: SecurityConfig = {
  allowedHosts: { any: false, names: new Set(), domains: [] },
  cors: { any: true, origins: new Set() },
  auth: NO_AUTH,
};

export function parseSecurityOptions(get: (flag: string) => string, host: string, jwksRefreshMs: number): SecurityConfig | string {
  const allowedHosts = parseAllowedHosts(get("allowed-hosts"), host);
  if (typeof allowedHosts === "string") return allowedHosts;
  const cors = parseCorsOrigins(get("cors-origins"));
  if (typeof cors === "string") return cors;
  const auth = parseAuthOptions(get, jwksRefreshMs);
  if (typeof auth === "string") return auth;
  return { allowedHosts, cors, auth };
}

/** A reason to refuse to start, or the warnings to print first. */
export function startupCheck(host: string, security: SecurityConfig): { refuse: string } | { warnings: string[] } {
  const open = authMode(security.auth) === "none";
  if (open && security.auth.requireAuth) return { refuse: "--require-auth: no --token, --token-file or --jwks is given, so anyone could read, write and delete" };
  const warnings: string[] = [];
  if (open && !isLoopbackName(host)) {
    warnings.push(
      `ursa: WARNING: listening on ${host} without authentication. Anyone who can reach this port can read, write and delete every stream. ` +
        "Give --token, --token-file or --jwks (and --require-auth to refuse to start without them), or listen on 127.0.0.1.",
    );
  }
  if (security.allowedHosts.any) warnings.push("ursa: WARNING: --allowed-hosts * turns off the Host check: a web page can reach this server through DNS rebinding.");
  return { warnings };
}

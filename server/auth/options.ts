// --token, --token-file, --jwks (with --jwt-issuer, --jwt-audience, --jwks-refresh),
// --public-read and --require-auth, read into an AuthConfig. Files are read here, so a missing or
// malformed one stops the start with a one-line error. No message repeats a token.

import { readFileSync } from "node:fs";
import type { JSONWebKeySet } from "jose";
import type { AuthConfig } from "./authenticator";
import type { JwtOptions } from "./jwt";
import { allScopesToken, parseTokenFile, tokenProblem, type TokenEntry } from "./token-file";

export const on = (value: string): boolean => value === "true" || value === "1";

export function parseAuthOptions(get: (flag: string) => string, jwksRefreshMs: number, readFile = (path: string) => readFileSync(path, "utf8")): AuthConfig | string {
  const tokens: TokenEntry[] = [];
  const token = get("token");
  if (token !== "") {
    const problem = tokenProblem(token);
    if (problem) return `--token: ${problem}`;
    tokens.push(allScopesToken(token));
  }
  const file = get("token-file");
  if (file !== "") {
    let text: string;
    try {
      text = readFile(file);
    } catch (e) {
      return `--token-file: cannot read ${file}: ${(e as Error).message}`;
    }
    const parsed = parseTokenFile(text, file);
    if (typeof parsed === "string") return parsed;
    if (parsed.some((e) => e.token === token)) return `--token-file ${file}: the --token value is also in the file`;
    tokens.push(...parsed);
  }
  const jwt = parseJwtOptions(get, jwksRefreshMs, readFile);
  if (typeof jwt === "string") return jwt;
  const publicRead = on(get("public-read"));
  if (publicRead && tokens.length === 0 && jwt === null) return "--public-read opens reads to anyone, but nothing else is protected: give it with --token, --token-file or --jwks";
  return { tokens, jwt, publicRead, requireAuth: on(get("require-auth")) };
}

function parseJwtOptions(get: (flag: string) => string, refreshMs: number, readFile: (path: string) => string): JwtOptions | null | string {
  const source = get("jwks");
  const issuer = get("jwt-issuer");
  const audience = get("jwt-audience");
  if (source === "") return issuer === "" && audience === "" ? null : "--jwt-issuer and --jwt-audience need --jwks";
  // Without both, a token issued for another service, or by another issuer, would be accepted.
  if (issuer === "" || audience === "") return "--jwks needs --jwt-issuer and --jwt-audience";
  if (/^https?:\/\//i.test(source)) {
    const url = URL.canParse(source) ? new URL(source) : null;
    if (!url) return `--jwks: ${JSON.stringify(source)} is not a URL`;
    // Keys fetched over plain HTTP could be swapped by anyone on the path.
    if (url.protocol !== "https:" && !isLoopbackName(url.hostname)) return "--jwks: a JWKS URL must be https unless it is on this machine (127.0.0.1, ::1, localhost)";
    return { keys: { kind: "url", url: url.href, refreshMs }, issuer, audience };
  }
  let jwks: unknown;
  try {
    jwks = JSON.parse(readFile(source));
  } catch (e) {
    return `--jwks: cannot read a JSON key set from ${source}: ${(e as Error).message}`;
  }
  if (typeof jwks !== "object" || jwks === null || !Array.isArray((jwks as { keys?: unknown }).keys)) return `--jwks: ${source} is not a JWKS ({"keys":[...]})`;
  return { keys: { kind: "file", jwks: jwks as JSONWebKeySet }, issuer, audience };
}

/** Names and addresses that never leave this machine. */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(h);
}

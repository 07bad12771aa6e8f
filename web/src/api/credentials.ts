// The bearer token every request of the console carries, and who is told when a server asks for
// one. This layer only reads the token and reports challenges; state/auth.ts owns both (session
// storage, the prompt). The token is added when a request is sent and never becomes part of the
// request object, so the attempt timeline and its snippets cannot hold it (docs/security.md).

/** What a 401 said in its `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3). */
export interface Challenge {
  /** "invalid_token" when a token was sent and refused; absent when none was sent. */
  error?: string;
  description?: string;
  /** The scope an `insufficient_scope` challenge names. */
  scope?: string;
}

export interface Credentials {
  token(): string | null;
  /** A 401 asked for a bearer token. */
  challenged(challenge: Challenge, path: string): void;
}

let current: Credentials = { token: () => null, challenged: () => {} };

export function installCredentials(c: Credentials): void {
  current = c;
}

export function bearerToken(): string | null {
  return current.token();
}

/** Adds `Authorization: Bearer <token>` unless the request set its own; says whether it did. */
export function addBearer(headers: Headers): boolean {
  const token = current.token();
  if (!token || headers.has("authorization")) return false;
  headers.set("Authorization", `Bearer ${token}`);
  return true;
}

/** The parameters of a Bearer challenge, or null when the header asks for something else (or is absent). */
export function parseBearerChallenge(header: string | null | undefined): Challenge | null {
  if (!header || !/^\s*bearer\b/i.test(header)) return null;
  const c: Challenge = {};
  for (const m of header.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/gi)) {
    const value = m[2]!.replace(/\\(.)/g, "$1");
    const name = m[1]!.toLowerCase();
    if (name === "error") c.error = value;
    else if (name === "error_description") c.description = value;
    else if (name === "scope") c.scope = value;
  }
  return c;
}

/** Tells the owner of the token when a 401 carries a Bearer challenge. */
export function noticeChallenge(status: number, wwwAuthenticate: string | null | undefined, path: string): void {
  if (status !== 401) return;
  const c = parseBearerChallenge(wwwAuthenticate);
  if (c) current.challenged(c, path);
}

/** What snippets and the stored history show instead of a token. */
export const TOKEN_PLACEHOLDER = "$URSA_TOKEN";

/** `access_token=…` in a path's query, replaced by the placeholder (RFC 6750 §2.3 tokens in URLs). */
export function maskQueryToken(path: string): string {
  return path.replace(/([?&]access_token=)[^&#]*/g, `$1${TOKEN_PLACEHOLDER}`);
}

/** An Authorization header's credentials, replaced by the placeholder; other headers as they are. */
export function maskHeaderValue(name: string, value: string): string {
  if (name.toLowerCase() !== "authorization") return value;
  const scheme = /^\s*(\S+)\s/.exec(value)?.[1];
  return scheme ? `${scheme} ${TOKEN_PLACEHOLDER}` : TOKEN_PLACEHOLDER;
}

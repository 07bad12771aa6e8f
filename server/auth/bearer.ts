// The bearer token a request carries (RFC 6750): in Authorization, or, for GET and HEAD, in the
// access_token query parameter (§2.3), because EventSource cannot send headers. A token in a
// query string ends up in logs and histories, so writes must use the header, and every URL that
// is printed goes through redactAccessToken first.

import type { ProtocolError } from "../protocol/errors";
import { invalidRequest, invalidToken } from "./authorize";

export type Credential = { kind: "none" } | { kind: "bearer"; token: string } | { kind: "refused"; error: ProtocolError };

const NONE: Credential = { kind: "none" };
// RFC 6750 §2.1 b64token, after the scheme and its space.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const PARAM = "access_token";

/** `header` is the request's Authorization header, or null when it has none. */
export function credentialOf(method: string, header: string | null, url: string): Credential {
  let fromHeader: string | null = null;
  if (header !== null) {
    const space = header.indexOf(" ");
    // The scheme is case-insensitive (RFC 9110 §11.1); other schemes are not ursa's and are ignored.
    if (header.slice(0, space < 0 ? header.length : space).toLowerCase() === "bearer") {
      fromHeader = header.slice(space + 1).trim();
      if (space < 0 || !B64TOKEN.test(fromHeader)) return { kind: "refused", error: invalidToken("the Authorization header does not hold a bearer token") };
    }
  }
  const fromQuery = method === "GET" || method === "HEAD" ? queryTokens(url) : [];
  if (fromQuery.length === 0) return fromHeader === null ? NONE : { kind: "bearer", token: fromHeader };
  // RFC 6750 §2: a client uses one method, and only one token.
  if (fromHeader !== null || fromQuery.length > 1) return { kind: "refused", error: invalidRequest("send one bearer token, in the header or in access_token, not both") };
  const token = fromQuery[0]!;
  return B64TOKEN.test(token) ? { kind: "bearer", token } : { kind: "refused", error: invalidToken("access_token does not hold a bearer token") };
}

function queryTokens(url: string): string[] {
  const query = url.indexOf("?");
  // A query can name access_token only by spelling "token" or by percent-encoding some of it:
  // reads' own parameters (offset, live, cursor) skip the parse.
  if (query < 0 || (!url.includes("token", query) && !url.includes("%", query))) return [];
  return new URLSearchParams(url.slice(query + 1)).getAll(PARAM);
}

/**
 * The URL (or path with query) with every access_token value replaced, however its name is
 * percent-encoded: URLSearchParams decodes names, so `access%5Ftoken` is a token too.
 */
export function redactAccessToken(url: string): string {
  const query = url.indexOf("?");
  if (query < 0) return url;
  const hash = url.indexOf("#", query);
  const end = hash < 0 ? url.length : hash;
  const pairs = url.slice(query + 1, end).split("&").map((pair) => {
    const eq = pair.indexOf("=");
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return decodedName(name) === PARAM ? `${name}=REDACTED` : pair;
  });
  return `${url.slice(0, query + 1)}${pairs.join("&")}${url.slice(end)}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
}

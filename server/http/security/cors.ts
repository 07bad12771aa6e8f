// Cross-origin reads (spec §2.0, §2.19). Stream data stays readable from any origin by default,
// because Durable Streams clients in browsers need it; --cors-origins narrows that to a list.
// Listed origins are trusted: they may also write. Everyone else's preflight lists only reads,
// plus writes when the page carries a bearer token, since the real request is then judged by that
// token. The console and the introspection API are never readable by other sites' pages.
// Credentials are never allowed: tokens travel in Authorization, which CORS does not count as
// credentials, and ursa uses no cookies.

import { baseHeaders, H, READ_REQUEST_HEADERS, WRITE_REQUEST_HEADERS } from "../headers";

export interface CorsRules {
  /** `*`: any origin may read. */
  any: boolean;
  /** Listed origins, serialized as browsers send them (`scheme://host[:port]`). */
  origins: ReadonlySet<string>;
}

/** `--cors-origins`: `*`, or comma-separated origins. */
export function parseCorsOrigins(raw: string): CorsRules | string {
  const entries = raw.split(",").map((e) => e.trim()).filter((e) => e !== "");
  if (entries.length === 1 && entries[0] === "*") return { any: true, origins: new Set() };
  if (entries.length === 0 || entries.includes("*")) return "--cors-origins must be * or a list of origins such as https://app.example.com,http://localhost:5173";
  const origins = new Set<string>();
  for (const entry of entries) {
    const url = URL.canParse(entry) ? new URL(entry) : null;
    // An origin is a scheme, a host and a port; stored as browsers serialize it (no default port).
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.hash || url.username || entry.endsWith("/")) {
      return `--cors-origins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], no path)`;
    }
    origins.add(url.origin);
  }
  return { any: false, origins };
}

/** Which rules a path's responses follow. */
export type Surface = "data" | "console" | "private";

/**
 * `private`: the introspection API and admin routes under /__ursula/ (health and readiness
 * excepted), read only by the console and by listed origins. `console`: the console's own files,
 * which no other page needs to read. `data`: streams and buckets.
 */
export function surfaceOf(raw: string): Surface {
  if (raw.startsWith("/__ursula/")) return raw === "/__ursula/health" || raw === "/__ursula/ready" ? "data" : "private";
  if (raw === "/" || raw === "/ui" || raw.startsWith("/ui/")) return "console";
  return "data";
}

const READ_METHODS = "GET, HEAD";
const ALL_METHODS = "GET, HEAD, POST, PUT, DELETE";
const READ_HEADERS = new Set(READ_REQUEST_HEADERS);
const AUTHORIZATION = H.authorization.toLowerCase();
/** What a preflight's answer depends on. */
const PREFLIGHT_VARY = [H.origin, H.requestMethod, H.requestHeaders].join(", ");
const WRITE_HEADERS = new Set(WRITE_REQUEST_HEADERS);

export class Cors {
  /**
   * @param writesWithToken whether a bearer token can let an untrusted origin write, that is,
   * whether authentication is on.
   */
  constructor(
    private readonly rules: CorsRules,
    private readonly writesWithToken: boolean,
  ) {}

  /** Whether `origin` was listed with --cors-origins. */
  trusts(origin: string | null): boolean {
    return origin !== null && this.rules.origins.has(origin);
  }

  /** Whether responses on this surface need their CORS headers changed from the defaults. */
  decorates(surface: Surface): boolean {
    return surface !== "data" || !this.rules.any;
  }

  /**
   * Every OPTIONS request. The answer depends on the origin and what it asks for, never on the
   * path, so it reveals nothing about what exists (spec §2.19).
   */
  preflight(headers: Headers): Response {
    const h = baseHeaders();
    h.delete(H.exposeHeaders);
    h.set(H.vary, PREFLIGHT_VARY);
    const origin = headers.get(H.origin);
    const trusted = this.trusts(origin);
    if (headers.get(H.requestMethod) === null || (!trusted && !this.rules.any)) {
      // Not a preflight, or from an origin that may not read: no grant, and the browser stops there.
      h.delete(H.allowOrigin);
      h.set(H.allow, `${ALL_METHODS}, OPTIONS`);
      return new Response(null, { status: 204, headers: h });
    }
    if (trusted) h.set(H.allowOrigin, origin!);
    const requested = (headers.get(H.requestHeaders) ?? "").split(",").map((n) => n.trim().toLowerCase()).filter((n) => n !== "");
    const writes = trusted || (this.writesWithToken && requested.includes(AUTHORIZATION));
    const allowed = writes ? WRITE_HEADERS : READ_HEADERS;
    h.set(H.allowMethods, writes ? ALL_METHODS : READ_METHODS);
    const granted = requested.filter((n) => allowed.has(n));
    if (granted.length > 0) h.set(H.allowHeaders, granted.join(", "));
    h.set(H.maxAge, "600");
    return new Response(null, { status: 204, headers: h });
  }

  /** Sets Access-Control-Allow-Origin for this origin and surface; `*` stays only on open data. */
  decorate(response: Response, origin: string | null, surface: Surface): Response {
    const h = response.headers;
    if (!this.rules.any) h.append(H.vary, H.origin);
    if (this.trusts(origin)) h.set(H.allowOrigin, origin!);
    else if (surface !== "data" || !this.rules.any) {
      h.delete(H.allowOrigin);
      h.delete(H.exposeHeaders);
    }
    return response;
  }
}

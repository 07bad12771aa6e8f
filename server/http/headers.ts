// Header names and the headers every response carries (spec §2.0). This layer is the only one
// that knows header names.

/**
 * Where a header name is spelled: every name, once, with the lists it belongs to.
 * `exposed`: a response header cross-origin scripts may read (Access-Control-Expose-Headers).
 * `request`: a request header the protocol reads, so a preflight may grant it (spec §2.19):
 * `read` for conditional and resumed reads and a token, `write` for the rest.
 */
interface HeaderSpec {
  name: string;
  exposed?: true;
  request?: "read" | "write";
}

const HEADERS = {
  contentType: { name: "Content-Type", exposed: true, request: "write" },
  contentLength: { name: "Content-Length" },
  transferEncoding: { name: "Transfer-Encoding" },
  cacheControl: { name: "Cache-Control" },
  location: { name: "Location", exposed: true },
  etag: { name: "ETag", exposed: true },
  ifNoneMatch: { name: "If-None-Match", request: "read" },
  lastEventId: { name: "Last-Event-ID", request: "read" },
  allow: { name: "Allow" },
  retryAfter: { name: "Retry-After", exposed: true },
  connection: { name: "Connection" },
  nextOffset: { name: "Stream-Next-Offset", exposed: true },
  upToDate: { name: "Stream-Up-To-Date", exposed: true },
  closed: { name: "Stream-Closed", exposed: true, request: "write" },
  cursor: { name: "Stream-Cursor", exposed: true },
  incarnation: { name: "Stream-Incarnation", exposed: true, request: "read" },
  seq: { name: "Stream-Seq", request: "write" },
  lastSeq: { name: "Stream-Last-Seq", exposed: true },
  ttl: { name: "Stream-TTL", exposed: true, request: "write" },
  expiresAt: { name: "Stream-Expires-At", exposed: true, request: "write" },
  attrs: { name: "Stream-Attrs", request: "write" },
  earliestOffset: { name: "Stream-Earliest-Offset", exposed: true },
  retainedOffset: { name: "Stream-Retained-Offset", exposed: true },
  snapshotOffset: { name: "Stream-Snapshot-Offset", exposed: true },
  snapshotDigest: { name: "Stream-Snapshot-Digest", exposed: true },
  snapshotMatch: { name: "Stream-Snapshot-Match", request: "write" },
  recordMatch: { name: "Stream-Record-Match", request: "write" },
  prefer: { name: "Prefer", request: "write" },
  forkedFrom: { name: "Stream-Forked-From", request: "write" },
  forkOffset: { name: "Stream-Fork-Offset", request: "write" },
  forkSubOffset: { name: "Stream-Fork-Sub-Offset", request: "write" },
  producerId: { name: "Producer-Id", request: "write" },
  producerEpoch: { name: "Producer-Epoch", exposed: true, request: "write" },
  producerSeq: { name: "Producer-Seq", exposed: true, request: "write" },
  expectedSeq: { name: "Producer-Expected-Seq", exposed: true },
  receivedSeq: { name: "Producer-Received-Seq", exposed: true },
  sseDataContentType: { name: "Stream-Data-Content-Type", exposed: true },
  sseDataEncoding: { name: "Stream-SSE-Data-Encoding", exposed: true },
  wwwAuthenticate: { name: "WWW-Authenticate", exposed: true },
  authorization: { name: "Authorization", request: "read" },
  origin: { name: "Origin" },
  host: { name: "Host" },
  secFetchSite: { name: "Sec-Fetch-Site" },
  vary: { name: "Vary" },
  acceptEncoding: { name: "Accept-Encoding" },
  contentEncoding: { name: "Content-Encoding" },
  contentTypeOptions: { name: "X-Content-Type-Options" },
  contentSecurityPolicy: { name: "Content-Security-Policy" },
  frameOptions: { name: "X-Frame-Options" },
  referrerPolicy: { name: "Referrer-Policy" },
  openerPolicy: { name: "Cross-Origin-Opener-Policy" },
  resourcePolicy: { name: "Cross-Origin-Resource-Policy" },
  allowOrigin: { name: "Access-Control-Allow-Origin" },
  allowMethods: { name: "Access-Control-Allow-Methods" },
  allowHeaders: { name: "Access-Control-Allow-Headers" },
  exposeHeaders: { name: "Access-Control-Expose-Headers" },
  maxAge: { name: "Access-Control-Max-Age" },
  requestMethod: { name: "Access-Control-Request-Method" },
  requestHeaders: { name: "Access-Control-Request-Headers" },
} as const satisfies Record<string, HeaderSpec>;

type Table = typeof HEADERS;

/** Header names by role: `H.nextOffset` is "Stream-Next-Offset". */
export const H = Object.fromEntries(Object.entries(HEADERS).map(([key, spec]) => [key, spec.name])) as { readonly [K in keyof Table]: Table[K]["name"] };

const specs: readonly HeaderSpec[] = Object.values(HEADERS);

/** Response headers cross-origin scripts may read. */
export const EXPOSED_HEADERS: readonly string[] = specs.filter((s) => s.exposed).map((s) => s.name);

/** Request headers a cross-origin read may carry (spec §2.19), lower-cased as preflights send them. */
export const READ_REQUEST_HEADERS: readonly string[] = specs.filter((s) => s.request === "read").map((s) => s.name.toLowerCase());

/** Every request header the protocol reads, writes included (spec §2.19), lower-cased. */
export const WRITE_REQUEST_HEADERS: readonly string[] = specs.filter((s) => s.request !== undefined).map((s) => s.name.toLowerCase());

const DEFAULTS = new Headers([
  [H.contentTypeOptions, "nosniff"],
  [H.resourcePolicy, "cross-origin"],
  [H.cacheControl, "no-store"],
  [H.allowOrigin, "*"],
  [H.exposeHeaders, EXPOSED_HEADERS.join(", ")],
  // Stream bytes are the client's: an HTML or SVG stream opened in a browser must not run as a
  // page of the console's origin. A sandboxed document gets an opaque origin and runs no script;
  // fetch and EventSource ignore the header (spec §8.2 "treat stream data as untrusted").
  [H.contentSecurityPolicy, "sandbox"],
]);

/**
 * A fresh header set with the defaults every response carries, errors and 304s included, copied
 * from a built set, which is cheaper than building one (docs/design/hot-paths.md).
 */
export function baseHeaders(cacheControl = "no-store"): Headers {
  const h = new Headers(DEFAULTS);
  if (cacheControl !== "no-store") h.set(H.cacheControl, cacheControl);
  return h;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Text carried in a header, such as Stream-Attrs' JSON or a path. Bun hands header values over one
 * character per octet (Latin-1), but JSON text is UTF-8 (RFC 8259 §8.1), which is what curl sends
 * for a typed "café". Octets that are valid UTF-8 are read as UTF-8; others stay as they came, as
 * from a browser's fetch, which sends characters up to U+00FF as single octets.
 */
export function headerText(value: string): string {
  let high = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff) return value;
    if (c > 0x7f) high = true;
  }
  if (!high) return value;
  try {
    return UTF8.decode(Buffer.from(value, "latin1"));
  } catch {
    return value;
  }
}

/** Boolean request headers mean true only when they say `true`, in any case (spec §9.2 #24). */
export function flag(value: string | null): boolean {
  return value !== null && value.trim().toLowerCase() === "true";
}

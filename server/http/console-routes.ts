// The embedded console at /ui/. `bun build --compile --asset web/dist` puts the Vite output at
// /$bunfs/root/dist inside the binary; outside it (bun server/main.ts, tests) we read web/dist.
// The build writes a .br and a .gz beside each larger file (web/vite.config.ts); one of them is
// served when the browser accepts it.

import { join, normalize } from "node:path";
import { baseHeaders, H } from "./headers";
import { empty } from "./respond";
import { Routes } from "./router";

export const WEB_ROOT = import.meta.dir.startsWith("/$bunfs/") ? join(import.meta.dir, "dist") : join(import.meta.dir, "..", "..", "web", "dist");

/**
 * The console runs only its own files: no inline script or style, no other origin to talk to, no
 * plugins, no <base>, and no framing by another site (clickjacking). The favicon is a data: URL.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

export function consoleRoutes(webRoot: string): Routes {
  const app = new Routes("console");
  // Which precompressed files exist, learned once per file the console has (a bounded set).
  const precompressed = new Map<string, boolean>();
  const hasFile = async (path: string) => {
    let known = precompressed.get(path);
    if (known === undefined) precompressed.set(path, (known = await Bun.file(path).exists()));
    return known;
  };

  app.get("/", () => redirect(302));
  app.get("/ui", () => redirect(301));
  app.get("/ui/*", async (c) => {
    // normalize() on an absolute path cannot climb above "/", so no request escapes webRoot.
    const rel = normalize(decodedPath(c.path).slice("/ui".length));
    let path = join(webRoot, rel);
    if (rel.endsWith("/") || !(await Bun.file(path).exists())) {
      if (rel.startsWith("/assets/")) return consoleHeaders(empty(404));
      // Console routes are client-side: every other path is the app itself.
      path = join(webRoot, "index.html");
    }
    const h = baseHeaders(rel.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache");
    h.set(H.contentType, Bun.file(path).type);
    h.set(H.vary, H.acceptEncoding);
    const accepted = acceptedEncodings(c.raw.headers.get(H.acceptEncoding) ?? "");
    let served = path;
    for (const e of ENCODINGS) {
      if (accepted.has(e.name) && (await hasFile(path + e.suffix))) {
        h.set(H.contentEncoding, e.name);
        served = path + e.suffix;
        break;
      }
    }
    return consoleHeaders(new Response(Bun.file(served), { headers: h }));
  });
  return app;
}

const redirect = (status: 301 | 302) => new Response(null, { status, headers: { [H.location]: "/ui/" } });

/** The path with its escapes decoded, or as sent where one is malformed. */
function decodedPath(raw: string): string {
  try {
    return decodeURI(raw);
  } catch {
    return raw;
  }
}

function consoleHeaders(response: Response): Response {
  const h = response.headers;
  h.set(H.contentSecurityPolicy, CONSOLE_CSP);
  h.set(H.frameOptions, "DENY");
  h.set(H.referrerPolicy, "no-referrer");
  h.set(H.openerPolicy, "same-origin");
  h.set(H.resourcePolicy, "same-origin");
  return response;
}

/** Content codings with a q above 0 (RFC 9110 §12.5.3); `*` stands for any not named. */
export function acceptedEncodings(header: string): Set<string> {
  const named = new Map<string, boolean>();
  for (const part of header.split(",")) {
    const [coding, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (!coding) continue;
    const q = params.find((p) => p.startsWith("q="));
    named.set(coding, q === undefined || Number(q.slice(2)) > 0);
  }
  const accepted = new Set<string>();
  for (const { name } of ENCODINGS) if (named.get(name) ?? named.get("*") ?? false) accepted.add(name);
  return accepted;
}

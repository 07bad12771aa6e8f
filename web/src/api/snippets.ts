// "Copy as curl" and "copy as fetch", built from the very request object that was sent
// (design.md: snippets can never drift from what was sent). A token never appears in one: the
// console's own token is sent as `Authorization: Bearer $URSA_TOKEN`, and a token typed into a
// header or an access_token parameter is shown as $URSA_TOKEN too, for the shell to fill in.
import type { ProtocolRequest } from "./types";
import { getHeader } from "./headers";
import { maskHeaderValue, maskQueryToken, TOKEN_PLACEHOLDER } from "./credentials";
import { encodeFrames } from "./frames";

export interface SnippetOptions {
  /** The console sent its bearer token with the request. */
  bearer?: boolean;
}

/** POSIX single-quote: safe for any byte string in sh/bash. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Single-quoted, except the token placeholder, which is left for the shell to expand. */
export function shellWord(s: string): string {
  const pieces = s.split(TOKEN_PLACEHOLDER);
  return pieces.map((p, i) => (p === "" && pieces.length > 1 ? "" : shellQuote(p)) + (i < pieces.length - 1 ? `"${TOKEN_PLACEHOLDER}"` : "")).join("");
}

/** A printf format that writes exactly these bytes (3-digit octal escapes are POSIX). */
export function printfBytes(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    if (b === 0x25) out += "%%";
    else if (b === 0x5c) out += "\\\\";
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, "0")}`;
  }
  return out;
}

function shownHeaders(req: ProtocolRequest, opts: SnippetOptions): [string, string][] {
  const headers = req.headers.map(([k, v]): [string, string] => [k, maskHeaderValue(k, v)]);
  if (opts.bearer && getHeader(req.headers, "authorization") === undefined) headers.push(["Authorization", `Bearer ${TOKEN_PLACEHOLDER}`]);
  return headers;
}

export function toCurl(req: ProtocolRequest, origin: string, opts: SnippetOptions = {}): string {
  const parts: string[] = ["curl", "-i"];
  // curl -X HEAD would wait for a body that never comes; --head is the real HEAD.
  if (req.method === "HEAD") parts.push("--head");
  else if (req.method !== "GET") parts.push("-X", req.method);
  parts.push(shellWord(origin + maskQueryToken(req.path)));
  for (const [k, v] of shownHeaders(req, opts)) parts.push("-H", shellWord(`${k}: ${v}`));
  const hasBody = req.frames !== undefined || req.body !== undefined;
  // --data-binary adds "Content-Type: application/x-www-form-urlencoded" unless told
  // otherwise; an empty "Content-Type:" removes it so curl sends what the console sent.
  if (hasBody && getHeader(req.headers, "content-type") === undefined) parts.push("-H", shellQuote("Content-Type:"));
  if (req.frames !== undefined) {
    // Length-framed bytes: printf writes them (the lengths are binary), curl reads them from stdin.
    parts.push("--data-binary", "@-");
    return `printf ${shellQuote(printfBytes(encodeFrames(req.frames)))} | ${parts.join(" ")}`;
  }
  if (req.body !== undefined) parts.push("--data-binary", shellQuote(req.body));
  return parts.join(" ");
}

const FRAMES_JS = [
  "const payloads = frames.map((f) => new TextEncoder().encode(f));",
  "const body = new Uint8Array(payloads.reduce((n, p) => n + 4 + p.length, 0));",
  "let at = 0;",
  "for (const p of payloads) {",
  "  new DataView(body.buffer).setUint32(at, p.length);",
  "  body.set(p, at + 4);",
  "  at += 4 + p.length;",
  "}",
];

export function toFetch(req: ProtocolRequest, origin: string, opts: SnippetOptions = {}): string {
  const lines: string[] = [];
  const headers = shownHeaders(req, opts);
  if (headers.some(([, v]) => v.includes(TOKEN_PLACEHOLDER)) || req.path.includes("access_token=")) lines.push("const URSA_TOKEN = process.env.URSA_TOKEN; // your bearer token");
  if (req.frames !== undefined) {
    lines.push(`// append-batch: each frame is a 4-byte big-endian length, then its bytes`);
    lines.push(`const frames = ${JSON.stringify(req.frames)};`, ...FRAMES_JS);
  }
  const js = (s: string) => (s.includes(TOKEN_PLACEHOLDER) ? `\`${s.replace(/[`\\]/g, "\\$&").split(TOKEN_PLACEHOLDER).join("${URSA_TOKEN}")}\`` : JSON.stringify(s));
  lines.push(`const res = await fetch(${js(origin + maskQueryToken(req.path))}, {`);
  lines.push(`  method: ${JSON.stringify(req.method)},`);
  if (headers.length) {
    lines.push("  headers: {");
    for (const [k, v] of headers) lines.push(`    ${JSON.stringify(k)}: ${js(v)},`);
    lines.push("  },");
  }
  if (req.frames !== undefined) lines.push("  body,");
  else if (req.body !== undefined) {
    // A bare string body would make fetch add "text/plain" when no Content-Type was set.
    const body = JSON.stringify(req.body);
    lines.push(getHeader(req.headers, "content-type") === undefined ? `  body: new Blob([${body}]),` : `  body: ${body},`);
  }
  lines.push("});");
  lines.push("console.log(res.status, Object.fromEntries(res.headers), await res.text());");
  return lines.join("\n");
}

/**
 * A browser's own live reader for this stream. EventSource cannot send headers, so with a token
 * it goes in ?access_token= (docs/security.md); the console itself reads over fetch with the header.
 */
export function toEventSource(origin: string, streamPath: string, opts: SnippetOptions = {}): string {
  const url = `${origin}${streamPath}?offset=now&live=sse`;
  const lines = opts.bearer
    ? ['const URSA_TOKEN = prompt("Bearer token"); // EventSource cannot send headers: the token goes in the URL', `const es = new EventSource(\`${url}&access_token=\${encodeURIComponent(URSA_TOKEN)}\`);`]
    : [`const es = new EventSource(${JSON.stringify(url)});`];
  lines.push('es.addEventListener("data", (e) => console.log("data", e.data));', 'es.addEventListener("control", (e) => console.log("control", JSON.parse(e.data)));');
  return lines.join("\n");
}

// "Copy as curl" and "copy as fetch", built from the very request object that was sent
// (design.md: snippets can never drift from what was sent).
import type { ProtocolRequest } from "./types";
import { getHeader } from "./headers";

/** POSIX single-quote: safe for any byte string in sh/bash. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function toCurl(req: ProtocolRequest, origin: string): string {
  const parts: string[] = ["curl", "-i"];
  // curl -X HEAD would wait for a body that never comes; --head is the real HEAD.
  if (req.method === "HEAD") parts.push("--head");
  else if (req.method !== "GET") parts.push("-X", req.method);
  parts.push(shellQuote(origin + req.path));
  for (const [k, v] of req.headers) parts.push("-H", shellQuote(`${k}: ${v}`));
  if (req.body !== undefined) {
    // --data-binary adds "Content-Type: application/x-www-form-urlencoded" unless told
    // otherwise; an empty "Content-Type:" removes it so curl sends what the console sent.
    if (getHeader(req.headers, "content-type") === undefined) parts.push("-H", shellQuote("Content-Type:"));
    parts.push("--data-binary", shellQuote(req.body));
  }
  return parts.join(" ");
}

export function toFetch(req: ProtocolRequest, origin: string): string {
  const lines: string[] = [];
  lines.push(`const res = await fetch(${JSON.stringify(origin + req.path)}, {`);
  lines.push(`  method: ${JSON.stringify(req.method)},`);
  if (req.headers.length) {
    lines.push("  headers: {");
    for (const [k, v] of req.headers) lines.push(`    ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
    lines.push("  },");
  }
  if (req.body !== undefined) {
    // A bare string body would make fetch add "text/plain" when no Content-Type was set.
    const body = JSON.stringify(req.body);
    lines.push(getHeader(req.headers, "content-type") === undefined ? `  body: new Blob([${body}]),` : `  body: ${body},`);
  }
  lines.push("});");
  lines.push("console.log(res.status, Object.fromEntries(res.headers), await res.text());");
  return lines.join("\n");
}

// GET {stream}/bootstrap (Ursula): the stream's snapshot and the messages after it, in one
// multipart/mixed answer. Part 1 is the snapshot (an empty application/octet-stream part when
// there is none); every later part is one message (on a JSON stream, one JSON value). When the
// answer stops short (it carries at most 8 MiB of messages) Stream-Up-To-Date is absent and
// reading goes on, with ordinary reads, from Stream-Next-Offset. Copy this file with http.ts.

import { HEADER, UnexpectedResponse } from "./http.ts";

export interface Bootstrap {
  /** null when the stream has no snapshot (Stream-Snapshot-Offset: -1). */
  snapshot: { offset: string; digest: string; contentType: string; bytes: Uint8Array } | null;
  /** The messages after the snapshot (or after the retained floor, without one), in order. */
  messages: Uint8Array[];
  /** Where ordinary reads continue. */
  nextOffset: string;
  upToDate: boolean;
  incarnation: string | null;
}

export async function bootstrap(streamUrl: string, headers: Record<string, string> = {}): Promise<Bootstrap> {
  const res = await fetch(`${streamUrl}/bootstrap`, { headers });
  if (res.status !== 200) throw await UnexpectedResponse.from(`GET ${streamUrl}/bootstrap`, res);
  const boundary = /boundary=([^;\s]+)/.exec(res.headers.get(HEADER.contentType) ?? "")?.[1];
  if (!boundary) throw new Error(`GET ${streamUrl}/bootstrap: no multipart boundary`);
  const parts = parseMultipart(new Uint8Array(await res.arrayBuffer()), boundary);
  const [first, ...messages] = parts;
  if (!first) throw new Error(`GET ${streamUrl}/bootstrap: no snapshot part`);
  const offset = res.headers.get(HEADER.snapshotOffset)!;
  return {
    snapshot: offset === "-1" ? null : { offset, digest: res.headers.get(HEADER.snapshotDigest) ?? "", contentType: first.contentType, bytes: first.body },
    messages: messages.map((p) => p.body),
    nextOffset: res.headers.get(HEADER.nextOffset)!,
    upToDate: res.headers.get(HEADER.upToDate) === "true",
    incarnation: res.headers.get(HEADER.incarnation),
  };
}

/**
 * Splits a multipart/mixed body (RFC 2046) into its parts, byte for byte: a payload may hold CR,
 * LF and dashes, so parts are found by the delimiter CRLF "--" boundary, never by lines.
 */
export function parseMultipart(body: Uint8Array, boundary: string): { contentType: string; body: Uint8Array }[] {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.length);
  const open = Buffer.from(`--${boundary}\r\n`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  if (!buf.subarray(0, open.length).equals(open)) throw new Error("multipart body does not start with its boundary");
  const parts: { contentType: string; body: Uint8Array }[] = [];
  let at = open.length;
  for (;;) {
    const headerEnd = buf.indexOf("\r\n\r\n", at);
    if (headerEnd < 0) throw new Error("multipart part without a blank line after its headers");
    const headers = buf.subarray(at, headerEnd).toString("latin1");
    const contentType = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? "text/plain";
    const end = buf.indexOf(delimiter, headerEnd + 4);
    if (end < 0) throw new Error("multipart part without a closing boundary");
    parts.push({ contentType, body: body.subarray(headerEnd + 4, end) });
    const after = end + delimiter.length;
    if (buf.subarray(after, after + 2).toString("latin1") === "--") return parts;
    at = after + 2;
  }
}

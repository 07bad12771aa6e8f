// Request bodies, with the size limit enforced while the body streams in (spec §2.0), so a
// chunked upload cannot grow past it either.

import { fail, ok, type Parsed } from "../protocol/errors";

const EMPTY = new Uint8Array(0);

/**
 * The client closed the connection or broke the chunked framing before the body was whole: its
 * fault, not ours, and nothing of it is committed.
 */
const cutShort = () => fail<Uint8Array>("BAD_REQUEST", "the request body ended before it was complete");

export async function readBody(req: Request, maxBytes: number): Promise<Parsed<Uint8Array>> {
  const tooLarge = () => fail<Uint8Array>("PAYLOAD_TOO_LARGE", `request body is larger than ${maxBytes} bytes`);
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > maxBytes) return tooLarge();
    // Straight to bytes: touching req.body first would build a stream object for nothing.
    let bytes: ArrayBuffer;
    try {
      bytes = await req.arrayBuffer();
    } catch {
      return cutShort();
    }
    return bytes.byteLength > maxBytes ? tooLarge() : ok(new Uint8Array(bytes));
  }
  if (req.body === null) return ok(EMPTY);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel();
        return tooLarge();
      }
      parts.push(value);
    }
  } catch {
    return cutShort();
  }
  if (parts.length === 1) return ok(parts[0]!);
  const body = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return ok(body);
}

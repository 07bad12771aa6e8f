// An append-batch body (spec §2.10): each payload behind its u32 big-endian length.

export function frames(payloads: (string | Uint8Array)[]): Uint8Array {
  const bytes = payloads.map((p) => (typeof p === "string" ? new TextEncoder().encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + 4 + b.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const b of bytes) {
    view.setUint32(at, b.length);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

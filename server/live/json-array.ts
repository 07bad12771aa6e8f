// Stored JSON messages each end in LF; the array representation (spec §4.2) swaps each LF for a
// comma, the last for `]`, and prefixes `[`, so it is built with one copy.

const textDecoder = new TextDecoder();

export function jsonArrayBytes(messages: Uint8Array[]): Uint8Array {
  if (messages.length === 0) return new Uint8Array([0x5b, 0x5d]);
  let size = 1;
  for (const m of messages) size += m.length;
  const out = new Uint8Array(size);
  out[0] = 0x5b;
  let at = 1;
  for (const m of messages) {
    out.set(m, at);
    at += m.length;
    out[at - 1] = 0x2c;
  }
  out[size - 1] = 0x5d;
  return out;
}

export function jsonArrayText(messages: Uint8Array[]): string {
  return textDecoder.decode(jsonArrayBytes(messages));
}

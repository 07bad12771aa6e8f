// The append-batch body (docs/api.md, POST …/append-batch): each frame is a 4-byte big-endian
// length, then that many bytes. The console builds batches from frames a person edits as text,
// so a frame is its UTF-8 bytes; the answer is one ack per frame, in order.

const utf8 = new TextEncoder();

/** The limits the server enforces on one batch (413 beyond them). */
export const MAX_FRAMES = 512;

export function encodeFrames(frames: readonly string[]): Uint8Array {
  const payloads = frames.map((f) => utf8.encode(f));
  const out = new Uint8Array(payloads.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of payloads) {
    view.setUint32(at, p.length, false);
    out.set(p, at + 4);
    at += 4 + p.length;
  }
  return out;
}

/** The frames of a batch body; throws on a cut-off frame, as the server answers 400 to one. */
export function decodeFrames(body: Uint8Array): Uint8Array[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const frames: Uint8Array[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 4 > body.length) throw new Error(`a frame length is cut off at byte ${at}`);
    const len = view.getUint32(at, false);
    if (at + 4 + len > body.length) throw new Error(`frame ${frames.length + 1} declares ${len} bytes; ${body.length - at - 4} follow`);
    frames.push(body.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return frames;
}

export function frameSize(frame: string): number {
  return utf8.encode(frame).length;
}

/** One entry of the 200 answer: what happened to that frame. */
export interface FrameAck {
  status: number;
  stream_next_offset?: string;
  error_code?: string;
  error?: string;
  stream_closed?: boolean;
}

/** The acks of a 200 answer, or null when the body is not a list of acks (a 204, an error). */
export function parseAcks(bodyText: string): FrameAck[] | null {
  if (!bodyText.startsWith("[")) return null;
  try {
    const v = JSON.parse(bodyText) as unknown;
    if (!Array.isArray(v) || !v.every((a) => typeof a === "object" && a !== null && typeof (a as FrameAck).status === "number")) return null;
    return v as FrameAck[];
  } catch {
    return null;
  }
}

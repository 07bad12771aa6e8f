// multipart/mixed framing for bootstrap (spec §2.18, RFC 2046): every part is
// `--b CRLF Content-Type: t CRLF CRLF payload CRLF`, the body ends `--b-- CRLF`, with no preamble
// or epilogue. The boundary is random (128 bits) and must not occur in any payload.

const encoder = new TextEncoder();

/** Every boundary starts so; a snapshot records at publish whether its bytes contain it. */
export const BOUNDARY_PREFIX = "ursa-bootstrap-";

export function randomBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return BOUNDARY_PREFIX + Buffer.from(bytes).toString("hex");
}

export function partHead(boundary: string, contentType: string): Uint8Array {
  return encoder.encode(`--${boundary}\r\nContent-Type: ${contentType}\r\n\r\n`);
}

export const PART_END = encoder.encode("\r\n");

export function closeDelimiter(boundary: string): Uint8Array {
  return encoder.encode(`--${boundary}--\r\n`);
}

/** Whether `needle` occurs in bytes fed piece by piece, across the seams between pieces too. */
export class NeedleScanner {
  private tail = new Uint8Array(0);
  found = false;

  constructor(private readonly needle: Uint8Array) {}

  feed(piece: Uint8Array): void {
    if (this.found || piece.length === 0) return;
    const n = this.needle.length;
    // Across the seam: the end of what came before, joined to the start of this piece.
    if (this.tail.length > 0) {
      const seam = new Uint8Array(this.tail.length + Math.min(piece.length, n - 1));
      seam.set(this.tail);
      seam.set(piece.subarray(0, seam.length - this.tail.length), this.tail.length);
      if (Buffer.from(seam.buffer, seam.byteOffset, seam.length).indexOf(this.needle) >= 0) return void (this.found = true);
    }
    if (Buffer.from(piece.buffer, piece.byteOffset, piece.length).indexOf(this.needle) >= 0) return void (this.found = true);
    const keep = Math.min(n - 1, piece.length);
    const joined = new Uint8Array(Math.min(n - 1, this.tail.length + piece.length));
    // What may still begin a match: the last n-1 bytes seen.
    const fromTail = joined.length - keep;
    joined.set(this.tail.subarray(this.tail.length - fromTail));
    joined.set(piece.subarray(piece.length - keep), fromTail);
    this.tail = joined;
  }
}

/** Whether a payload held whole contains `needle`. */
export function contains(payload: Uint8Array, needle: Uint8Array): boolean {
  return Buffer.from(payload.buffer, payload.byteOffset, payload.length).indexOf(needle) >= 0;
}


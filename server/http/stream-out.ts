// Large response bodies (a snapshot, a bootstrap), pulled a piece at a time as the client takes
// them, so a 128 MiB snapshot is never held whole: one piece is read ahead while the previous one
// is being written. And catch-up bodies, written out piece by piece (piecesOut).

import { concat } from "../live/sse-payload";

/** `release` runs once: when the body has been written whole, the client has gone, or it failed. */
export function streamOut(pieces: AsyncIterator<Uint8Array>, release: () => void, signal: AbortSignal): ReadableStream<Uint8Array> {
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    release();
  };
  signal.addEventListener("abort", done, { once: true });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await pieces.next();
        if (next.done) {
          done();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel: done,
  });
}

/** Pieces of at least this size are written as they are; smaller ones are first joined up to it. */
const WRITE_BYTES = 256 * 1024;

/**
 * A body of pieces already in memory (a catch-up's rows), written to the socket one by one with
 * Bun's direct stream: no copy into one array first, and each write that meets a full socket
 * waits for it to drain. Rows smaller than WRITE_BYTES are joined into writes of about that size.
 */
export function piecesOut(pieces: Uint8Array[]): ReadableStream<Uint8Array> | Uint8Array {
  if (pieces.length <= 1) return pieces[0] ?? new Uint8Array(0);
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      let group: Uint8Array[] = [];
      let grouped = 0;
      const write = async (piece: Uint8Array) => (await controller.write(piece)) !== 0;
      for (const piece of pieces) {
        if (piece.length >= WRITE_BYTES && group.length === 0) {
          // The client has gone: nothing more to write.
          if (!(await write(piece))) return;
          continue;
        }
        group.push(piece);
        grouped += piece.length;
        if (grouped < WRITE_BYTES) continue;
        if (!(await write(concat(group)))) return;
        group = [];
        grouped = 0;
      }
      if (group.length > 0) await write(concat(group));
      controller.close();
    },
  }) as unknown as ReadableStream<Uint8Array>;
}


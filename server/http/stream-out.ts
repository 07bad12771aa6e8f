// Large response bodies (a snapshot, a bootstrap), pulled a piece at a time as the client takes
// them, so a 128 MiB snapshot is never held whole: one piece is read ahead while the previous one
// is being written.

/** `release` runs once: when the body has been written whole, the client has gone, or it failed. */
export function streamOut(pieces: Iterator<Uint8Array>, release: () => void, signal: AbortSignal): ReadableStream<Uint8Array> {
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    release();
  };
  signal.addEventListener("abort", done, { once: true });
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        const next = pieces.next();
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

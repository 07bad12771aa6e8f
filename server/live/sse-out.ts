// An SSE response's events, written straight to the socket through Bun's direct stream. With 1,000
// subscribers every event is written 1,000 times, and a ReadableStream's enqueue, its queue and
// its pull round trip cost about a quarter of the event loop there (docs/design/live-fan-out.md);
// a direct write is one call into the socket's sink.
//
// A write the socket cannot take whole returns a promise, and the sink holds the rest: the
// session sends nothing more until it settles, so at most one event waits unsent however far
// behind the client is. A write of 0 bytes, or the response's cancel, means the client has gone.

/** What Bun's direct stream hands `pull`. */
export interface DirectSink {
  write(bytes: string | Uint8Array): number | Promise<number>;
  close(): void;
}

export class SseOut {
  private pending: Promise<void> | null = null;

  constructor(
    private readonly sink: DirectSink,
    private readonly gone: () => void,
  ) {}

  /** Whether the client has yet to take the last event written. */
  get busy(): boolean {
    return this.pending !== null;
  }

  send(event: string | Uint8Array): void {
    const written = this.sink.write(event);
    if (typeof written === "number") {
      if (written === 0) this.gone();
      return;
    }
    const pending: Promise<void> = written.then(
      (n) => {
        if (this.pending === pending) this.pending = null;
        if (n === 0) this.gone();
      },
      () => this.gone(),
    );
    this.pending = pending;
  }

  /** Resolves once the client has taken every event written, after a turn of the loop at least, so a catch-up yields to other requests. */
  async room(): Promise<void> {
    if (this.pending !== null) await this.pending;
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// The event loop's side of the snapshot read thread (snapshot-read-thread.ts): a chunk is asked
// for and arrives as a promise, its buffer moved here, not copied.

import type { ChunkAnswer, ChunkRequest, SnapshotReadClose, SnapshotReadStart } from "./snapshot-read-thread";
import { ThreadClose } from "./thread-close";

/** A chunk read that failed on the thread, with SQLite's error code where there was one. */
export class ChunkReadError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export class SnapshotReads {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (data: Uint8Array) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private readonly closing = new ThreadClose();

  constructor(url: URL, path: string) {
    this.worker = new Worker(url);
    this.worker.onmessage = (event: MessageEvent<ChunkAnswer | { closed: true }>) => {
      const m = event.data;
      if ("closed" in m) {
        this.closing.closed();
        return;
      }
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if ("data" in m) w.resolve(m.data);
      else w.reject(new ChunkReadError(m.error, m.code));
    };
    // An idle thread must not keep the process alive; one with reads outstanding does (chunk).
    this.worker.unref();
    this.worker.postMessage({ path } satisfies SnapshotReadStart);
  }

  chunk(blobId: number, seq: number): Promise<Uint8Array> {
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise<Uint8Array>((resolve, reject) => {
      const settled = () => {
        if (this.waiting.size === 0) this.worker.unref();
      };
      this.waiting.set(id, {
        resolve: (data) => (resolve(data), settled()),
        reject: (error) => (reject(error), settled()),
      });
      this.worker.postMessage({ id, blobId, seq } satisfies ChunkRequest);
    });
  }

  /** Lets the thread close its connection, then ends it; reads still out fail. */
  async close(): Promise<void> {
    await this.closing.end(this.worker, { close: true } satisfies SnapshotReadClose);
    for (const w of this.waiting.values()) w.reject(new Error("the store is closed"));
    this.waiting.clear();
  }
}

// Ending a thread that holds a SQLite connection (checkpoints.ts, snapshot-reads.ts). The thread
// is asked to close its connection first: terminated with it open, the connection's locks stay
// with the process, the store's own close is then not the last connection, and SQLite leaves the
// WAL behind for the next start to recover (which a full disk may not allow).

/** How long a thread is given to close its connection; a loaded machine can take over a second. */
const CLOSE_WAIT_MS = 5000;

export class ThreadClose {
  private done: (() => void) | undefined;

  /** The thread says its connection is closed. */
  closed(): void {
    this.done?.();
  }

  /** Posts `request`, waits for `closed` (at most CLOSE_WAIT_MS), then ends the thread. */
  async end(worker: Worker, request: unknown): Promise<void> {
    await new Promise<void>((resolve) => {
      const timeout = setTimeout(resolve, CLOSE_WAIT_MS);
      this.done = () => {
        clearTimeout(timeout);
        resolve();
      };
      worker.postMessage(request);
    });
    await worker.terminate();
  }
}

// What an operator sees of an engine's group commit (ops/server-metrics.ts): sizes and times.

export interface CommitObserver {
  /** A transaction committed: how many writes it held, and BEGIN to COMMIT, in seconds. */
  batch(writes: number, seconds: number): void;
  /** One sync of the log (SQLite's WAL), on the event loop or off it, in seconds. */
  sync(seconds: number): void;
}

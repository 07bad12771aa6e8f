// Where a transaction's ops go to be committed. On disk, a worker thread commits them (and, in
// full mode, syncs) while the event loop goes on deciding the next writes; only one transaction
// is in flight at a time, and everything decided meanwhile rides in the next one. In memory,
// there is no disk to wait for, so the ops are applied inline.

import type { Database } from "bun:sqlite";
import type { FromWorker, ToWorker } from "./commit-worker";
import { SqlWriter, type SqlOp } from "./sql-ops";

export interface CommitSink {
  /** Resolves once `ops` are committed (durable, in full mode); sinks commit in call order. */
  commit(ops: SqlOp[]): Promise<void>;
  close(): Promise<void>;
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

export class InlineSink implements CommitSink {
  private readonly writer: SqlWriter;
  constructor(db: Database, private readonly onFailure: (error: Error) => void) {
    this.writer = new SqlWriter(db);
  }
  commit(ops: SqlOp[]): Promise<void> {
    try {
      this.writer.transaction(ops);
      return Promise.resolve();
    } catch (error) {
      this.onFailure(error as Error);
      return Promise.reject(error);
    }
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export class WorkerSink implements CommitSink {
  private readonly worker: Worker;
  private seq = 0;
  private inFlight: Waiter[] | null = null;
  private queuedOps: SqlOp[] = [];
  private queued: Waiter[] = [];
  private closed: (() => void) | null = null;

  /**
   * `onFailure` runs before any waiter is rejected: a failed transaction invalidates every write
   * decided after it, so the store must forget them before anything new is decided.
   */
  constructor(path: string, sync: "full" | "normal", workerUrl: URL, private readonly onFailure: (error: Error) => void) {
    this.worker = new Worker(workerUrl);
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => this.onMessage(event.data);
    this.worker.onerror = (event) => {
      console.error("ursa: the commit thread crashed; stopping:", event.message);
      process.exit(70);
    };
    this.post({ type: "open", path, sync });
  }

  commit(ops: SqlOp[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      for (const op of ops) this.queuedOps.push(op);
      this.queued.push({ resolve, reject });
      this.pump();
    });
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.closed = resolve;
      this.post({ type: "close" });
    });
  }

  private post(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  private pump(): void {
    if (this.inFlight !== null || this.queued.length === 0) return;
    this.inFlight = this.queued;
    const ops = this.queuedOps;
    this.queued = [];
    this.queuedOps = [];
    this.post({ type: "commit", seq: ++this.seq, ops });
  }

  private onMessage(msg: FromWorker): void {
    if (msg.type === "closed") {
      this.worker.terminate();
      this.closed?.();
      return;
    }
    const waiters = this.inFlight!;
    this.inFlight = null;
    if (msg.type === "committed") {
      for (const w of waiters) w.resolve();
      this.pump();
      return;
    }
    const error = new Error(`commit failed: ${msg.error}`);
    const decidedAfter = this.queued;
    this.queued = [];
    this.queuedOps = [];
    this.onFailure(error);
    for (const w of [...waiters, ...decidedAfter]) w.reject(error);
  }
}

// What one transaction wrote to the message log (message-log.ts), collected in its Batch and
// applied to the log only once the transaction has committed, so a rollback needs no undo.

import type { LogEntry } from "./recent-messages";

/** What one transaction wrote to the log; applied to MessageLog when it commits. */
export class LogWrites {
  /** The messages written, each on its own (a JSON append's share one row, json-rows.ts). */
  readonly entries: LogEntry[] = [];
  /**
   * The rows not inserted yet: `rowParams` holds their parameters, and `rowGuarded` says for each
   * whether it has the guard columns (GUARDED_PARAMS) or not.
   */
  readonly rowParams: (string | number | Uint8Array | null)[] = [];
  readonly rowGuarded: boolean[] = [];
  /** Streams and producers whose rows are behind the log: stream id → path key, and → producer ids. */
  readonly streams = new Map<number, string>();
  readonly producers = new Map<number, Set<string>>();
  /** Set once this transaction materializes: every log row up to this id is indexed. */
  materializedUpTo: number | null = null;
  /** Deleted streams: their held messages go at commit, their rows step by step (dropStep). */
  readonly deleted: number[] = [];
  /** Bytes appended to each byte stream (segment-tiering.ts moves sealed runs of them to files). */
  readonly byteStreamBytes = new Map<number, number>();
}

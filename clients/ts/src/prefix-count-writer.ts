// Ursula v0.9.0, Conditional Writes, "Prefix-count compare-and-set": several writers extend one
// application/json log, and each commit is validated against the whole log before it. Every
// commit is appended with Stream-Seq = n, the number of events the writer has read. The stream
// keeps the last accepted value, which is always the event count before the latest commit, so a
// count beats it only when the writer has read the latest commit: an accepted append proves the
// writer saw the whole log, and of two writers sending the same count one wins and the other gets
// 409, reads on and decides again.
//
// The rules the writer cannot enforce alone, your deployment must:
//  - step 1, "Every writer, every append": every append to the stream carries a prefix-count
//    Stream-Seq. An append without one is not checked and leaves the stored value alone.
//  - step 1: create the stream with a PUT without Stream-Seq (UrsaStream.create never sends one).
//  - step 3: n counts every event since the stream was created. Once retention trims the start,
//    count on from a snapshot that keeps the count (compaction.ts), or never trim.

import { OutcomeUnknown, StreamGone, StreamSeqConflict, UrsaError } from "./errors.js";
import { padSeq, STREAM_START } from "./headers.js";
import { UrsaStream, type ClientOptions } from "./stream.js";

/**
 * 128 random bits as hex. crypto.getRandomValues, unlike crypto.randomUUID, also exists on pages
 * that are not a secure context.
 */
function newOperationId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface LogView {
  /** The number of events in the stream before the commit being decided. */
  readonly n: number;
  /**
   * The events this writer has read, oldest first: all of them, or, for a writer that counts on
   * from a snapshot, those after it (then `n - events.length` is the snapshot's count).
   */
  readonly events: readonly unknown[];
  /**
   * This commit's operation ID, the same on every attempt. Put it in the events and give the
   * writer `operationIdOf`, and a commit whose answer was lost is looked for before it is retried.
   */
  readonly operationId: string;
}

/** Decides the commit from the log read so far: validate, and return at least one event. Throw to give up. */
export type Decide = (log: LogView) => unknown[];

export interface Attempt {
  /** The Stream-Seq sent. */
  streamSeq: string;
  /** accepted: 2xx. conflict: 409 with Stream-Last-Seq. lost: no answer. */
  outcome: "accepted" | "conflict" | "lost";
  lastSeq?: string;
}

export interface Committed {
  /** The Stream-Seq the commit was accepted with: the number of events before it. */
  n: number;
  /** The tail after the commit (null when it was confirmed by reading it back). */
  nextOffset: string | null;
  /** Events in the commit. */
  size: number;
  operationId: string;
  attempts: Attempt[];
}

/** maxAttempts Stream-Seq conflicts in a row: nothing of the commit is in the log. */
export class RetriesExhausted extends UrsaError {
  constructor(
    message: string,
    readonly attempts: Attempt[],
    readonly lastConflict: StreamSeqConflict,
  ) {
    super(message, 409, "STREAM_SEQ_CONFLICT", lastConflict.headers, lastConflict);
  }
}

export interface PrefixCountWriterOptions extends ClientOptions {
  /** Give up (RetriesExhausted) after this many attempts of one commit. Default 100. */
  maxAttempts?: number;
  /**
   * Where to count on from instead of offset -1: a snapshot's count, the events after it already
   * read, and the offset after them (resumeFromSnapshot fills it in).
   */
  start?: { count: number; events?: unknown[]; offset: string };
  /** Reads an event's operation ID; with it, a commit whose answer was lost is found, not doubled. */
  operationIdOf?: (event: unknown) => string | undefined;
}

export class PrefixCountWriter {
  readonly stream: UrsaStream;
  private readonly maxAttempts: number;
  private readonly operationIdOf: ((event: unknown) => string | undefined) | undefined;
  private readonly seen: unknown[] = [];
  private offset: string;
  /** Events before seen[0], known from a snapshot rather than read. */
  private readonly base: number;

  constructor(stream: string | UrsaStream, options: PrefixCountWriterOptions = {}) {
    this.stream = typeof stream === "string" ? new UrsaStream(stream, options) : stream;
    this.maxAttempts = options.maxAttempts ?? 100;
    this.operationIdOf = options.operationIdOf;
    this.offset = options.start?.offset ?? STREAM_START;
    this.base = options.start?.count ?? 0;
    this.seen.push(...(options.start?.events ?? []));
  }

  /** n as last read: every event before the tail this writer has read to. */
  get n(): number {
    return this.base + this.seen.length;
  }

  /** The events read so far (see LogView.events). */
  get events(): readonly unknown[] {
    return this.seen;
  }

  /** Where the next read continues: the tail this writer last read to, a commit boundary. */
  get nextOffset(): string {
    return this.offset;
  }

  /**
   * Ursula v0.9.0, Conditional Writes, prefix-count step 3, "Read to the tail": from where this
   * writer stopped, with consistency=leader, following Stream-Next-Offset until Stream-Up-To-Date:
   * true. Returns the k new events. Never a single capped response: a read cut short by max_bytes
   * "can stop inside a commit". Throws StreamGone when retention trimmed past this writer.
   */
  async readOn(): Promise<unknown[]> {
    const read = await this.stream.readToTail(this.offset);
    this.seen.push(...read.messages);
    this.offset = read.nextOffset;
    return read.messages;
  }

  /**
   * Appends one commit decided by `decide`, validated against everything before it.
   * Ursula v0.9.0, Conditional Writes, prefix-count steps 3-5: read to the tail and count n;
   * validate; append with Stream-Seq n zero-padded ("On a new stream, the first commit sends 0");
   * on a Stream-Seq 409 "read on from where you stopped until Stream-Up-To-Date: true, count the k
   * new events, validate again, and retry with n + k". Sends n, the count *before* the commit, never
   * the count after it: "Do not send the count after your own commit … That is not a
   * compare-and-set." Any other refusal (a 409 with no Stream-Last-Seq, a 412, …) is thrown, never
   * retried. Returns `{ n, nextOffset }`.
   */
  async commit(decide: Decide): Promise<Committed> {
    const operationId = newOperationId();
    const attempts: Attempt[] = [];
    // Events read before the first lost attempt: from there on the log may hold this commit.
    let lostFrom: number | null = null;
    for (;;) {
      try {
        await this.readOn();
      } catch (error) {
        // Trimmed past this writer after an answer was lost: whether that attempt landed can no
        // longer be read, so counting on from a snapshot and retrying could write it twice.
        if (error instanceof StreamGone && lostFrom !== null) {
          throw new OutcomeUnknown(`commit ${operationId}: retention trimmed the stream before the lost attempt could be looked for`, error);
        }
        throw error;
      }
      if (lostFrom !== null) {
        const found = this.find(operationId, lostFrom);
        if (found) return { n: this.base + found.position, nextOffset: null, size: found.size, operationId, attempts };
      }
      const n = this.n;
      // Step 4: "Validate the commit against what you read". Step 5: "validate again".
      const events = decide({ n, events: this.seen, operationId });
      // Step 2: "Never append an empty commit": it would store n without adding an event, and
      // the stored value would no longer be the count before the latest commit.
      if (events.length === 0) throw new RangeError("never append an empty commit");
      const streamSeq = padSeq(n);
      try {
        // Step 2: "POST the commit as a JSON array: the elements are committed together".
        const ack = await this.stream.append(events, { streamSeq, contentType: "application/json" });
        attempts.push({ streamSeq, outcome: "accepted" });
        return { n, nextOffset: ack.nextOffset, size: events.length, operationId, attempts };
      } catch (error) {
        if (error instanceof StreamSeqConflict) {
          // Step 5: "Another writer committed first." Nothing of this attempt was committed.
          attempts.push({ streamSeq, outcome: "conflict", lastSeq: error.lastSeq });
          if (attempts.length >= this.maxAttempts) {
            if (lostFrom !== null) {
              // An earlier lost attempt may have landed: one more read says whether it did.
              await this.readOn();
              const found = this.find(operationId, lostFrom);
              if (found) return { n: this.base + found.position, nextOffset: null, size: found.size, operationId, attempts };
            }
            throw new RetriesExhausted(`commit ${operationId}: ${attempts.length} attempts, each answered 409 (Stream-Last-Seq ${error.lastSeq})`, attempts, error);
          }
          continue;
        }
        if (error instanceof UrsaError) throw error;
        // No answer (network error or timeout): it may or may not have committed.
        attempts.push({ streamSeq, outcome: "lost" });
        if (!this.operationIdOf) {
          throw new OutcomeUnknown(`commit ${operationId}: no answer to the append with Stream-Seq ${streamSeq}; read on and look for the commit before deciding it again`, error);
        }
        lostFrom ??= this.seen.length;
      }
    }
  }

  /** Where this commit's events are among those read, at or after event `from`. */
  private find(operationId: string, from: number): { position: number; size: number } | null {
    const of = this.operationIdOf!;
    for (let i = from; i < this.seen.length; i++) {
      if (of(this.seen[i]) !== operationId) continue;
      let size = 0;
      while (i + size < this.seen.length && of(this.seen[i + size]) === operationId) size++;
      return { position: i, size };
    }
    return null;
  }
}

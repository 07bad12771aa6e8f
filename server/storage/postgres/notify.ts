// Live reads across instances: each commit that changes streams sends, inside its transaction,
// NOTIFYs naming the streams (delivered only if it commits, and only after). A payload is a
// wake-up, never data: the sending instance, then each stream's row id and path key, as many
// streams to a payload as fit PostgreSQL's 8,000 bytes: one per commit, not one per stream, since
// every listening connection, this instance's own included, reads and forwards each payload
// (design: docs/design/pg-group-apply.md). This instance LISTENs on one dedicated connection
// (Bun's client keeps it and re-LISTENs after a reconnect) and tells the others' as "touched".
// Its own are not told (its commits are told directly); each carries a mark, and hearing it back
// says the LISTEN has received everything that committed before it (caughtUp).
//
// A notification sent while the listening connection was down is lost, however long it was down.
// When the LISTEN is back, every live reader of this instance re-reads its stream (the store's
// onMissedChanges): one whose stream changed meanwhile is answered, the others wait on. Nothing
// is missed: a commit before the new LISTEN is seen by that re-read, one after it is notified.

import type { SQL } from "bun";
import { randomUUID } from "node:crypto";
import { changedStream, type StreamChange } from "../store";
import type { TxSql } from "./group-commit";

export const CHANNEL = "ursa_streams";
/** Below PostgreSQL's limit of 8,000 bytes per payload, with room for the brackets. */
const MAX_PAYLOAD_BYTES = 7900;
/** In place of a payload's mark: the subscriptions changed (subscriptions-table.ts). */
const SUBSCRIPTIONS = "subscriptions";

/** How long a wait for this instance's own wake-ups may take before they are taken as lost. */
const CATCH_UP_MS = 1000;
/** Marks back before their commit was reported are a handful at a time; more are ones given up on. */
const MAX_EARLY = 4096;

export class Notifier {
  private readonly instance = randomUUID();
  private subscription: SQL.ListenSubscription | undefined;
  private listens = 0;
  private marks = 0;
  /** Marks of committed transactions whose wake-ups have not come back yet. */
  private readonly outstanding = new Set<number>();
  /** Marks that came back before their commit was reported. */
  private readonly early = new Set<number>();
  private waiters: { marks: Set<number>; done: (complete: boolean) => void }[] = [];

  constructor(
    private readonly sql: SQL,
    private readonly woken: (id: number, key: string) => void,
    /** The LISTEN is back after its connection dropped. */
    private readonly relistened: () => void,
    /** An instance, this one or another, changed the subscriptions. */
    private readonly subscriptionsChanged: () => void,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.sql.listen(
      CHANNEL,
      (payload) => this.received(payload),
      () => {
        if (this.listens++ === 0) return;
        this.release();
        this.relistened();
      },
    );
  }

  private received(payload: string): void {
    let entries: unknown;
    try {
      entries = JSON.parse(payload);
    } catch {
      return;
    }
    if (!Array.isArray(entries)) return;
    if (entries[1] === SUBSCRIPTIONS) return this.subscriptionsChanged();
    if (entries[0] === this.instance) return this.cameBack(entries[1]);
    for (let i = 2; i + 1 < entries.length; i += 2) {
      const [id, key] = [entries[i], entries[i + 1]];
      if (Number.isSafeInteger(id) && typeof key === "string") this.woken(id as number, key);
    }
  }

  /**
   * The payloads that wake other instances' readers of `streams`, as few as fit the size limit,
   * and their mark: report it to `committed` once their transaction has committed.
   */
  wakeUps(streams: Iterable<{ id: number; key: string }>): { mark: number | null; payloads: string[] } {
    const mark = ++this.marks;
    const head = `${JSON.stringify(this.instance)},${mark}`;
    const out: string[] = [];
    let entries: string[] = [];
    let bytes = head.length;
    const seen = new Set<number>();
    for (const { id, key } of streams) {
      if (seen.has(id)) continue;
      seen.add(id);
      const entry = `${id},${JSON.stringify(key)}`;
      const size = Buffer.byteLength(entry) + 1;
      if (entries.length > 0 && bytes + size > MAX_PAYLOAD_BYTES) {
        out.push(`[${head},${entries.join(",")}]`);
        entries = [];
        bytes = head.length;
      }
      entries.push(entry);
      bytes += size;
    }
    if (entries.length > 0) out.push(`[${head},${entries.join(",")}]`);
    return { mark: out.length > 0 ? mark : null, payloads: out };
  }

  /** The wake-ups for the streams the transaction changed; returns their mark. */
  async send(sql: TxSql, changes: StreamChange[]): Promise<number | null> {
    if (changes.length === 0) return null;
    const { mark, payloads } = this.wakeUps(changes.map(changedStream));
    await sql`SELECT pg_notify(${CHANNEL}, p) FROM unnest(${payloads}::text[]) AS p`;
    return mark;
  }

  /** The payload that tells every instance the subscriptions changed. */
  subscriptionsPayload(): string {
    return JSON.stringify([this.instance, SUBSCRIPTIONS]);
  }

  /** The transaction that sent `mark`'s wake-ups committed. */
  committed(mark: number | null): void {
    if (mark === null) return;
    if (!this.early.delete(mark)) this.outstanding.add(mark);
  }

  /**
   * Resolves once this instance's LISTEN has received the wake-ups of every commit reported so
   * far: notifications arrive in commit order, so every one that committed before them (another
   * instance's change of the subscriptions) has then been received too. Resolves false when it
   * cannot tell (the wait ran past CATCH_UP_MS, or the LISTEN was lost): nothing received may
   * then be trusted to be complete.
   */
  caughtUp(): Promise<boolean> {
    if (this.outstanding.size === 0) return Promise.resolve(this.listens > 0);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        for (const mark of waiter.marks) this.outstanding.delete(mark);
        resolve(false);
      }, CATCH_UP_MS);
      const waiter = {
        marks: new Set(this.outstanding),
        done: (complete: boolean) => {
          clearTimeout(timer);
          resolve(complete);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private cameBack(mark: unknown): void {
    if (typeof mark !== "number") return;
    // A mark whose wait timed out may still come back: never reported, it is dropped with the rest.
    if (!this.outstanding.delete(mark) && this.early.add(mark).size > MAX_EARLY) this.early.clear();
    this.waiters = this.waiters.filter((w) => {
      w.marks.delete(mark);
      if (w.marks.size > 0) return true;
      w.done(true);
      return false;
    });
  }

  /** Wake-ups sent while the LISTEN was down are lost: nobody waits for them any more. */
  private release(): void {
    this.outstanding.clear();
    this.early.clear();
    for (const w of this.waiters) w.done(false);
    this.waiters = [];
  }

  async stop(): Promise<void> {
    await this.subscription?.unlisten();
  }
}

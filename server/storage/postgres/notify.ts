// Live reads across instances: each commit that changes streams sends, inside its transaction,
// NOTIFYs naming the streams (delivered only if it commits, and only after). A payload is a
// wake-up, never data: the sending instance, then each stream's row id and path key, as many
// streams to a payload as fit PostgreSQL's 8,000 bytes: one per commit, not one per stream, since
// every listening connection, this instance's own included, reads and forwards each payload
// (design: docs/design/pg-group-apply.md). This instance LISTENs on
// one dedicated connection (Bun's client keeps it and re-LISTENs after a reconnect), ignores its
// own notifications (its commits are told directly), and tells the others as "touched".
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

export class Notifier {
  private readonly instance = randomUUID();
  private subscription: SQL.ListenSubscription | undefined;
  private listens = 0;

  constructor(
    private readonly sql: SQL,
    private readonly woken: (id: number, key: string) => void,
    /** The LISTEN is back after its connection dropped. */
    private readonly relistened: () => void,
  ) {}

  async start(): Promise<void> {
    this.subscription = await this.sql.listen(
      CHANNEL,
      (payload) => this.received(payload),
      () => {
        if (this.listens++ > 0) this.relistened();
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
    if (!Array.isArray(entries) || entries[0] === this.instance) return;
    for (let i = 1; i + 1 < entries.length; i += 2) {
      const [id, key] = [entries[i], entries[i + 1]];
      if (Number.isSafeInteger(id) && typeof key === "string") this.woken(id as number, key);
    }
  }

  /** The payloads that wake other instances' readers of `streams`: as few as fit the size limit. */
  wakeUps(streams: Iterable<{ id: number; key: string }>): string[] {
    const head = JSON.stringify(this.instance);
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
    return out;
  }

  /** The wake-ups for the streams the transaction changed. */
  async send(sql: TxSql, changes: StreamChange[]): Promise<void> {
    if (changes.length === 0) return;
    await sql`SELECT pg_notify(${CHANNEL}, p) FROM unnest(${this.wakeUps(changes.map(changedStream))}::text[]) AS p`;
  }

  async stop(): Promise<void> {
    await this.subscription?.unlisten();
  }
}

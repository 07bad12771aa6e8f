// Live reads across instances: each commit that changes streams sends, inside its transaction,
// one NOTIFY per stream (delivered only if it commits, and only after). The payload is a wake-up,
// never data: the sending instance, the stream's row id and its path key. This instance LISTENs on
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
    const first = payload.indexOf(" ");
    const second = payload.indexOf(" ", first + 1);
    if (first < 0 || second < 0 || payload.slice(0, first) === this.instance) return;
    const id = Number(payload.slice(first + 1, second));
    if (!Number.isSafeInteger(id)) return;
    this.woken(id, payload.slice(second + 1));
  }

  /** The payload that wakes other instances' readers of stream `id` at `key`. */
  payload(id: number, key: string): string {
    return `${this.instance} ${id} ${key}`;
  }

  /** One NOTIFY per stream the transaction changed. */
  async send(sql: TxSql, changes: StreamChange[]): Promise<void> {
    if (changes.length === 0) return;
    const payloads = new Set<string>();
    for (const c of changes) {
      const { id, key } = changedStream(c);
      payloads.add(this.payload(id, key));
    }
    await sql`SELECT pg_notify(${CHANNEL}, p) FROM unnest(${[...payloads]}::text[]) AS p`;
  }

  async stop(): Promise<void> {
    await this.subscription?.unlisten();
  }
}

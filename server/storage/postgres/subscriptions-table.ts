// The PostgreSQL engine's subscriptions (storage/subscriptions.ts): one row per subscription with
// its version and its record as JSON text, and the server's secrets in ursa_meta. A save is one
// statement that changes the row only at the version it read, so of several instances sharing the
// database, exactly one opens, acks or claims each wake.
//
// Every commit's changes are matched against the list (forWakes). Read each time, that was a
// query per group commit beside it. The list is kept instead, until a save or remove, here or on
// another instance, says it changed: each sends a NOTIFY in its own statement. A kept list is
// used only once this instance's LISTEN has received its own wake-ups of every commit it has
// told (notify.ts caughtUp): notifications arrive in commit order, so a change of the
// subscriptions committed before a stream's change has then been heard, and the list re-read.

import type { SQL } from "bun";
import type { StoredSubscription, SubscriptionStore } from "../subscriptions";
import { CHANNEL, type Notifier } from "./notify";

export class PgSubscriptions implements SubscriptionStore {
  private kept: readonly StoredSubscription[] | null = null;
  /** Bumped by every change: a read begun before one must not be kept. */
  private generation = 0;

  constructor(
    private readonly sql: SQL,
    private readonly notifier: Pick<Notifier, "caughtUp" | "subscriptionsPayload">,
  ) {}

  /** The subscriptions changed (told by the notifier, or saved here): the kept list is stale. */
  changed(): void {
    this.generation++;
    this.kept = null;
  }

  async forWakes(): Promise<readonly StoredSubscription[]> {
    const complete = await this.notifier.caughtUp();
    if (!complete) this.changed();
    if (this.kept) return this.kept;
    const generation = this.generation;
    // Frozen, as the SQLite engine's kept list is: it is handed to every wake until a change.
    const list = (await this.all()).map((record) => Object.freeze(record));
    if (generation === this.generation) this.kept = list;
    return list;
  }

  async all(): Promise<StoredSubscription[]> {
    const rows: { record: string }[] = await this.sql`SELECT record FROM ursa_subscriptions ORDER BY scope COLLATE "C", id COLLATE "C"`;
    return rows.map((r) => JSON.parse(r.record) as StoredSubscription);
  }

  async get(scope: string, id: string): Promise<StoredSubscription | undefined> {
    const [row]: { record: string }[] = await this.sql`SELECT record FROM ursa_subscriptions WHERE scope = ${scope} AND id = ${id}`;
    return row ? (JSON.parse(row.record) as StoredSubscription) : undefined;
  }

  async save(subscription: StoredSubscription): Promise<boolean> {
    const { scope, version } = subscription;
    const { id } = subscription.state;
    const record = JSON.stringify(subscription);
    const told = this.notifier.subscriptionsPayload();
    const [row]: { n: number }[] =
      version === 1
        ? await this.sql`WITH w AS (INSERT INTO ursa_subscriptions (scope, id, version, record) VALUES (${scope}, ${id}, 1, ${record})
            ON CONFLICT DO NOTHING RETURNING 1), n AS (SELECT pg_notify(${CHANNEL}, ${told}) FROM w)
            SELECT (SELECT count(*) FROM w)::int AS n, (SELECT count(*) FROM n)::int AS notified`
        : await this.sql`WITH w AS (UPDATE ursa_subscriptions SET version = ${version}, record = ${record}
            WHERE scope = ${scope} AND id = ${id} AND version = ${version - 1} RETURNING 1), n AS (SELECT pg_notify(${CHANNEL}, ${told}) FROM w)
            SELECT (SELECT count(*) FROM w)::int AS n, (SELECT count(*) FROM n)::int AS notified`;
    return this.wrote(row!.n);
  }

  async remove(scope: string, id: string): Promise<boolean> {
    const told = this.notifier.subscriptionsPayload();
    const [row]: { n: number }[] = await this.sql`WITH w AS (DELETE FROM ursa_subscriptions WHERE scope = ${scope} AND id = ${id} RETURNING 1),
      n AS (SELECT pg_notify(${CHANNEL}, ${told}) FROM w)
      SELECT (SELECT count(*) FROM w)::int AS n, (SELECT count(*) FROM n)::int AS notified`;
    return this.wrote(row!.n);
  }

  private wrote(rows: number): boolean {
    if (rows === 0) return false;
    this.changed();
    return true;
  }

  async secret(name: string, make: () => string): Promise<string> {
    const key = `secret:${name}`;
    await this.sql`INSERT INTO ursa_meta (key, value) VALUES (${key}, ${make()}) ON CONFLICT (key) DO NOTHING`;
    const [row]: { value: string }[] = await this.sql`SELECT value FROM ursa_meta WHERE key = ${key}`;
    return row!.value;
  }
}

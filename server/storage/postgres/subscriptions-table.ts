// The PostgreSQL engine's subscriptions (storage/subscriptions.ts): one row per subscription with
// its version and its record as JSON text, and the server's secrets in ursa_meta. A save is one
// statement that changes the row only at the version it read, so of several instances sharing the
// database, exactly one opens, acks or claims each wake.

import type { SQL } from "bun";
import type { StoredSubscription, SubscriptionStore } from "../subscriptions";

export class PgSubscriptions implements SubscriptionStore {
  constructor(private readonly sql: SQL) {}

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
    const rows =
      version === 1
        ? await this.sql`INSERT INTO ursa_subscriptions (scope, id, version, record) VALUES (${scope}, ${id}, 1, ${record}) ON CONFLICT DO NOTHING RETURNING 1`
        : await this.sql`UPDATE ursa_subscriptions SET version = ${version}, record = ${record} WHERE scope = ${scope} AND id = ${id} AND version = ${version - 1} RETURNING 1`;
    return rows.length === 1;
  }

  async remove(scope: string, id: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM ursa_subscriptions WHERE scope = ${scope} AND id = ${id} RETURNING 1`;
    return rows.length === 1;
  }

  async secret(name: string, make: () => string): Promise<string> {
    const key = `secret:${name}`;
    await this.sql`INSERT INTO ursa_meta (key, value) VALUES (${key}, ${make()}) ON CONFLICT (key) DO NOTHING`;
    const [row]: { value: string }[] = await this.sql`SELECT value FROM ursa_meta WHERE key = ${key}`;
    return row!.value;
  }
}

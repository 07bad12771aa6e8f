// The SQLite engine's subscriptions (storage/subscriptions.ts): one row per subscription holding
// its record as JSON, and the server's secrets in `meta`. Writes go through group commit like
// every other write, so a saved record is durable when save resolves.

import type { Database } from "bun:sqlite";
import type { StoredSubscription, SubscriptionStore } from "../subscriptions";

type Submit = <T>(run: () => T) => Promise<T>;

export class SqliteSubscriptions implements SubscriptionStore {
  /**
   * The list as last read. Only this process writes the table (the data directory is locked), and
   * every write goes through here and drops it, so it is exact; appends read it on every commit.
   */
  private list: readonly StoredSubscription[] | null = null;

  constructor(
    private readonly db: Database,
    private readonly submit: Submit,
  ) {}

  async all(): Promise<StoredSubscription[]> {
    this.list ??= this.db
      .query<{ record: string }, []>("SELECT record FROM subscriptions ORDER BY scope, id")
      .all()
      .map((row) => Object.freeze(JSON.parse(row.record) as StoredSubscription));
    return [...this.list];
  }

  /** The kept list: only this process writes the table, so it is as new as every told change. */
  forWakes(): Promise<StoredSubscription[]> {
    return this.all();
  }

  async get(scope: string, id: string): Promise<StoredSubscription | undefined> {
    const row = this.db.query<{ record: string }, [string, string]>("SELECT record FROM subscriptions WHERE scope = ? AND id = ?").get(scope, id);
    return row ? (JSON.parse(row.record) as StoredSubscription) : undefined;
  }

  save(subscription: StoredSubscription): Promise<boolean> {
    const record = JSON.stringify(subscription);
    const { scope } = subscription;
    const { id } = subscription.state;
    return this.submit(() => {
      const stored = this.db.query<{ version: number }, [string, string]>("SELECT json_extract(record, '$.version') AS version FROM subscriptions WHERE scope = ? AND id = ?").get(scope, id);
      if ((stored?.version ?? 0) !== subscription.version - 1) return false;
      this.db.query("INSERT INTO subscriptions (scope, id, record) VALUES (?, ?, ?) ON CONFLICT (scope, id) DO UPDATE SET record = excluded.record").run(scope, id, record);
      this.list = null;
      return true;
    });
  }

  remove(scope: string, id: string): Promise<boolean> {
    return this.submit(() => {
      this.list = null;
      return this.db.query("DELETE FROM subscriptions WHERE scope = ? AND id = ?").run(scope, id).changes > 0;
    });
  }

  async secret(name: string, make: () => string): Promise<string> {
    const key = `secret:${name}`;
    const read = () => this.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
    const found = read();
    if (found !== undefined) return found;
    const value = make();
    await this.submit(() => this.db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING").run(key, value));
    return read()!;
  }
}

// Following the primary when --postgres names several hosts (hosts.ts): after a failover the
// promoted standby takes writes and the old primary is gone or read-only. Every part of the store
// queries `sql`, which always forwards to the pool of the host last found to be the primary. When
// the connection is lost (connection.ts), each host is asked `pg_is_in_recovery()` every half
// second until one answers false; the store then queries that one, and its LISTEN moves there
// too. Meanwhile requests fail as for any lost database: 503 DATABASE_UNAVAILABLE.
//
// With one host there is nothing to follow: `sql` is that host's pool, and Bun's client
// reconnects by itself.

import { SQL } from "bun";

const FOLLOW_EVERY_MS = 500;

export class Primary {
  /** The current primary's pool. */
  readonly sql: SQL;
  private current: SQL;
  private index = 0;
  private following: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly urls: readonly string[],
    private readonly max: number,
    /** Told after the store moved to another host. */
    private readonly moved: () => void,
  ) {
    this.current = new SQL({ url: urls[0]!, max });
    if (urls.length === 1) {
      this.sql = this.current;
      return;
    }
    const forward = (): SQL => this.current;
    this.sql = new Proxy(function () {} as unknown as SQL, {
      apply: (_target, _this, args: unknown[]) => (forward() as unknown as (...a: unknown[]) => unknown)(...args),
      get: (_target, property) => {
        const pool = forward();
        const value = (pool as unknown as Record<PropertyKey, unknown>)[property];
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(pool) : value;
      },
    });
  }

  /** Moves to the host that is the primary now, if that is not the current one; false if none is. */
  async find(): Promise<boolean> {
    if (this.urls.length === 1) return true;
    for (let i = 0; i < this.urls.length; i++) {
      if (!(await isPrimary(this.urls[i]!))) continue;
      if (i !== this.index && !this.closed) {
        const old = this.current;
        this.current = new SQL({ url: this.urls[i]!, max: this.max });
        this.index = i;
        void old.close({ timeout: 0 }).catch(() => undefined);
        this.moved();
      }
      return true;
    }
    return false;
  }

  /** The connection was lost: look for the primary until one is found (once at a time). */
  follow(): void {
    if (this.urls.length === 1 || this.following || this.closed) return;
    this.following = (async () => {
      while (!this.closed && !(await this.find())) await new Promise((r) => setTimeout(r, FOLLOW_EVERY_MS));
    })().finally(() => (this.following = undefined));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.following;
    await this.current.close();
  }
}

async function isPrimary(url: string): Promise<boolean> {
  const probe = new SQL({ url, max: 1, connectionTimeout: 2 });
  try {
    const [row] = (await probe`SELECT pg_is_in_recovery() AS r`) as [{ r: boolean }];
    return row.r === false;
  } catch {
    return false;
  } finally {
    await probe.close({ timeout: 0 }).catch(() => undefined);
  }
}

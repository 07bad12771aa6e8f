// The stream list costs O(page): every query it runs is an index range walked in order, never a
// scan of the bucket or a sort of it, whatever the sort, order and cursor; with a prefix, either
// that, or the few streams a narrow prefix matches, sorted.

import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { STREAM_SORT_KEYS } from "../../introspection-api";
import type { StreamState } from "../../protocol/state";
import { StreamBrowser } from "./browse";
import type { BrowseQuery } from "../introspection";
import { SCHEMA } from "./schema";

function plans(narrowPrefix: number, prefixes: string[]): { sql: string; plan: string }[] {
  const db = new Database(":memory:", { strict: true });
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT INTO streams (bucket, name, incarnation, content_type, tail, message_count, closed, last_seq, touched_at_ms, created_at_ms, last_write_at_ms)
     VALUES ('b', ?, '1', 'application/json', ?, 0, 0, ?, 0, ?, ?)`,
  );
  for (let i = 0; i < 50; i++) insert.run(`s-${i}`, i * 3, i % 2 ? null : String(i), i, i % 3 ? null : i);
  const statements: string[] = [];
  const recording = new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => (statements.push(sql), target.prepare(sql));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const state = (name: string) => ({ name, bucket: "b", closed: false, lastSeq: null, softDeleted: false, producers: new Map() }) as unknown as StreamState;
  const count = db.prepare<{ n: number }, [string, string]>("SELECT count(*) AS n FROM streams WHERE bucket = ? AND substr(name, 1, length(?2)) = ?2");
  const browser = new StreamBrowser(recording, { get: (key) => state(key.slice(2)), producerCount: () => 0, now: () => 0, count: (b, prefix) => ({ n: count.get(b, prefix)!.n, capped: false }) }, narrowPrefix);
  const base: Omit<BrowseQuery, "sort" | "order"> = { prefix: "", contains: "", status: "any", producers: "any", seq: "any", after: null, limit: 10 };
  for (const sort of STREAM_SORT_KEYS) {
    for (const order of ["asc", "desc"] as const) {
      for (const prefix of prefixes) {
        const first = browser.browse("b", { ...base, sort, order, prefix });
        expect(first.items.length).toBeGreaterThan(0);
        // From a cursor in the NULL group and in the values.
        for (const cursor of [first.nextCursor, sort === "name" ? null : JSON.stringify([null, "s-1"])]) {
          if (cursor !== null) browser.browse("b", { ...base, sort, order, prefix, after: cursor });
        }
      }
    }
  }
  return [...new Set(statements)].map((sql) => {
    const params = (sql.match(/\?/g) ?? []).map(() => null);
    const plan = db
      .prepare<{ detail: string }, null[]>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((r) => r.detail)
      .join("; ");
    return { sql, plan };
  });
}

const walksTheIndex = expect.stringMatching(/^SEARCH streams USING (COVERING )?INDEX streams_by_\w+ \(bucket=\?[^;]*$/);

test("every sort walks an index in order, with no temporary B-tree and no table scan", () => {
  // Without a prefix, and with one matching more streams than a narrow prefix may.
  const all = plans(5, ["", "s-"]);
  expect(all.length).toBeGreaterThanOrEqual(20);
  for (const p of all) expect(p).toEqual({ sql: p.sql, plan: walksTheIndex });
});

test("a narrow prefix is a name range, sorted when the sort is by another column", () => {
  for (const p of plans(1000, ["s-1"])) {
    expect(p).toEqual({ sql: p.sql, plan: expect.stringMatching(/^SEARCH streams USING (COVERING )?INDEX streams_by_\w+ \(bucket=\?/) });
    if (p.sql.includes("ORDER BY name")) expect(p).toEqual({ sql: p.sql, plan: walksTheIndex });
  }
});

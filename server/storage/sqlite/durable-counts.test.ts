// Readers are told durable counts: a create committed but not yet durable is not counted yet, a
// delete not yet durable still is (unless the stream has expired meanwhile), and a stream past
// its deadline is not, whether or not its row is reclaimed yet.

import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import type { StreamState } from "../../protocol/state";
import { DurableCounts } from "./durable-counts";
import { Statements } from "./rows";
import { SCHEMA } from "./schema";
import { StreamCache } from "./stream-cache";
import { StreamCounts } from "./stream-counts";

const live = (name: string, expiresAtMs: number | null = null) =>
  ({ bucket: "b", name, softDeleted: false, ttlSeconds: null, expiresAtMs, touchedAtMs: 0 }) as unknown as StreamState;

test("counts leave out what is not durable and what has expired", () => {
  const db = new Database(":memory:", { strict: true });
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT INTO streams (bucket, name, incarnation, content_type, tail, message_count, closed, expires_at_ms, touched_at_ms, created_at_ms) VALUES ('b', ?, '1', 't', 0, 0, 0, ?, 0, 0)`,
  );
  // Committed rows: a, b (expires at 50), c (just created, not durable). d was deleted (not durable).
  for (const [name, at] of [["a", null], ["b", 50], ["c", null]] as const) insert.run(name, at);
  db.run("INSERT INTO buckets (bucket_id, created_at_ms, stream_count) VALUES ('b', 0, 3)");
  db.run("INSERT INTO meta (key, value) VALUES ('stream_count', '3'), ('bucket_count', '1')");
  const durable = new Map<string, StreamState | null>([["b/a", live("a")], ["b/b", live("b", 50)], ["b/c", null], ["b/d", live("d")]]);
  const cache = new StreamCache((k) => durable.get(k) ?? undefined);
  cache.pinWhile(() => true);
  for (const key of durable.keys()) cache.get(key);
  const pending = new Map<string, StreamState | null>([["b/c", live("c")], ["b/d", null]]);
  let now = 10;
  const reaped: string[] = [];
  const counts = new DurableCounts({ counts: new StreamCounts(db, new Statements(db)), pending, cache, now: () => now, reap: (k) => reaped.push(k) });
  // a, b and d are durable; c is not yet.
  expect(counts.inBucket("b", "")).toEqual({ n: 3, capped: false });
  expect(counts.inBucket("b", "d")).toEqual({ n: 1, capped: false });
  expect(counts.inBucket("b", "c")).toEqual({ n: 0, capped: false });
  // The stored total (3) is durable already: a, b, d.
  expect(counts.totals()).toEqual({ streams: 3, buckets: 1 });
  now = 60;
  // b has expired (its row is still there) and is reclaimed as it is found.
  expect(counts.inBucket("b", "")).toEqual({ n: 2, capped: false });
  expect(counts.totals().streams).toBe(2);
  expect(reaped).toContain("b/b");
  // The durable d, deleted but not durably yet, expires too: no longer counted either.
  durable.set("b/d", live("d", 55));
  cache.set("b/d", live("d", 55));
  expect(counts.inBucket("b", "")).toEqual({ n: 1, capped: false });
  expect(counts.totals().streams).toBe(1);
});

// What start-up, listings and counts ask SQLite is never a scan of the streams or buckets table:
// each statement is an index search (the count of a prefix is one bounded by PREFIX_COUNT_CAP),
// so none of them costs more with a million streams than with ten. Also the cap itself.

import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { Listing } from "./listing";
import { Statements } from "./rows";
import { SCHEMA } from "./schema";
import { StateLoader } from "./state-loader";
import { PREFIX_COUNT_CAP } from "../prefix-count";
import { StreamCounts } from "./stream-counts";

function recordingDb() {
  const db = new Database(":memory:", { strict: true });
  db.exec(SCHEMA);
  const statements: string[] = [];
  const recording = new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare" || prop === "query") return (sql: string) => (statements.push(sql), target.prepare(sql));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const plans = () =>
    [...new Set(statements)].map((sql) => {
      const params = (sql.match(/\?\d*/g) ?? []).map(() => null);
      const unique = [...new Set(sql.match(/\?\d+/g) ?? [])];
      const args = unique.length > 0 ? unique.map(() => null) : params;
      return { sql, plan: db.prepare<{ detail: string }, null[]>(`EXPLAIN QUERY PLAN ${sql}`).all(...args).map((r) => r.detail).join("; ") };
    });
  return { db, recording, plans };
}

test("counts, listings and state loads search indexes and never scan a table", () => {
  const { db, recording, plans } = recordingDb();
  const insert = db.prepare(
    `INSERT INTO streams (bucket, name, incarnation, content_type, tail, message_count, closed, ttl_s, touched_at_ms, created_at_ms) VALUES ('b', ?, '1', 't', 0, 0, 0, ?, 0, 0)`,
  );
  for (let i = 0; i < 50; i++) insert.run(`s${i}`, i % 5 === 0 ? 1 : null);
  db.run("INSERT INTO buckets (bucket_id, created_at_ms, stream_count) VALUES ('b', 0, 50)");
  const counts = new StreamCounts(recording, new Statements(db));
  const expired = () => true;
  counts.total(expired, 10_000);
  counts.inBucket("b", "", expired, 10_000, 0);
  counts.inBucket("b", "s1", expired, 10_000, 0);
  counts.bucketsWith("");
  counts.bucketsWith("b");
  counts.mayHaveExpired(10_000);
  counts.mayHaveExpiredIn("b", 10_000);
  const loader = new StateLoader(recording);
  expect(loader.load("b/s1")?.name).toBe("s1");
  expect(loader.loadById(1)?.name).toBe("s0");
  const listing = new Listing(recording, { rowMayDiffer: () => false, peek: () => undefined, get: () => undefined, now: () => 10_000, count: () => ({ n: 0, capped: false }) });
  for (const after of [null, "s3"]) {
    for (const prefix of ["", "s"]) {
      expect(listing.streams("b", { prefix, after, limit: 5 }).items.length).toBeGreaterThan(0);
      listing.buckets({ prefix, after, limit: 5 }, { n: 1, capped: false });
    }
  }
  const found = plans();
  expect(found.length).toBeGreaterThan(10);
  for (const { sql, plan } of found) {
    expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringMatching(/SCAN (streams|buckets|s|f|producers)\b(?! USING)/) });
    expect({ sql, plan }).toEqual({ sql, plan: expect.not.stringContaining("TEMP B-TREE") });
  }
  // The deadline lookups go through the deadline indexes, not through every stream of the bucket.
  expect(found.filter((f) => f.sql.includes("coalesce(expires_at_ms")).every((f) => /streams_by_(bucket_)?deadline/.test(f.plan))).toBe(true);
});

test("a prefix's streams are counted up to the cap, and reported as capped past it", () => {
  const db = new Database(":memory:", { strict: true });
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT INTO streams (bucket, name, incarnation, content_type, tail, message_count, closed, touched_at_ms, created_at_ms) VALUES ('b', ?, '1', 't', 0, 0, 0, 0, 0)`,
  );
  db.transaction(() => {
    for (let i = 0; i <= PREFIX_COUNT_CAP; i++) insert.run(`a${i}`);
    for (let i = 0; i < 3; i++) insert.run(`b${i}`);
  })();
  const counts = new StreamCounts(db, new Statements(db));
  expect(counts.inBucket("b", "a", () => false, 0, 0)).toEqual({ n: PREFIX_COUNT_CAP, capped: true });
  expect(counts.inBucket("b", "b", () => false, 0, 0)).toEqual({ n: 3, capped: false });
  // Writes committed but not durable are taken off what the table says.
  expect(counts.inBucket("b", "b", () => false, 0, 1)).toEqual({ n: 2, capped: false });
});

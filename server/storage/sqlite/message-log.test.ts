// The deferred log (message-log.ts) against a model: whatever mix of appends, forced and skipped
// materializations and crashes, every stream reads back byte for byte, with its Stream-Seq,
// message count and producers, from memory, from the index, and across the boundary between them.

import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import type { AppendRequest } from "../../protocol/append";
import { createRequest } from "../../protocol/testing-state";
import { inTempDir, snapshot } from "../../testing/temp-dir";
import { SCHEMA_VERSION } from "./schema";
import { SqliteStore } from "./sqlite-store";

const BUCKET = "log-t";
const TYPES = ["text/plain", "text/plain", "application/json"] as const;
const key = (i: number) => `${BUCKET}/s${i}`;

interface Model {
  bytes: number[];
  starts: number[];
  messages: Uint8Array[];
  lastSeq: string | null;
  producer: { epoch: number; lastSeq: number; lastStart: number; lastNext: number } | null;
}

type Op =
  | { kind: "append"; stream: number; messages: Uint8Array[]; producer: boolean; seq: boolean }
  | { kind: "burst"; streams: number[] }
  | { kind: "churn" }
  | { kind: "crash" };

const message = fc.uint8Array({ minLength: 1, maxLength: 12 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("append" as const), stream: fc.integer({ min: 0, max: 2 }), messages: fc.array(message, { minLength: 1, maxLength: 3 }), producer: fc.boolean(), seq: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("burst" as const), streams: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 45 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "churn" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "crash" as const }) },
);

class Harness {
  models: Model[] = TYPES.map(() => ({ bytes: [], starts: [], messages: [], lastSeq: null, producer: null }));
  private seq = 0;
  private producerSeq = [0, 0, 0];
  private churned = 0;
  constructor(
    public store: SqliteStore,
    public path: string,
    private readonly dir: string,
    private readonly everyMs: number,
    private readonly recentBytes: number,
  ) {}

  static async open(dir: string, everyMs: number, recentBytes = 0): Promise<Harness> {
    const path = join(dir, "ursa.sqlite");
    const store = new SqliteStore({ path, sync: "full", materializeEveryMs: everyMs, recentBytes });
    for (let i = 0; i < TYPES.length; i++) {
      expect((await store.create(key(i), createRequest({ bucket: BUCKET, name: `s${i}`, contentType: TYPES[i] }))).kind).toBe("created");
    }
    return new Harness(store, path, dir, everyMs, recentBytes);
  }

  append(stream: number, raw: Uint8Array[], withProducer: boolean, withSeq: boolean): Promise<void> {
    const m = this.models[stream]!;
    // A JSON stream's messages reach the store as compact JSON texts, each ending in its LF.
    const messages = TYPES[stream] === "application/json" ? raw.map((r) => new TextEncoder().encode(`${JSON.stringify([...r])}\n`)) : raw;
    const producer = withProducer ? { id: `p${stream}`, epoch: 0, seq: this.producerSeq[stream]!++ } : null;
    const streamSeq = withSeq ? String(++this.seq).padStart(8, "0") : null;
    const request: AppendRequest = { contentType: TYPES[stream]!, messages, close: false, streamSeq, producer, incarnation: null };
    const start = m.bytes.length;
    for (const msg of messages) {
      m.starts.push(m.bytes.length);
      m.messages.push(msg);
      m.bytes.push(...msg);
    }
    if (streamSeq) m.lastSeq = streamSeq;
    if (producer) m.producer = { epoch: 0, lastSeq: producer.seq, lastStart: start, lastNext: m.bytes.length };
    return this.store.append(key(stream), request).then((d) => expect(d.kind).toBe("accepted"));
  }

  async run(o: Op): Promise<void> {
    switch (o.kind) {
      case "append":
        return this.append(o.stream, o.messages, o.producer, o.seq);
      case "burst":
        // Submitted in one turn: one transaction, several appends to the same streams.
        await Promise.all(o.streams.map((s, i) => this.append(s, [new Uint8Array([i + 1, s + 1])], i % 2 === 0, false)));
        return;
      case "churn": {
        // A delete makes the log materialize inside its transaction.
        const name = `z${this.churned++}`;
        await this.store.create(`${BUCKET}/${name}`, createRequest({ bucket: BUCKET, name, contentType: "text/plain" }));
        await this.store.append(`${BUCKET}/${name}`, { contentType: "text/plain", messages: [new Uint8Array([9])], close: false, streamSeq: null, producer: null, incarnation: null });
        expect((await this.store.delete(`${BUCKET}/${name}`, null)).kind).toBe("deleted");
        return;
      }
      case "crash": {
        const copy = snapshot(this.path, this.dir);
        await this.store.close();
        this.path = copy;
        this.store = new SqliteStore({ path: copy, sync: "full", materializeEveryMs: this.everyMs, recentBytes: this.recentBytes });
        return;
      }
    }
  }

  async verify(): Promise<void> {
    for (const [i, m] of this.models.entries()) {
      const state = (await this.store.get(key(i)))!;
      expect({ tail: state.tail, count: state.messageCount, lastSeq: state.lastSeq }).toEqual({ tail: m.bytes.length, count: m.messages.length, lastSeq: m.lastSeq });
      const p = state.producers.get(`p${i}`);
      expect(p ? { epoch: p.epoch, lastSeq: p.lastSeq, lastStart: p.lastStart, lastNext: p.lastNext } : null).toEqual(m.producer);
      for (let offset = 0; offset <= m.bytes.length; offset++) {
        expect(await this.store.isMessageStart(state, offset)).toBe(offset === m.bytes.length || m.starts.includes(offset));
        for (const limit of [1, 7, 1 << 20]) {
          const slice = await this.store.readRange(state, offset, limit, false);
          const got = Buffer.concat(slice.chunks);
          expect([...got]).toEqual(m.bytes.slice(offset, Math.min(m.bytes.length, offset + limit)));
          expect(slice.end).toBe(Math.min(m.bytes.length, offset + limit));
        }
      }
      for (let k = 0; k < m.starts.length; k++) {
        const whole = await this.store.readRange(state, m.starts[k]!, 1 << 20, true);
        expect(whole.chunks.map((c) => [...c])).toEqual(m.messages.slice(k).map((c) => [...c]));
      }
    }
  }
}

describe("message log", () => {
  // A 40-byte cache of recent messages keeps a few of each stream's newest past their indexing.
  for (const [everyMs, recentBytes] of [[0, 0], [60_000, 0], [0, 40], [60_000, 40]] as const) {
    test(`reads, summaries and producers match a model through appends and crashes (materialize every ${everyMs} ms, ${recentBytes} bytes held)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) =>
          inTempDir(async (dir) => {
            const h = await Harness.open(dir, everyMs, recentBytes);
            try {
              for (const o of ops) await h.run(o);
              await h.verify();
              await h.run({ kind: "crash" });
              await h.verify();
            } finally {
              await h.store.close();
            }
          }),
        ),
        { numRuns: 20 },
      );
    }, 120_000);
  }

  test("a crash after closing appends loses neither the closure nor the bytes, Stream-Seq and producer that came with it", async () => {
    await inTempDir(async (dir) => {
      const h = await Harness.open(dir, 60_000);
      const enc = (t: string) => new TextEncoder().encode(t);
      const base = { contentType: "text/plain", streamSeq: null, producer: null, incarnation: null };
      expect((await h.store.append(key(0), { ...base, messages: [enc("last")], close: true, streamSeq: "07", producer: { id: "p", epoch: 2, seq: 0 } })).kind).toBe("accepted");
      expect((await h.store.append(key(1), { ...base, contentType: null, messages: [], close: true, producer: { id: "q", epoch: 1, seq: 0 } })).kind).toBe("accepted");
      const copy = snapshot(h.path, dir);
      await h.store.close();
      const store = new SqliteStore({ path: copy, sync: "full", materializeEveryMs: 60_000 });
      const a = (await store.get(key(0)))!;
      expect(a).toMatchObject({ tail: 4, closed: true, lastSeq: "07", messageCount: 1, closedBy: { id: "p", epoch: 2, seq: 0 } });
      expect(a.producers.get("p")).toMatchObject({ epoch: 2, lastSeq: 0, lastStart: 0, lastNext: 4 });
      expect(new TextDecoder().decode(Buffer.concat((await store.readRange(a, 0, 100, false)).chunks))).toBe("last");
      const b = (await store.get(key(1)))!;
      expect(b).toMatchObject({ tail: 0, closed: true, closedBy: { id: "q", epoch: 1, seq: 0 } });
      expect(b.producers.get("q")).toMatchObject({ epoch: 1, lastSeq: 0 });
      // A retry of the closing append is still a duplicate after the crash.
      expect((await store.append(key(0), { ...base, messages: [enc("last")], close: true, producer: { id: "p", epoch: 2, seq: 0 } })).kind).toBe("duplicate");
      await store.close();
    });
  });

  test("rows replayed at start-up are written out once the writer is idle, without waiting for a write", async () => {
    await inTempDir(async (dir) => {
      const h = await Harness.open(dir, 60_000);
      await h.append(0, [new Uint8Array([1, 2, 3])], true, true);
      const copy = snapshot(h.path, dir);
      await h.store.close();
      const store = new SqliteStore({ path: copy, sync: "full", materializeEveryMs: 20 });
      const db = new Database(copy, { readonly: true });
      const lag = () => {
        const mark = Number(db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'indexed_upto'").get()?.value ?? 0);
        return db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM msgs WHERE id > ?").get(mark)!.n;
      };
      expect(lag()).toBe(1);
      await Bun.sleep(200);
      expect(lag()).toBe(0);
      db.close();
      await store.close();
    });
  });

  test("reads from the index map the database at its present size, not the size it had when the server started", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      const store = new SqliteStore({ path, sync: "full", materializeEveryMs: 10 });
      await store.create(`${BUCKET}/big`, createRequest({ bucket: BUCKET, name: "big", contentType: "application/octet-stream" }));
      const message = new Uint8Array(64 * 1024).fill(7);
      for (let i = 0; i < 128; i++) {
        const r = await store.append(`${BUCKET}/big`, { contentType: "application/octet-stream", messages: [message], close: false, streamSeq: null, producer: null, incarnation: null });
        expect(r.kind).toBe("accepted");
      }
      // The checkpoint thread grows the file; the reads come from the index (no read cache).
      for (let i = 0; i < 100 && Bun.file(path).size < 8 * 1024 * 1024; i++) await Bun.sleep(20);
      const state = (await store.get(`${BUCKET}/big`))!;
      expect((await store.readRange(state, 0, 8 * 1024 * 1024, false)).end).toBe(8 * 1024 * 1024);
      const mapped = (await Bun.file("/proc/self/maps").text())
        .split("\n")
        .filter((line) => line.endsWith(path))
        .map((line) => line.split(" ")[0]!.split("-").map((a) => Number.parseInt(a, 16)))
        .reduce((most, [lo, hi]) => Math.max(most, hi! - lo!), 0);
      expect(mapped).toBeGreaterThanOrEqual(8 * 1024 * 1024);
      await store.close();
    });
  });

  test("a read of a state whose stream was deleted since claims no bytes it does not return", async () => {
    await inTempDir(async (dir) => {
      const h = await Harness.open(dir, 60_000);
      await h.append(0, [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])], false, false);
      const before = (await h.store.get(key(0)))!;
      expect((await h.store.delete(key(0), null)).kind).toBe("deleted");
      // The durable state a reader holds in the moment between the delete's commit and its sync.
      expect(await h.store.readRange(before, 0, 100, false)).toEqual({ chunks: [], end: 0 });
      expect(await h.store.readRange(before, 3, 100, true)).toEqual({ chunks: [], end: 3 });
      await h.store.close();
    });
  });

  test("a fork of a stream whose newest appends are not yet indexed reads every byte up to its offset through its source", async () => {
    await inTempDir(async (dir) => {
      const store = new SqliteStore({ path: join(dir, "f.sqlite"), sync: "full", materializeEveryMs: 60_000 });
      await store.create(`${BUCKET}/src`, createRequest({ bucket: BUCKET, name: "src", contentType: "text/plain" }));
      const enc = (s: string) => new TextEncoder().encode(s);
      for (const word of ["alpha", "beta", "gamma"]) {
        await store.append(`${BUCKET}/src`, { contentType: "text/plain", messages: [enc(word)], close: false, streamSeq: null, producer: null, incarnation: null });
      }
      const fork = await store.create(
        `${BUCKET}/fork`,
        createRequest({ bucket: BUCKET, name: "fork", contentType: "text/plain", fork: { sourceKey: `${BUCKET}/src`, offset: 9, subOffset: 2 } }),
      );
      expect(fork.kind).toBe("created");
      const state = (await store.get(`${BUCKET}/fork`))!;
      expect(new TextDecoder().decode(Buffer.concat((await store.readRange(state, 0, 100, false)).chunks))).toBe("alphabetaga");
      expect(state.messageCount).toBe(3);
      // At the tail no append boundary is looked up, so nothing else has indexed the source yet.
      await store.append(`${BUCKET}/src`, { contentType: "text/plain", messages: [enc("delta")], close: false, streamSeq: null, producer: null, incarnation: null });
      expect((await store.create(`${BUCKET}/whole`, createRequest({ bucket: BUCKET, name: "whole", contentType: "text/plain", fork: { sourceKey: `${BUCKET}/src`, offset: null, subOffset: null } }))).kind).toBe("created");
      const whole = (await store.get(`${BUCKET}/whole`))!;
      expect(new TextDecoder().decode(Buffer.concat((await store.readRange(whole, 0, 100, false)).chunks))).toBe("alphabetagammadelta");
      await store.close();
    });
  });

  test("a database of a newer version than this ursa knows is refused, not opened and rewritten", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "newer.sqlite");
      const db = new Database(path, { create: true });
      db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID; INSERT INTO meta VALUES ('schema_version', '${SCHEMA_VERSION + 1}');`);
      db.close();
      expect(() => new SqliteStore({ path, sync: "full" })).toThrow(`database schema version ${SCHEMA_VERSION + 1} is not ${SCHEMA_VERSION}`);
      const after = new Database(path, { readonly: true });
      expect(after.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema_version'").get()?.value).toBe(String(SCHEMA_VERSION + 1));
      expect(after.query("SELECT name FROM sqlite_master WHERE name = 'streams'").get()).toBeNull();
      after.close();
    });
  });

  test("a version 2 database opens with its messages, now found through the new index", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "v2.sqlite");
      const db = new Database(path, { create: true });
      db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE buckets (bucket_id TEXT PRIMARY KEY, created_at_ms INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE streams (id INTEGER PRIMARY KEY AUTOINCREMENT, bucket TEXT NOT NULL, name TEXT NOT NULL, incarnation TEXT NOT NULL,
          content_type TEXT NOT NULL, tail INTEGER NOT NULL, message_count INTEGER NOT NULL, closed INTEGER NOT NULL, closed_by TEXT,
          last_seq TEXT, ttl_s INTEGER, expires_at_ms INTEGER, touched_at_ms INTEGER NOT NULL, created_at_ms INTEGER NOT NULL,
          last_write_at_ms INTEGER, fork_source_key TEXT, fork_source_id INTEGER, fork_offset INTEGER, fork_sub_offset INTEGER,
          soft_deleted INTEGER NOT NULL DEFAULT 0, attrs TEXT);
        CREATE UNIQUE INDEX streams_by_path ON streams(bucket, name);
        CREATE TABLE msgs (id INTEGER PRIMARY KEY, stream_id INTEGER NOT NULL, start INTEGER NOT NULL, seg INTEGER NOT NULL, data BLOB NOT NULL);
        CREATE UNIQUE INDEX msgs_by_offset ON msgs(stream_id, start);
        CREATE TABLE producers (stream_id INTEGER NOT NULL, producer_id TEXT NOT NULL, epoch INTEGER NOT NULL, last_seq INTEGER NOT NULL,
          last_start INTEGER NOT NULL, last_next INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL, PRIMARY KEY (stream_id, producer_id)) WITHOUT ROWID;
        INSERT INTO meta VALUES ('schema_version', '2'), ('last_incarnation', '5');
        INSERT INTO buckets VALUES ('old', 1);
        INSERT INTO streams (bucket, name, incarnation, content_type, tail, message_count, closed, touched_at_ms, created_at_ms)
          VALUES ('old', 'one', '5', 'text/plain', 6, 2, 0, 1, 1);
        INSERT INTO msgs (stream_id, start, seg, data) VALUES (1, 0, 0, X'666f6f'), (1, 3, 3, X'626172');
      `);
      db.close();
      const store = new SqliteStore({ path, sync: "full" });
      const state = (await store.get("old/one"))!;
      expect(new TextDecoder().decode(Buffer.concat((await store.readRange(state, 2, 100, false)).chunks))).toBe("obar");
      expect(await store.isMessageStart(state, 3)).toBe(true);
      await store.append("old/one", { contentType: "text/plain", messages: [new TextEncoder().encode("!")], close: false, streamSeq: null, producer: null, incarnation: null });
      const after = (await store.get("old/one"))!;
      expect(new TextDecoder().decode(Buffer.concat((await store.readRange(after, 0, 100, false)).chunks))).toBe("foobar!");
      // Version 6 counts what the older versions held (schema.ts, MIGRATIONS).
      expect(await store.counts()).toEqual({ streams: 1, buckets: 1 });
      expect((await store.getBucket("old"))?.streams).toBe(1);
      await store.close();
    });
  });
});

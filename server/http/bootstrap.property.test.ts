// Property (spec §2.13–§2.18, §7.2–§7.3): for any interleaving of appends, batched appends,
// snapshot publishes and retention moves, each answered as a model of the log predicts, a
// bootstrap plus the reads after it reproduce exactly the log, and reads from the floor exactly
// the retained part of it, while everything below the floor answers 410.

import { expect, test } from "bun:test";
import fc from "fast-check";
import { harness, type Harness } from "../testing/app-harness";
import { frames } from "../testing/frames";

const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;

type Op =
  | { kind: "append"; values: number[] }
  | { kind: "batch"; frames: number[][] }
  | { kind: "snapshot"; pick: number }
  | { kind: "retain"; pick: number };

const value = fc.integer({ min: -1000, max: 100_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.array(value, { minLength: 1, maxLength: 4 }).map((values): Op => ({ kind: "append", values })) },
  { weight: 2, arbitrary: fc.array(fc.array(value, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }).map((f): Op => ({ kind: "batch", frames: f })) },
  { weight: 2, arbitrary: fc.nat().map((pick): Op => ({ kind: "snapshot", pick })) },
  { weight: 2, arbitrary: fc.nat().map((pick): Op => ({ kind: "retain", pick })) },
);

/** The log as the server should hold it: every message, its offset, the snapshot and the floor. */
class Model {
  values: number[] = [];
  /** offsets[i] is where message i starts; offsets[values.length] is the tail. */
  offsets = [0];
  /** Where each append's messages start, as message indexes: a JSON append is one row of the log. */
  rows: number[] = [];
  snapshot: number | null = null;
  floor = 0;
  append(values: number[]): void {
    this.rows.push(this.values.length);
    for (const v of values) this.push(v);
  }
  push(v: number): void {
    this.values.push(v);
    this.offsets.push(this.offsets.at(-1)! + String(v).length + 1);
  }
  /** A message index (a boundary) chosen by `pick`, anywhere from 0 to the tail. */
  boundary(pick: number): number {
    return pick % (this.values.length + 1);
  }
}

/** The snapshot a client would publish at message `index`: the state it covers, here every value before it. */
const snapshotBody = (m: Model, index: number) => JSON.stringify(m.values.slice(0, index));

let h: Harness;

async function apply(m: Model, o: Op): Promise<void> {
  switch (o.kind) {
    case "append": {
      const res = await h.request("POST", "/test-b/p", { headers: J, body: JSON.stringify(o.values) });
      expect(res.status).toBe(204);
      m.append(o.values);
      return;
    }
    case "batch": {
      const res = await h.request("POST", "/test-b/p/append-batch", { headers: J, body: frames(o.frames.map((f) => JSON.stringify(f))) });
      expect(res.status).toBe(200);
      const acks = (await res.json()) as { status: number; stream_next_offset: string }[];
      for (let i = 0; i < o.frames.length; i++) {
        m.append(o.frames[i]!);
        expect(acks[i]).toEqual({ status: 204, stream_next_offset: at(m.offsets.at(-1)!) });
      }
      return;
    }
    case "snapshot": {
      const index = m.boundary(o.pick);
      const res = await h.request("PUT", `/test-b/p/snapshot/${at(m.offsets[index]!)}`, { headers: J, body: snapshotBody(m, index) });
      const offset = m.offsets[index]!;
      const floorOffset = m.offsets[m.floor]!;
      if (offset < floorOffset) expect(res.status).toBe(410);
      else if (m.snapshot !== null && index < m.snapshot) expect(res.status).toBe(409);
      else {
        // The same index publishes the same body: an idempotent 204.
        expect(res.status).toBe(204);
        m.snapshot = index;
      }
      return;
    }
    case "retain": {
      const index = m.boundary(o.pick);
      const res = await h.request("PUT", `/test-b/p/retention/${at(m.offsets[index]!)}`);
      if (index < m.floor || m.snapshot === null || index > m.snapshot) expect(res.status).toBe(409);
      else {
        expect(res.status).toBe(204);
        m.floor = index;
      }
    }
  }
}

/** Splits a multipart/mixed body, checking its framing exactly (spec §2.18). */
function parts(body: string, boundary: string): { type: string; payload: string }[] {
  const open = `--${boundary}\r\n`;
  const close = `--${boundary}--\r\n`;
  expect(body.startsWith(open)).toBe(true);
  expect(body.endsWith(`\r\n${close}`)).toBe(true);
  return body
    .slice(open.length, -(close.length + 2))
    .split(`\r\n${open}`)
    .map((p) => {
      const m = /^Content-Type: ([^\r\n]+)\r\n\r\n([\s\S]*)$/.exec(p)!;
      expect(m).not.toBeNull();
      return { type: m[1]!, payload: m[2]! };
    });
}

async function readFrom(offset: string): Promise<number[]> {
  const out: number[] = [];
  for (;;) {
    const res = await h.request("GET", `/test-b/p?offset=${offset}`);
    expect(res.status).toBe(200);
    out.push(...((await res.json()) as number[]));
    const next = res.headers.get("Stream-Next-Offset")!;
    if (res.headers.get("Stream-Up-To-Date") === "true") return out;
    offset = next;
  }
}

async function check(m: Model): Promise<void> {
  const res = await h.request("GET", "/test-b/p/bootstrap");
  expect(res.status).toBe(200);
  const boundary = res.headers.get("Content-Type")!.split("boundary=")[1]!;
  const [snapshot, ...updates] = parts(await res.text(), boundary);
  let state: number[] = [];
  if (m.snapshot === null) {
    expect(res.headers.get("Stream-Snapshot-Offset")).toBe("-1");
    expect(snapshot).toEqual({ type: "application/octet-stream", payload: "" });
  } else {
    expect(res.headers.get("Stream-Snapshot-Offset")).toBe(at(m.offsets[m.snapshot]!));
    state = JSON.parse(snapshot!.payload);
  }
  for (const u of updates) {
    expect(u.type).toBe("application/json");
    state.push(JSON.parse(u.payload));
  }
  const rest = res.headers.get("Stream-Up-To-Date") === "true" ? [] : await readFrom(res.headers.get("Stream-Next-Offset")!);
  // Without a snapshot the parts start at the floor; the model's state below it is then unknown.
  const from = m.snapshot === null ? m.floor : 0;
  expect([...state, ...rest]).toEqual(m.values.slice(from));
  expect(await readFrom(at(m.offsets[m.floor]!))).toEqual(m.values.slice(m.floor));
  if (m.floor > 0) {
    const gone = await h.request("GET", "/test-b/p?offset=-1");
    expect(gone.status).toBe(410);
    expect(gone.headers.get("Stream-Earliest-Offset")).toBe(at(m.offsets[m.floor]!));
  }
  // The rows wholly below the floor are deleted, and only those: one the floor falls inside stays.
  await h.store.reclaimed();
  const s = (await h.store.get("test-b/p"))!;
  for (const [r, start] of m.rows.entries()) {
    const end = m.rows[r + 1] ?? m.values.length;
    const held = (await h.store.readRange(s, m.offsets[start]!, Number.MAX_SAFE_INTEGER, true)).chunks.length;
    expect(held).toBe(end > m.floor ? m.values.length - start : 0);
  }
}

test("bootstrap plus the reads after it reproduce the log, for any interleaving", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
      h = harness();
      try {
        expect((await h.request("PUT", "/test-b/p", { headers: J })).status).toBe(201);
        const m = new Model();
        for (const [i, o] of ops.entries()) {
          await apply(m, o);
          if (i % 5 === 4) await check(m);
        }
        await check(m);
      } finally {
        await h.close();
      }
    }),
    { numRuns: 150 },
  );
}, 60_000);

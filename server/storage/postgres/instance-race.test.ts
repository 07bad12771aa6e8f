// Two instances racing on one stream with the conditional apply (conditional-apply.ts): appends
// are decided on an unlocked read and applied only while the row's version holds, so the
// database, not a lock, decides who wins. Many conflicting writes at once, then the log is read
// back: no Stream-Seq and no producer sequence is won twice, and the log holds exactly the wins.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppendDecision, AppendRequest } from "../../protocol/append";
import { createRequest } from "../../protocol/testing-state";
import { startPgCluster, type PgCluster } from "../../testing/pg-cluster";
import { PgStore } from "./pg-store";

let cluster: PgCluster;
let databases = 0;
const opened: PgStore[] = [];

beforeAll(async () => {
  cluster = await startPgCluster();
}, 120_000);

afterAll(async () => {
  for (const store of opened) await store.close().catch(() => undefined);
  await cluster?.stop();
}, 60_000);

/** Two instances on one fresh database, the stream created on the first. */
async function pairWithStream(key: string): Promise<[PgStore, PgStore]> {
  const url = await cluster.createDatabase(`race_${++databases}`);
  const stores = [await PgStore.open({ url, poolSize: 4 }), await PgStore.open({ url, poolSize: 4 })] as [PgStore, PgStore];
  opened.push(...stores);
  const [bucket, name] = key.split("/") as [string, string];
  expect((await stores[0].create(key, createRequest({ bucket, name, contentType: "text/plain" }))).kind).toBe("created");
  return stores;
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const append = (message: string, overrides: Partial<AppendRequest>): AppendRequest => ({
  contentType: "text/plain",
  messages: [enc(message)],
  close: false,
  streamSeq: null,
  producer: null,
  incarnation: null,
  ...overrides,
});
const outcome = (d: AppendDecision) => (d.kind === "error" ? d.code : d.kind);

/** Every message of the stream, in log order, as read back by `store`. */
async function log(store: PgStore, key: string): Promise<string[]> {
  const state = (await store.get(key))!;
  const slice = await store.readRange(state, 0, 1 << 24, true);
  expect(slice.end).toBe(state.tail);
  return slice.chunks.map(dec);
}

describe("two instances racing", () => {
  test("[CW] Stream-Seq: of writers on both instances sending the same sequence numbers, at most one wins each, and the log is exactly the wins in order", async () => {
    const key = "race/seq";
    const stores = await pairWithStream(key);
    const ROUNDS = 40;
    const WRITERS = 8;
    const wins: { seq: number; message: string }[] = [];
    const refused: string[] = [];
    // Each writer sends 01, 02, … in turn, waiting for its own answer; writers alternate instances.
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const store = stores[w % 2]!;
        for (let round = 1; round <= ROUNDS; round++) {
          const message = `r${round}w${w}`;
          const d = await store.append(key, append(message, { streamSeq: String(round).padStart(3, "0") }));
          if (d.kind === "accepted") wins.push({ seq: round, message });
          else refused.push(outcome(d));
        }
      }),
    );
    const seqs = wins.map((w) => w.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(new Set(refused)).toEqual(new Set(["STREAM_SEQ_CONFLICT"]));
    expect(wins.length + refused.length).toBe(ROUNDS * WRITERS);
    const expected = [...wins].sort((a, b) => a.seq - b.seq).map((w) => w.message);
    // Both instances read the same log: the wins, each once, in the order of their sequence numbers.
    for (const store of stores) expect(await log(store, key)).toEqual(expected);
    expect((await stores[1].get(key))!.lastSeq).toBe(String(Math.max(...seqs)).padStart(3, "0"));
  }, 90_000);

  test("[CW] Producer-Seq: one producer's every request sent to both instances at once is accepted exactly once, and the log holds each once, in order", async () => {
    const key = "race/producer";
    const stores = await pairWithStream(key);
    const SEQS = 60;
    const CLIENTS = 4;
    const accepted = new Map<number, number>();
    const others: string[] = [];
    // Four copies of one producer (two per instance) each send seq 0, 1, … waiting for their own
    // answer: every seq arrives four times, racing; only one may write it.
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const store = stores[c % 2]!;
        for (let seq = 0; seq < SEQS; seq++) {
          const d = await store.append(key, append(`m${seq}`, { producer: { id: "p", epoch: 0, seq } }));
          if (d.kind === "accepted") accepted.set(seq, (accepted.get(seq) ?? 0) + 1);
          else others.push(outcome(d));
        }
      }),
    );
    expect([...accepted.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: SEQS }, (_, i) => i));
    expect([...accepted.values()].every((n) => n === 1)).toBe(true);
    expect(others.length).toBe(SEQS * (CLIENTS - 1));
    expect(new Set(others)).toEqual(new Set(["duplicate"]));
    const expected = Array.from({ length: SEQS }, (_, i) => `m${i}`);
    for (const store of stores) expect(await log(store, key)).toEqual(expected);
    const state = (await stores[0].get(key))!;
    expect(await stores[0].producers(state)).toEqual([["p", expect.objectContaining({ epoch: 0, lastSeq: SEQS - 1 })]]);
  }, 90_000);

  test("[CW] Producer-Seq over 16 streams: groups of appends on many streams commit as one statement on each instance, and where the other instance moved a stream only that one is decided again; every log holds exactly the acknowledged appends, each producer's in order", async () => {
    const url = await cluster.createDatabase(`race_${++databases}`);
    const groups: number[] = [];
    const observer = { batch: (writes: number) => void groups.push(writes), sync: () => undefined };
    const stores = [await PgStore.open({ url, poolSize: 4, commitObserver: observer }), await PgStore.open({ url, poolSize: 4, commitObserver: observer })];
    opened.push(...stores);
    const keys = Array.from({ length: 16 }, (_, i) => `race/s${i}`);
    for (const key of keys) expect((await stores[0]!.create(key, createRequest({ bucket: "race", name: key.slice(5), contentType: "text/plain" }))).kind).toBe("created");
    const SEQS = 25;
    const outcomes: string[] = [];
    await Promise.all(
      stores.flatMap((store, i) =>
        keys.map(async (key) => {
          for (let seq = 0; seq < SEQS; seq++) outcomes.push(outcome(await store.append(key, append(`${i}:${seq}`, { producer: { id: `p${i}`, epoch: 0, seq } }))));
        }),
      ),
    );
    expect(outcomes).toEqual(Array(2 * keys.length * SEQS).fill("accepted"));
    expect(Math.max(...groups)).toBeGreaterThan(1);
    for (const key of keys) {
      const messages = await log(stores[1]!, key);
      expect(messages.length).toBe(2 * SEQS);
      for (const i of [0, 1]) expect(messages.filter((m) => m.startsWith(`${i}:`))).toEqual(Array.from({ length: SEQS }, (_, seq) => `${i}:${seq}`));
    }
  }, 90_000);
});

// The compaction recipe of ursa-client (clients/ts/src/compaction.ts) against the compiled
// binary: Ursula v0.9.0, Conditional Writes, §Prefix-count compare-and-set, step 3, "keep the
// event count in every snapshot you publish and count on from it", and what happens to a client
// that does not.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  commitResuming,
  compact,
  padSeq,
  PrefixCountWriter,
  readFromSnapshot,
  resumeFromSnapshot,
  RetriesExhausted,
  StreamGone,
  UrsaStream,
} from "../clients/ts/src/index.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess;
let streams = 0;
beforeAll(async () => {
  ursa = await startUrsa();
});
afterAll(async () => {
  await ursa?.stop();
  ursa?.cleanup();
});

const freshUrl = (name: string) => `${ursa.url}/recipes/${name}-${++streams}-${Date.now().toString(36)}`;
async function createJson(url: string): Promise<void> {
  const res = await fetch(url, { method: "PUT", headers: { "Content-Type": "application/json" } });
  expect(res.status).toBe(201);
}

type Data = { add: number; seen?: number };
/** The state every snapshot here keeps: the sum of the events' `add`, folded onto the previous sum. */
const sum = (base: number, events: readonly unknown[]) => events.reduce<number>((t, e) => t + ((e as Data).add ?? 0), base);

/** The last accepted Stream-Seq, from ursa's console API (the protocol shows it only on a 409). */
async function lastSeq(url: string): Promise<string | null> {
  const res = await fetch(`${ursa.url}/__ursula/api/streams${new URL(url).pathname}`);
  return ((await res.json()) as { last_stream_seq: string | null }).last_stream_seq;
}

describe("Compaction: keep the event count in every snapshot, trim, count on from it", () => {
  test("a writer compacts; a second client bootstraps, takes the count from the snapshot and commits with the right Stream-Seq", { timeout: 20_000 }, async () => {
    const url = freshUrl("compact");
    await createJson(url);
    const a = new PrefixCountWriter(url);
    for (let i = 1; i <= 3; i++) await a.commit(() => Array.from({ length: i }, (): Data => ({ add: i })));
    // 1 + 2 + 3 = 6 events, summing to 1 + 4 + 9 = 14.
    const c = await compact(a, (events) => sum(0, events));
    expect(c.count).toBe(6);
    const head = await fetch(url, { method: "HEAD" });
    expect(head.headers.get("Stream-Retained-Offset")).toBe(c.offset);
    expect(head.headers.get("Stream-Snapshot-Offset")).toBe(c.offset);
    expect((await fetch(`${url}?offset=-1`)).status).toBe(410);

    const b = await resumeFromSnapshot<number>(url);
    expect(b.state).toBe(14);
    expect(b.writer.n).toBe(6);
    const committed = await b.writer.commit((log) => {
      expect(log.n).toBe(6);
      return [{ add: 100 }];
    });
    expect(committed.attempts.map((x) => [x.outcome, x.streamSeq])).toEqual([["accepted", padSeq(6)]]);
    expect(await lastSeq(url)).toBe(padSeq(6));
    // The first writer reads b's commit and counts on: its next commit is validated too.
    const next = await a.commit((log) => {
      expect(log.n).toBe(7);
      return [{ add: 1000 }];
    });
    expect(next.n).toBe(7);
  });

  test("writers racing a compaction count on from the newest snapshot when it trims past them, and every commit stays validated", { timeout: 30_000 }, async () => {
    const url = freshUrl("race");
    await createJson(url);
    const first = new PrefixCountWriter(url);
    await first.commit(() => [{ add: 1 }, { add: 1 }]);
    await compact(first, (events) => sum(0, events));
    let trimmed = 0;
    await Promise.all(
      ["w0", "w1", "w2", "w3"].map(async (_id, w) => {
        let resumed = await resumeFromSnapshot<number>(url, { maxAttempts: 1000 });
        for (let i = 0; i < 8; i++) {
          const before = resumed;
          // Each event records the count it was decided against.
          ({ resumed } = await commitResuming(resumed, (_state, log): Data[] => [{ add: 1, seen: log.n }], { maxAttempts: 1000 }));
          if (resumed !== before) trimmed++;
          // Halfway, one writer compacts again, conditional on the snapshot it counted from.
          if (w === 0 && i === 4) {
            const c = await resumeFromSnapshot<number>(url);
            const base = c.state ?? 0;
            await compact(c.writer, (events) => sum(base, events), c.snapshot);
          }
        }
      }),
    );
    // 2 + 32 events in all; the Stream-Seq of the last commit is the count before it.
    expect(await lastSeq(url)).toBe(padSeq(33));
    const all = await readFromSnapshot<number>(url);
    expect(all.from).toBe("snapshot");
    // The newest snapshot's state plus the events after it account for every event ...
    expect(sum(all.state ?? 0, all.events)).toBe(34);
    // ... and each event after it was decided against the count before it, trimmed events included.
    all.events.forEach((e, i) => expect((e as Data).seen).toBe(all.count + i));
    const head = await fetch(url, { method: "HEAD" });
    expect(head.headers.get("Stream-Retained-Offset")).toBe(head.headers.get("Stream-Snapshot-Offset"));
    console.log(`compaction race: ${trimmed} commits counted on from a newer snapshot after a 410`);
  });

  test("a reader from offset=-1 gets 410 and recovers through bootstrap", { timeout: 20_000 }, async () => {
    const url = freshUrl("reader");
    await createJson(url);
    const w = new PrefixCountWriter(url);
    for (let i = 0; i < 3; i++) await w.commit(() => [{ add: 10 }]);
    expect((await readFromSnapshot<number>(url)).from).toBe("start");
    await compact(w, (events) => sum(0, events));
    await w.commit(() => [{ add: 5 }]);
    const gone = await fetch(`${url}?offset=-1`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get("Stream-Earliest-Offset")).not.toBeNull();
    const all = await readFromSnapshot<number>(url);
    expect(all.from).toBe("snapshot");
    expect(all.state).toBe(30);
    expect(all.events.map((e) => (e as Data).add)).toEqual([5]);
    // A writer that insists on counting from -1 cannot: the 410 surfaces as StreamGone, before
    // any append was sent.
    const fromStart = new PrefixCountWriter(url);
    const error = await fromStart.commit(() => [{ add: 1 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamGone);
    expect((error as StreamGone).earliestOffset).toBe(gone.headers.get("Stream-Earliest-Offset"));
    expect(await lastSeq(url)).toBe(padSeq(3));
  });
});

describe("What goes wrong when the count is not kept in the snapshot", () => {
  test("a client that counts only the events after the snapshot sends a Stream-Seq that is too small, and every retry answers 409", { timeout: 20_000 }, async () => {
    const url = freshUrl("no-count");
    await createJson(url);
    const w = new PrefixCountWriter(url);
    for (let i = 0; i < 4; i++) await w.commit(() => [{ add: 1 }]);
    // A snapshot of the state alone, then retention: the first four events are gone for good.
    await w.readOn();
    const offset = w.nextOffset;
    expect((await fetch(`${url}/snapshot/${offset}`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ state: 4 }) })).status).toBe(204);
    expect((await fetch(`${url}/retention/${offset}`, { method: "PUT" })).status).toBe(204);
    await w.commit(() => [{ add: 1 }]);

    // The package refuses such a snapshot rather than guess.
    await expect(resumeFromSnapshot(url)).rejects.toThrow(/keeps no event count/);

    // A client that counts what it can see: the one event after the snapshot.
    const b = await new UrsaStream(url).bootstrap();
    expect(b.messages.length).toBe(1);
    const naive = new PrefixCountWriter(url, { maxAttempts: 3, start: { offset: b.nextOffset, count: b.messages.length } });
    const error = (await naive.commit(() => [{ add: 1 }]).catch((e: unknown) => e)) as RetriesExhausted;
    expect(error).toBeInstanceOf(RetriesExhausted);
    // Its n is 1; the stream's last accepted value is 4, the true count before the last commit.
    expect(error.attempts.map((x) => [x.outcome, x.streamSeq, x.lastSeq])).toEqual(Array.from({ length: 3 }, () => ["conflict", padSeq(1), padSeq(4)]));
    expect(await lastSeq(url)).toBe(padSeq(4));
  });
});

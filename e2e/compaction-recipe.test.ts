// The compaction recipe (e2e/recipes/compaction.ts) against the compiled binary: Ursula v0.9.0,
// Conditional Writes, §Prefix-count compare-and-set, step 3, "keep the event count in every
// snapshot you publish and count on from
// it", and what happens to a client that does not.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  bootstrap,
  commitResuming,
  compact,
  ConflictLimitError,
  padSeq,
  PrefixCountWriter,
  readAll,
  startFromBootstrap,
  TrimmedError,
  type CommitEvent,
} from "./recipes/index.ts";
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

type Data = { add: number };
/** The state every snapshot here keeps: the sum of the events' `add`, folded onto the previous sum. */
const sum = (base: number, events: readonly unknown[]) => events.reduce<number>((t, e) => t + ((e as CommitEvent<Data>).data?.add ?? 0), base);

/** The last accepted Stream-Seq, from ursa's console API (the protocol shows it only on a 409). */
async function lastSeq(url: string): Promise<string | null> {
  const res = await fetch(`${ursa.url}/__ursula/api/streams${new URL(url).pathname}`);
  return ((await res.json()) as { last_stream_seq: string | null }).last_stream_seq;
}

describe("Compaction: keep the event count in every snapshot, trim, count on from it", () => {
  test("a writer compacts; a second client bootstraps, takes the count from the snapshot and commits with the right Stream-Seq", { timeout: 20_000 }, async () => {
    const url = freshUrl("compact");
    await createJson(url);
    const a = new PrefixCountWriter<Data>({ url, writerId: "a" });
    for (let i = 1; i <= 3; i++) await a.commit(() => Array.from({ length: i }, () => ({ add: i })));
    // 1 + 2 + 3 = 6 events, summing to 1 + 4 + 9 = 14.
    const c = await compact(url, a, (events) => sum(0, events));
    expect(c.count).toBe(6);
    const head = await fetch(url, { method: "HEAD" });
    expect(head.headers.get("Stream-Retained-Offset")).toBe(c.offset);
    expect(head.headers.get("Stream-Snapshot-Offset")).toBe(c.offset);
    expect((await fetch(`${url}?offset=-1`)).status).toBe(410);

    const b = await startFromBootstrap<number>(url, { writerId: "b" });
    expect(b.state).toBe(14);
    expect(b.writer.count).toBe(6);
    const receipt = await b.writer.commit((log) => {
      expect(log.count).toBe(6);
      return [{ add: 100 }];
    });
    expect(receipt.streamSeq).toBe(padSeq(6));
    expect(receipt.attempts.map((x) => x.outcome)).toEqual(["accepted"]);
    expect(await lastSeq(url)).toBe(padSeq(6));
    // The first writer reads b's commit and counts on: its next commit is validated too.
    const next = await a.commit((log) => {
      expect(log.count).toBe(7);
      return [{ add: 1000 }];
    });
    expect(next.streamSeq).toBe(padSeq(7));
  });

  test("writers racing a compaction count on from the newest snapshot when it trims past them, and every commit stays validated", { timeout: 30_000 }, async () => {
    const url = freshUrl("race");
    await createJson(url);
    const first = new PrefixCountWriter<Data>({ url, writerId: "first" });
    await first.commit(() => [{ add: 1 }, { add: 1 }]);
    await compact(url, first, (events) => sum(0, events));
    let trimmed = 0;
    await Promise.all(
      ["w0", "w1", "w2", "w3"].map(async (id, w) => {
        let resumed = await startFromBootstrap<number>(url, { writerId: id, maxAttempts: 1000 });
        for (let i = 0; i < 8; i++) {
          const before = resumed;
          // Each event records the count it was decided against.
          ({ resumed } = await commitResuming(url, resumed, (_state: number | null, log: { count: number }) => [{ add: 1, seen: log.count }], { writerId: id, maxAttempts: 1000 }));
          if (resumed !== before) trimmed++;
          // Halfway, one writer compacts again, conditional on the snapshot it counted from.
          if (w === 0 && i === 4) {
            const c = await startFromBootstrap<number>(url, { writerId: "compactor" });
            const base = c.state ?? 0;
            await compact(url, c.writer, (events) => sum(base, events), c.snapshot);
          }
        }
      }),
    );
    // 2 + 32 events in all; the Stream-Seq of the last commit is the count before it.
    expect(await lastSeq(url)).toBe(padSeq(33));
    const all = await readAll<number>(url);
    expect(all.from).toBe("snapshot");
    // The newest snapshot's state plus the events after it account for every event ...
    expect(sum(all.state ?? 0, all.events)).toBe(34);
    // ... and each event after it was decided against the count before it, trimmed events included.
    const head = await fetch(url, { method: "HEAD" });
    const snapshotCount = (JSON.parse(new TextDecoder().decode(all.bootstrap!.snapshot!.bytes)) as { count: number }).count;
    all.events.forEach((e, i) => expect((e as CommitEvent<{ seen: number }>).data.seen).toBe(snapshotCount + i));
    expect(head.headers.get("Stream-Retained-Offset")).toBe(head.headers.get("Stream-Snapshot-Offset"));
    console.log(`compaction race: ${trimmed} commits counted on from a newer snapshot after a 410`);
  });

  test("a reader from offset=-1 gets 410 and recovers through bootstrap", { timeout: 20_000 }, async () => {
    const url = freshUrl("reader");
    await createJson(url);
    const w = new PrefixCountWriter<Data>({ url, writerId: "w" });
    for (let i = 0; i < 3; i++) await w.commit(() => [{ add: 10 }]);
    expect((await readAll<number>(url)).from).toBe("start");
    await compact(url, w, (events) => sum(0, events));
    await w.commit(() => [{ add: 5 }]);
    const gone = await fetch(`${url}?offset=-1`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get("Stream-Earliest-Offset")).not.toBeNull();
    const all = await readAll<number>(url);
    expect(all.from).toBe("snapshot");
    expect(all.state).toBe(30);
    expect(all.events.map((e) => (e as CommitEvent<Data>).data.add)).toEqual([5]);
    // A writer that insists on counting from -1 cannot: the 410 surfaces as an error, before
    // any attempt was sent.
    const fromStart = new PrefixCountWriter<Data>({ url, writerId: "naive" });
    const error = await fromStart.commit(() => [{ add: 1 }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrimmedError);
    expect((error as TrimmedError).attempts).toEqual([]);
    expect((error as TrimmedError).outcomeUnknown).toBe(false);
  });
});

describe("What goes wrong when the count is not kept in the snapshot", () => {
  test("a client that counts only the events after the snapshot sends a Stream-Seq that is too small, and every retry answers 409", { timeout: 20_000 }, async () => {
    const url = freshUrl("no-count");
    await createJson(url);
    const w = new PrefixCountWriter<Data>({ url, writerId: "w" });
    for (let i = 0; i < 4; i++) await w.commit(() => [{ add: 1 }]);
    // A snapshot of the state alone, then retention: the first four events are gone for good.
    await w.readOn();
    const offset = w.nextOffset;
    expect((await fetch(`${url}/snapshot/${offset}`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ state: 4 }) })).status).toBe(204);
    expect((await fetch(`${url}/retention/${offset}`, { method: "PUT" })).status).toBe(204);
    await w.commit(() => [{ add: 1 }]);

    // The recipe refuses such a snapshot rather than guess.
    await expect(startFromBootstrap(url, { writerId: "r" })).rejects.toThrow(/keeps no event count/);

    // A client that counts what it can see: the one event after the snapshot.
    const b = await bootstrap(url);
    expect(b.messages.length).toBe(1);
    const naive = new PrefixCountWriter<Data>({ url, writerId: "naive", maxAttempts: 3, start: { offset: b.nextOffset, count: b.messages.length } });
    const error = (await naive.commit(() => [{ add: 1 }]).catch((e: unknown) => e)) as ConflictLimitError;
    expect(error).toBeInstanceOf(ConflictLimitError);
    // Its n is 1; the stream's last accepted value is 4, the true count before the last commit.
    expect(error.attempts.map((x) => [x.outcome, x.streamSeq, x.lastSeq])).toEqual(Array.from({ length: 3 }, () => ["conflict", padSeq(1), padSeq(4)]));
    expect(await lastSeq(url)).toBe(padSeq(4));
  });
});

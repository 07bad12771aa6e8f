// Forgetting and evicting producers (spec §5.3 [NEW]) must outlive the process: start-up rebuilds
// producer entries from their rows and from log rows not yet folded into them, and neither may
// bring back a producer the stream had let go, or undo a forgotten producer's restart.

import { expect, test } from "bun:test";
import { join } from "node:path";
import type { AppendRequest } from "../../protocol/append";
import type { ProducerLimits } from "../../protocol/producer";
import { createRequest } from "../../protocol/testing-state";
import { inTempDir, snapshot } from "../../testing/temp-dir";
import { SqliteStore } from "./sqlite-store";

const KEY = "limits/s";
const HOUR = 3_600_000;

function open(path: string, clock: { now: number }, producerLimits: ProducerLimits) {
  // Deferred rows are written only when a write finds them a minute old, so a test controls
  // exactly which producer entries are on disk when it "crashes".
  return new SqliteStore({ path, sync: "full", now: () => clock.now, materializeEveryMs: 60_000, producerLimits });
}

const write = (id: string, seq: number, epoch = 0): AppendRequest => ({
  contentType: "text/plain",
  messages: [new TextEncoder().encode(`${id}${seq};`)],
  close: false,
  streamSeq: null,
  producer: { id, epoch, seq },
  incarnation: null,
});

async function outcome(store: SqliteStore, request: AppendRequest) {
  const d = await store.append(KEY, request);
  return d.kind === "error" ? d.code : d.kind;
}

test("an evicted producer stays gone after a crash and after a clean restart", async () => {
  await inTempDir(async (dir) => {
    const limits = { idleTtlMs: 7 * 24 * HOUR, maxPerStream: 2 };
    const clock = { now: 1_000_000 };
    const path = join(dir, "ursa.sqlite");
    const store = open(path, clock, limits);
    await store.create(KEY, createRequest({ bucket: "limits", name: "s", contentType: "text/plain" }));
    expect(await outcome(store, write("a", 0))).toBe("accepted");
    expect(await outcome(store, write("b", 0))).toBe("accepted");
    clock.now += 2 * 60_000;
    // This write finds the deferred rows due: a's entry is now a row of its own.
    expect(await outcome(store, write("b", 1))).toBe("accepted");
    clock.now += HOUR;
    expect(await outcome(store, write("c", 0))).toBe("accepted");
    expect([...(await store.get(KEY))!.producers.keys()].sort()).toEqual(["b", "c"]);

    const afterCrash = open(snapshot(path, dir), clock, limits);
    await store.close();
    const afterClose = open(path, clock, limits);
    for (const reopened of [afterCrash, afterClose]) {
      expect([...(await reopened.get(KEY))!.producers.keys()].sort()).toEqual(["b", "c"]);
      // a is unknown again: only seq 0 is accepted, and it is new, so it needs an idle producer's place.
      expect(await outcome(reopened, write("a", 1))).toBe("PRODUCER_SEQ_CONFLICT");
      expect(await outcome(reopened, write("c", 1))).toBe("accepted");
      await reopened.close();
    }
  });
});

test("a forgotten producer's restart at seq 0 survives a crash", async () => {
  await inTempDir(async (dir) => {
    const limits = { idleTtlMs: 10 * 60_000, maxPerStream: 4096 };
    const clock = { now: 1_000_000 };
    const path = join(dir, "ursa.sqlite");
    const store = open(path, clock, limits);
    await store.create(KEY, createRequest({ bucket: "limits", name: "s", contentType: "text/plain" }));
    for (let seq = 0; seq < 4; seq++) expect(await outcome(store, write("a", seq, 2))).toBe("accepted");
    clock.now += 2 * 60_000;
    expect(await outcome(store, write("b", 0))).toBe("accepted"); // writes a's entry (epoch 2, seq 3) as a row
    clock.now += limits.idleTtlMs;
    expect(await outcome(store, write("c", 0))).toBe("accepted"); // due again: the restart below stays deferred
    expect(await outcome(store, write("a", 4, 2))).toBe("PRODUCER_SEQ_CONFLICT");
    expect(await outcome(store, write("a", 0, 1))).toBe("accepted");
    expect((await store.get(KEY))!.producers.get("a")).toMatchObject({ epoch: 1, lastSeq: 0 });

    const reopened = open(snapshot(path, dir), clock, limits);
    await store.close();
    expect((await reopened.get(KEY))!.producers.get("a")).toMatchObject({ epoch: 1, lastSeq: 0 });
    expect(await outcome(reopened, write("a", 1, 1))).toBe("accepted");
    await reopened.close();
  });
});

test("a producer refused for the limit commits nothing, and the console lists only remembered producers", async () => {
  await inTempDir(async (dir) => {
    const limits = { idleTtlMs: 2 * HOUR, maxPerStream: 1 };
    const clock = { now: 1_000_000 };
    const store = open(join(dir, "ursa.sqlite"), clock, limits);
    await store.create(KEY, createRequest({ bucket: "limits", name: "s", contentType: "text/plain" }));
    expect(await outcome(store, write("a", 0))).toBe("accepted");
    const before = (await store.get(KEY))!;
    clock.now += HOUR - 1;
    expect(await outcome(store, write("b", 0))).toBe("PRODUCER_LIMIT");
    const after = (await store.get(KEY))!;
    expect({ tail: after.tail, count: after.messageCount, producers: [...after.producers] }).toEqual({
      tail: before.tail,
      count: before.messageCount,
      producers: [...before.producers],
    });
    expect((await store.producers(after)).map(([id]) => id)).toEqual(["a"]);
    clock.now += HOUR + 1;
    expect(await store.producers((await store.get(KEY))!)).toEqual([]);
    await store.close();
  });
});

test("under an idle limit shorter than the deferral, eviction and restart still outlive a crash", async () => {
  await inTempDir(async (dir) => {
    const limits = { idleTtlMs: 1000, maxPerStream: 2 };
    const clock = { now: 1_000_000 };
    const path = join(dir, "ursa.sqlite");
    const store = open(path, clock, limits);
    await store.create(KEY, createRequest({ bucket: "limits", name: "s", contentType: "text/plain" }));
    // None of these log rows is folded into a producer row before the crash.
    for (let seq = 0; seq < 3; seq++) expect(await outcome(store, write("a", seq, 2))).toBe("accepted");
    expect(await outcome(store, write("b", 0))).toBe("accepted");
    clock.now += limits.idleTtlMs;
    expect(await outcome(store, write("a", 0, 1))).toBe("accepted"); // restarts in its own place
    expect(await outcome(store, write("c", 0))).toBe("accepted"); // b, forgotten, makes way

    const reopened = open(snapshot(path, dir), clock, limits);
    await store.close();
    const producers = (await reopened.get(KEY))!.producers;
    expect([...producers.keys()].sort()).toEqual(["a", "c"]);
    expect(producers.get("a")).toMatchObject({ epoch: 1, lastSeq: 0 });
    expect(await outcome(reopened, write("a", 1, 1))).toBe("accepted");
    expect(await outcome(reopened, write("b", 1))).toBe("PRODUCER_SEQ_CONFLICT");
    await reopened.close();
  });
});

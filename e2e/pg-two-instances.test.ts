// Two ursa instances on one PostgreSQL database, each request sent to the instance a test names
// (the balancer's own run is e2e/pg-conformance.test.ts). The Conditional Writes races with the racing
// clients split between the instances: each instance decides inside the database transaction,
// so neither can decide on what the other has made stale. And live readers on one instance,
// woken by an append the other acknowledged (LISTEN/NOTIFY carries the wake-up).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CLUSTER_HOOK_TIMEOUT_MS, startCluster, startPair, type Pair, type PgCluster } from "./pg-instances.ts";
import { createJson, describeRace, inspect, outboxTakeover, post, prefixCountRace, racingRecreate, readAll, sleep } from "./cw-races.ts";

let cluster: PgCluster | undefined;
let pair: Pair;
let streams = 0;

beforeAll(async () => {
  cluster = await startCluster();
  pair = await startPair(cluster.url);
}, CLUSTER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await pair?.stop();
  await cluster?.stop();
}, CLUSTER_HOOK_TIMEOUT_MS);

/** One new stream's URL on instance a and on instance b. */
function freshStream(name: string): [string, string] {
  const path = `/two-instances/${name}-${++streams}-${Date.now().toString(36)}`;
  return [pair.a.url + path, pair.b.url + path];
}

describe("[CW] the races of Conditional Writes, the clients split between two instances", () => {
  // Each commit is several round trips to PostgreSQL and most attempts lose the race: 42 s under
  // load 14 here, so the budget is generous.
  test("prefix-count: 8 writers, 4 on each instance; each accepted commit's Stream-Seq is the number of events before it", { timeout: 180_000 }, async () => {
    const [onA, onB] = freshStream("prefix-count");
    await createJson(onA);
    expect((await inspect(onB)).last_stream_seq).toBeNull();
    const race = await prefixCountRace([onA, onB]);
    console.log(`[pg two instances] prefix-count contention: ${describeRace(race)}`);
    // The instances agree on the stored value.
    expect((await inspect(onB)).last_stream_seq).toBe((await inspect(onA)).last_stream_seq);
  });

  test("outbox takeover: the old owner on instance a, the new owner on instance b; fenced across instances, every fact once, in order", { timeout: 30_000 }, async () => {
    const [onA, onB] = freshStream("outbox");
    await createJson(onA);
    await outboxTakeover(onA, onB);
  });

  test("incarnation: appenders with the old token on both instances racing a DELETE on b and a PUT on a never land in the new stream; both answer 412 with the new token", { timeout: 30_000 }, async () => {
    await racingRecreate(freshStream("incarnation"));
  });
});

describe("live reads across instances", () => {
  async function liveReaders(url: string): Promise<number> {
    return ((await (await fetch(`${url}/__ursula/api/info`)).json()) as { live_readers: number }).live_readers;
  }

  /** Until instance `url` reports more live readers than `before`, so the reader is parked before the append. */
  async function parked(url: string, before: number): Promise<void> {
    for (const deadline = Date.now() + 5_000; (await liveReaders(url)) <= before; await sleep(10)) {
      if (Date.now() > deadline) throw new Error(`no reader parked on ${url} after 5 s`);
    }
  }

  test("a long-poll parked on instance b answers with the append instance a acknowledged", { timeout: 30_000 }, async () => {
    const [onA, onB] = freshStream("long-poll");
    await createJson(onA, {}, JSON.stringify([{ n: 0 }]));
    const tail = (await fetch(onB, { method: "HEAD" })).headers.get("Stream-Next-Offset")!;
    const before = await liveReaders(pair.b.url);
    // timeout_ms far beyond the test's wait: without a wake-up the answer would be a 204 after 20 s.
    const poll = fetch(`${onB}?offset=${tail}&live=long-poll&timeout_ms=20000`);
    await parked(pair.b.url, before);
    const ack = await post(onA, [{ n: 1 }]);
    expect(ack.status).toBe(204);
    const res = await poll;
    expect(res.status, pair.logs()).toBe(200);
    expect(await res.json()).toEqual([{ n: 1 }]);
    expect(res.headers.get("Stream-Next-Offset")).toBe(ack.headers.get("Stream-Next-Offset"));
  });

  test("an SSE subscriber on instance b receives each append instance a acknowledged, in order, once, and the close", { timeout: 30_000 }, async () => {
    const [onA, onB] = freshStream("sse");
    await createJson(onA);
    const before = await liveReaders(pair.b.url);
    const abort = new AbortController();
    const res = await fetch(`${onB}?offset=-1&live=sse`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    /** The messages of every `event: data` frame so far (a JSON stream's frame holds an array). */
    const delivered = () =>
      [...text.matchAll(/event: data\n((?:data:[^\n]*\n)+)/g)].flatMap((m) => JSON.parse(m[1]!.replace(/^data: ?/gm, "")) as unknown[]);
    const until = async (count: number) => {
      while (delivered().length < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the SSE response ended after ${JSON.stringify(delivered())}`);
        text += value;
      }
    };
    try {
      await parked(pair.b.url, before);
      for (let n = 1; n <= 5; n++) {
        expect((await post(onA, [{ n }])).status).toBe(204);
        await until(n);
      }
      expect(delivered()).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
      expect(await readAll(onB)).toEqual(delivered());
      expect((await fetch(onA, { method: "POST", headers: { "Stream-Closed": "true" } })).status).toBe(204);
      while (!text.includes("streamClosed")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      expect(text).toContain("streamClosed");
    } finally {
      abort.abort();
    }
  });
});

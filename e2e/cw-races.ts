// The races of Ursula v0.9.0, Conditional Writes, run with ursa-client, shared by e2e/recipes.test.ts (one server) and
// e2e/pg-two-instances.test.ts (two
// instances on one database, the racing clients split between them): the prefix-count race,
// the outbox takeover and appends racing a recreate. Each takes one URL per server for the
// same stream, and the HTTP helpers the [CW] tests check with.
import { expect } from "vitest";
import { OutboxPublisher, padSeq, PrefixCountWriter, ProducerFenced, type Committed } from "../clients/ts/src/index.ts";

/** One event of the race: which commit (operation) and attempt it is from, its index in it, and the count it was decided on. */
interface RaceEvent {
  op: string;
  attempt: number;
  index: number;
  seen: number;
}

export const JSON_TYPE = { "Content-Type": "application/json" };

/** PUT an application/json stream; the Conditional Writes recipes create it without Stream-Seq. */
export async function createJson(url: string, headers: Record<string, string> = {}, body?: string): Promise<string> {
  const res = await fetch(url, { method: "PUT", headers: { ...JSON_TYPE, ...headers }, body });
  expect(res.status, await res.text()).toBe(201);
  const token = res.headers.get("Stream-Incarnation");
  expect(token).toMatch(/^\S+$/);
  return token!;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, { method: "POST", headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res;
}

/**
 * The whole log in one GET, independently of the recipes' own reader (so a bug there cannot
 * hide from the checks). The logs here are far below the 8 MiB response cap.
 */
export async function readAll(url: string): Promise<unknown[]> {
  const res = await fetch(`${url}?offset=-1`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Stream-Up-To-Date"), "readAll: one response should hold the whole log").toBe("true");
  return (await res.json()) as unknown[];
}

/**
 * What the server stores for a stream beyond its bytes, from ursa's console API: the last
 * accepted Stream-Seq is not visible through the protocol except on a 409.
 */
export async function inspect(url: string): Promise<{ last_stream_seq: string | null; incarnation: string; tail_offset: number; producers: unknown[] }> {
  const { origin, pathname } = new URL(url);
  const res = await fetch(`${origin}/__ursula/api/streams${pathname}`);
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RaceResult {
  commits: number;
  events: number;
  attempts: number;
  conflicts: number;
  seconds: number;
}

/**
 * 8 writers of the recipe commit 1–3 events each, 25 times, on one stream, and the log is then
 * checked against every acknowledged commit. `urls` name one stream, each through a different server; writer w writes through
 * urls[w % urls.length]. The log and the stored value are read through urls[0].
 */
export async function prefixCountRace(urls: string[], writers = 8, commits = 25): Promise<RaceResult> {
  const url = urls[0]!;
  const receipts: { committed: Committed; attempt: number }[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const writer = new PrefixCountWriter(urls[w % urls.length]!, { maxAttempts: 10_000, operationIdOf: (e) => (e as RaceEvent).op });
      for (let c = 0; c < commits; c++) {
        const size = 1 + ((w * 7 + c * 5) % 3); // 1–3 events
        // Each event records the count it was validated against, so the log itself shows
        // whether every commit was decided on the whole log before it; and the attempt, which
        // is how many times this commit was decided.
        let attempt = 0;
        const committed = await writer.commit((log) => {
          attempt++;
          return Array.from({ length: size }, (_, index): RaceEvent => ({ op: log.operationId, attempt, index, seen: log.n }));
        });
        receipts.push({ committed, attempt });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;

  const log = (await readAll(url)) as RaceEvent[];
  // Group the log into runs of one commit each.
  const runs = new Map<string, { position: number; size: number; attempt: number }>();
  for (let i = 0; i < log.length; ) {
    const first = log[i]!;
    expect(runs.has(first.op), `commit ${first.op} appears twice (or split) in the log`).toBe(false);
    let size = 0;
    while (i + size < log.length && log[i + size]!.op === first.op) {
      const e = log[i + size]!;
      // "the elements are committed together": indexes 0..k-1, in order, from one attempt.
      expect(e.index).toBe(size);
      expect(e.attempt).toBe(first.attempt);
      // Validated against the whole log before it: the count it saw is its position.
      expect(e.seen, `commit ${first.op} was decided on ${e.seen} events, but sits after ${i}`).toBe(i);
      size++;
    }
    runs.set(first.op, { position: i, size, attempt: first.attempt });
    i += size;
  }

  expect(receipts).toHaveLength(writers * commits);
  // No event from anything but an acknowledged commit, and all of each one's events.
  expect(runs.size).toBe(receipts.length);
  expect(log.length).toBe(receipts.reduce((s, r) => s + r.committed.size, 0));
  const commitStarts = new Set([...runs.values()].map((r) => r.position));
  let attempts = 0;
  let conflicts = 0;
  for (const { committed: r, attempt } of receipts) {
    const run = runs.get(r.operationId);
    expect(run, `acknowledged commit ${r.operationId} is missing`).toBeDefined();
    // "a writer whose append is accepted has seen the whole log": the acknowledged request's
    // Stream-Seq equals the number of events before the commit.
    expect(Number(r.attempts.at(-1)!.streamSeq)).toBe(run!.position);
    expect(r.n).toBe(run!.position);
    expect(run!.size).toBe(r.size);
    // The attempt in the log is the acknowledged one, the last; every 409 attempt is absent
    // ("nothing from the request is committed").
    expect(run!.attempt).toBe(attempt);
    expect(r.attempts).toHaveLength(attempt);
    for (const a of r.attempts) {
      attempts++;
      if (a.outcome === "conflict") {
        conflicts++;
        // "Stream-Last-Seq is the count before that writer's commit": a commit boundary,
        // and never below what the loser sent.
        expect(commitStarts.has(Number(a.lastSeq))).toBe(true);
        expect(a.lastSeq! >= a.streamSeq).toBe(true);
      }
    }
    expect(r.attempts.filter((a) => a.outcome === "accepted")).toHaveLength(1);
    expect(r.attempts.some((a) => a.outcome === "lost")).toBe(false);
  }
  // "the stored value is always the event count before the latest commit".
  const lastRun = [...runs.values()].at(-1)!;
  expect((await inspect(url)).last_stream_seq).toBe(padSeq(lastRun.position));
  // Eight writers racing must collide; with no 409 at all the race was never exercised.
  expect(conflicts).toBeGreaterThan(0);
  return { commits: receipts.length, events: log.length, attempts, conflicts, seconds };
}

/** The figures a race prints, so a slow or conflict-free run shows in the log. */
export function describeRace(r: RaceResult, writers = 8, commits = 25): string {
  return (
    `${writers} writers x ${commits} commits, ${r.events} events in ${r.seconds.toFixed(2)} s: ` +
    `${(r.commits / r.seconds).toFixed(1)} commits/s, 409 rate ${((100 * r.conflicts) / r.attempts).toFixed(1)}% (${r.conflicts}/${r.attempts} POSTs), ` +
    `${((r.attempts - r.commits) / r.commits).toFixed(2)} retries per commit`
  );
}

/**
 * The outbox takeover (Conditional Writes, §Publishing committed facts): owner A (epoch 1) publishes facts
 * 1–8 and dies with fact 9 committed but unacknowledged; owner B (epoch 2) takes over from an
 * older checkpoint. `urlA` and `urlB` name one new, empty application/json stream, as each
 * owner reaches it (through two instances, or both through one server).
 */
export async function outboxTakeover(urlA: string, urlB: string): Promise<void> {
  const PRODUCER = "orders-outbox";
  const fact = (n: number) => ({ number: n, payload: `order-${n}` });

  // Owner A, epoch 1. Its last request reaches the server, but A dies before the answer
  // comes back: while `crashed` is set its fetch loses the response.
  let crashed = false;
  const aStatuses: number[] = [];
  const aFetch = async (input: string, init?: RequestInit) => {
    const res = await fetch(input, init);
    aStatuses.push(res.status);
    if (!crashed) return res;
    await res.arrayBuffer();
    throw new TypeError("owner A died with this request in flight");
  };
  const a = new OutboxPublisher(urlA, { producerId: PRODUCER, epoch: 1, fetch: aFetch, maxNetworkRetries: 0 });
  for (let n = 1; n <= 8; n++) expect(await a.publish(n, fact(n))).toBe("published");
  expect(aStatuses).toEqual(Array.from({ length: 8 }, () => 200));
  crashed = true;
  await expect(a.publish(9, fact(9))).rejects.toThrow(/died/); // fact 9: committed, unacknowledged
  crashed = false;
  expect(a.lastPublished).toBe(8);

  // Owner B takes over with a higher epoch and Producer-Seq 0, from an older checkpoint (5).
  const b = new OutboxPublisher(urlB, { producerId: PRODUCER, epoch: 2 });
  // Fact 6 was published by A: "409 with Stream-Last-Seq, which here means 'already
  // published'". Stream-Last-Seq is 9, A's unacknowledged last fact.
  expect(await b.publish(6, fact(6))).toBe("already-published");
  expect(b.lastPublished).toBe(9);
  expect(b.nextProducerSeq).toBe(0); // the 409 used up no Producer-Seq

  // "Before that, an old owner can still publish": B has no accepted append yet, so A (only
  // paused, not dead) still gets through. Its retry of fact 9 is a duplicate (204, nothing
  // written twice), then it publishes fact 10.
  expect(await a.publish(9, fact(9))).toBe("published");
  expect(await a.publish(10, fact(10))).toBe("published");
  expect(aStatuses.slice(-2)).toEqual([204, 200]);

  // B goes on to the first fact after Stream-Last-Seq (10): A got there first, so 409 again.
  expect(await b.publish(10, fact(10))).toBe("already-published");
  expect(b.lastPublished).toBe(10);
  // Fact 11 is B's first accepted append, with Producer-Seq still 0.
  expect(await b.publish(11, fact(11))).toBe("published");
  expect(b.nextProducerSeq).toBe(1);

  // "Once the new owner's first append is accepted, appends with the old epoch answer 403."
  const fenced = await a.publish(11, fact(11)).catch((e: unknown) => e);
  expect(fenced).toBeInstanceOf(ProducerFenced);
  expect((fenced as ProducerFenced).currentEpoch).toBe(2);
  // Whatever fact it tries: a raw append with epoch 1 and an unused fact number is 403 too.
  const raw = await post(urlA, { number: 99, payload: "zombie" }, { "Producer-Id": PRODUCER, "Producer-Epoch": "1", "Producer-Seq": "10", "Stream-Seq": padSeq(99) });
  expect(raw.status).toBe(403);

  for (let n = 12; n <= 20; n++) expect(await b.publish(n, fact(n))).toBe("published");
  expect(b.nextProducerSeq).toBe(10);

  for (const url of new Set([urlA, urlB])) {
    expect(await readAll(url)).toEqual(Array.from({ length: 20 }, (_, i) => fact(i + 1)));
  }
}

/**
 * The incarnation guard (Conditional Writes, §Guarding against a recreated stream) under a race:
  * four appenders holding the old token keep going
 * while the stream is deleted and created again, and none of their appends lands in the new
 * stream. `urls` name one stream that does not exist yet, each through a different server:
 * appender i writes through urls[i % n], the DELETE goes through the last, the PUT through the first.
 */
export async function racingRecreate(urls: string[]): Promise<void> {
  // Equal-length events, so old and new offsets fall on message boundaries of either stream.
  const ev = (tag: string) => ({ v: tag });
  const body = (...tags: string[]) => JSON.stringify(tags.map(ev));
  const first = urls[0]!;
  const last = urls.at(-1)!;
  const token = await createJson(first, {}, body("a1"));
  const h = { ...JSON_TYPE, "Stream-Incarnation": token };
  // Four appenders with the old token keep going, back to back, from before the DELETE until
  // each of them has been refused with 412 by the new stream.
  const statuses: number[] = [];
  const deadline = Date.now() + 5_000;
  const appenders = Array.from({ length: 4 }, async (_, i) => {
    for (;;) {
      const res = await fetch(urls[i % urls.length]!, { method: "POST", headers: h, body: body("xx") });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 412 || Date.now() > deadline) return;
    }
  });
  while (!statuses.includes(204)) await sleep(1);
  expect((await fetch(last, { method: "DELETE" })).status).toBe(204);
  const newToken = await createJson(first, {}, body("b1"));
  await Promise.all(appenders);
  // Each append landed in the old stream (204), found no stream (404) or found the new one and
  // was refused (412); the new stream holds none of them.
  expect(new Set(statuses)).toContain(204);
  expect(statuses.filter((x) => x === 412)).toHaveLength(4);
  for (const status of statuses) expect([204, 404, 412]).toContain(status);
  for (const url of urls) {
    expect(await readAll(url)).toEqual([ev("b1")]);
    const later = await post(url, [ev("xx")], { "Stream-Incarnation": token });
    expect(later.status).toBe(412);
    expect(later.headers.get("Stream-Incarnation")).toBe(newToken);
  }
}

// The recipes of Ursula v0.9.0, Conditional Writes, as ursa-client (clients/ts) implements them,
// run against the compiled binary: one describe per section and tests named after its rules.
// The package is the code a user imports; these tests prove it correct under contention, show
// the pitfalls as documented behaviour, and pin the server behaviour each recipe depends on.
// e2e/client-package.test.ts runs the same recipes from the packed tarball.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bodyText } from "./body-text.ts";
import { createJson, describeRace, inspect, JSON_TYPE, outboxTakeover, post, prefixCountRace, racingRecreate, readAll, sleep } from "./cw-races.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";
import { IncarnationMismatch, OutboxPublisher, OutcomeUnknown, padSeq, PrefixCountWriter, RetriesExhausted, StreamClosed, UrsaStream } from "../clients/ts/src/index.ts";

const BUCKET = "recipes";
let ursa: UrsaProcess;
let streams = 0;

beforeAll(async () => {
  ursa = await startUrsa();
});

afterAll(async () => {
  await ursa?.stop();
  ursa?.cleanup();
});

/** A URL for a stream no test has used. */
function freshUrl(name: string): string {
  return `${ursa.url}/${BUCKET}/${name}-${++streams}-${Date.now().toString(36)}`;
}


// ---------------------------------------------------------------------------------------------

describe("Prefix-count compare-and-set", () => {
  test(
    "concurrent writers: each accepted commit's Stream-Seq is the number of events before it; nothing lost, duplicated or half-applied",
    { timeout: 30_000 },
    async () => {
      const url = freshUrl("prefix-count");
      // Conditional Writes, prefix-count step 1: "Create the stream with a PUT without Stream-Seq,
      // so no value is stored
      // and the first commit's 0 is accepted".
      await createJson(url);
      expect((await inspect(url)).last_stream_seq).toBeNull();
      const race = await prefixCountRace([url]);
      console.log(`[recipes] prefix-count contention: ${describeRace(race)}`);
    },
  );

  test("consistency=leader is accepted and reads committed state: every acknowledged append is in the next read", { timeout: 10_000 }, async () => {
    const url = freshUrl("leader");
    await createJson(url);
    let offset = "-1";
    for (let i = 0; i < 20; i++) {
      const ack = await post(url, [{ i }]);
      expect(ack.status).toBe(204);
      const res = await fetch(`${url}?offset=${offset}&consistency=leader`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([{ i }]);
      // Up to date means nothing committed past Stream-Next-Offset: the ack's own tail.
      expect(res.headers.get("Stream-Up-To-Date")).toBe("true");
      expect(res.headers.get("Stream-Next-Offset")).toBe(ack.headers.get("Stream-Next-Offset"));
      offset = res.headers.get("Stream-Next-Offset")!;
    }
    // Accepted on every read: HEAD, and a long-poll (here at the tail, so it times out: 204).
    const head = await fetch(`${url}?consistency=leader`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Stream-Next-Offset")).toBe(offset);
    const poll = await fetch(`${url}?offset=${offset}&live=long-poll&timeout_ms=1&consistency=leader`);
    expect(poll.status).toBe(204);
    // The parameter is parsed, not ignored: local is the other legal value, anything else is 400.
    expect((await fetch(`${url}?offset=-1&consistency=local`)).status).toBe(200);
    const bad = await fetch(`${url}?offset=-1&consistency=eventual`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("INVALID_QUERY");
  });

  test("On a Stream-Seq 409 the writer reads on, counts the k new events, validates again and retries with n + k", { timeout: 10_000 }, async () => {
    const url = freshUrl("retry");
    await createJson(url);
    const fast = new PrefixCountWriter(url);
    // The slow writer's first POST is held back until the fast writer has committed 2 events,
    // so the slow one sends a count that is already stale.
    let raced = false;
    const slowFetch = async (input: string, init?: RequestInit) => {
      if (init?.method === "POST" && !raced) {
        raced = true;
        await fast.commit(() => ["fast:a", "fast:b"]);
      }
      return fetch(input, init);
    };
    const slow = new PrefixCountWriter(url, { fetch: slowFetch });
    const seenCounts: number[] = [];
    const committed = await slow.commit((log) => {
      seenCounts.push(log.n);
      return ["slow:c"];
    });
    expect(seenCounts).toEqual([0, 2]);
    expect(committed.attempts.map((a) => [a.outcome, a.streamSeq, a.lastSeq])).toEqual([
      // "Stream-Last-Seq is the count before that writer's commit": fast's commit sent 0.
      ["conflict", padSeq(0), padSeq(0)],
      ["accepted", padSeq(2), undefined],
    ]);
    expect(committed.n).toBe(2);
    expect(await readAll(url)).toEqual(["fast:a", "fast:b", "slow:c"]);
  });

  test("any other non-2xx is an error: a 409 without Stream-Last-Seq is thrown, not retried", async () => {
    const url = freshUrl("other-409");
    await createJson(url);
    const writer = new PrefixCountWriter(url);
    await writer.commit(() => ["x"]);
    // Close the stream: the next append answers 409 STREAM_CLOSED, which carries no
    // Stream-Last-Seq ("A 409 with Stream-Last-Seq comes only from the Stream-Seq check").
    const close = await fetch(url, { method: "POST", headers: { "Stream-Closed": "true" } });
    expect(close.status).toBe(204);
    const error = await writer.commit(() => ["y"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamClosed);
    expect((error as StreamClosed).status).toBe(409);
    expect((error as StreamClosed).headers.get("Stream-Closed")).toBe("true");
    expect((error as StreamClosed).headers.get("Stream-Last-Seq")).toBeNull();
    expect(await readAll(url)).toHaveLength(1);
  });

  describe("If the response to an append is lost: put an operation ID in each commit and look for it before retrying", () => {
    /** A fetch whose POSTs behave as `plan` says, once each, in order; then normal. */
    function lossyFetch(plan: ("deliver-then-lose" | "lose-before-sending" | "hold")[]) {
      const held: (() => Promise<Response>)[] = [];
      const f: typeof fetch = async (input, init) => {
        if (init?.method !== "POST" || plan.length === 0) return fetch(input, init);
        const step = plan.shift()!;
        if (step === "deliver-then-lose") {
          const res = await fetch(input, init);
          await res.arrayBuffer();
          throw new TypeError("fetch failed: connection reset (simulated, after the server answered)");
        }
        // The request is not sent now; "hold" keeps it to send later, like a request stuck in
        // a queue that arrives after the writer has moved on.
        if (step === "hold") held.push(() => fetch(input, { ...init, signal: undefined }));
        throw new TypeError("fetch failed: connect timeout (simulated, nothing sent)");
      };
      return { fetch: f, held };
    }

    /** An event that names its commit (operation) and which attempt of it decided it. */
    interface Tagged {
      op: string;
      attempt: number;
      data: string;
    }
    /** A writer that reads operation IDs back. */
    const taggedWriter = (url: string, f: typeof fetch) => new PrefixCountWriter(url, { fetch: f, operationIdOf: (e) => (e as Tagged).op });
    /** A decide that tags its events with the operation ID and the attempt. */
    function tagged(...data: string[]) {
      let attempt = 0;
      return (log: { operationId: string }) => {
        attempt++;
        return data.map((d): Tagged => ({ op: log.operationId, attempt, data: d }));
      };
    }

    test("the commit landed: the writer finds its operation ID in the log and does not append it again", async () => {
      const url = freshUrl("lost-after");
      await createJson(url);
      const committed = await taggedWriter(url, lossyFetch(["deliver-then-lose"]).fetch).commit(tagged("once", "only"));
      expect(committed.attempts.map((a) => a.outcome)).toEqual(["lost"]);
      // Confirmed by reading it back: there is no acknowledgement, so no tail from one.
      expect(committed.nextOffset).toBeNull();
      expect(committed.n).toBe(0);
      expect(committed.size).toBe(2);
      const log = (await readAll(url)) as Tagged[];
      expect(log.map((e) => e.data)).toEqual(["once", "only"]);
    });

    test("the commit never arrived: the writer finds nothing and retries, and the commit is in the log once", async () => {
      const url = freshUrl("lost-before");
      await createJson(url);
      const committed = await taggedWriter(url, lossyFetch(["lose-before-sending"]).fetch).commit(tagged("x"));
      expect(committed.nextOffset).not.toBeNull();
      expect(committed.attempts.map((a) => a.outcome)).toEqual(["lost", "accepted"]);
      const log = (await readAll(url)) as Tagged[];
      expect(log.map((e) => [e.op, e.attempt])).toEqual([[committed.operationId, 2]]);
    });

    test("a lost attempt that arrives after the retry was accepted can no longer land: its count is no longer greater", async () => {
      const url = freshUrl("lost-late");
      await createJson(url);
      const lossy = lossyFetch(["hold"]);
      const committed = await taggedWriter(url, lossy.fetch).commit(tagged("x"));
      expect(committed.attempts.map((a) => a.outcome)).toEqual(["lost", "accepted"]);
      expect(lossy.held).toHaveLength(1);
      const late = await lossy.held[0]!();
      await late.arrayBuffer();
      expect(late.status).toBe(409);
      expect(late.headers.get("Stream-Last-Seq")).toBe(padSeq(0));
      expect(await readAll(url)).toHaveLength(1);
    });

    test("a writer that cannot read operation IDs back throws OutcomeUnknown instead of guessing", async () => {
      const url = freshUrl("lost-unknown");
      await createJson(url);
      const error = await new PrefixCountWriter(url, { fetch: lossyFetch(["deliver-then-lose"]).fetch }).commit(() => ["x"]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutcomeUnknown);
      expect((error as OutcomeUnknown).status).toBe(0);
      // It did land; only a read can tell, and the writer did not append it again.
      expect(await readAll(url)).toEqual(["x"]);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("Prefix-count pitfalls, as documented behaviour", () => {
  test("A value above the true count, from a seeding PUT, is stored like any other: every honest commit answers 409", async () => {
    const url = freshUrl("seeded");
    // The pitfall: seeding the stream with Stream-Seq 5 while it holds no events.
    await createJson(url, { "Stream-Seq": padSeq(5) });
    const writer = new PrefixCountWriter(url, { maxAttempts: 4 });
    const error = await writer.commit(() => ["e"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhausted);
    // Each retry reads on, finds k = 0 new events, sends 0 again and loses again.
    expect((error as RetriesExhausted).attempts.map((a) => [a.outcome, a.streamSeq, a.lastSeq])).toEqual(
      Array.from({ length: 4 }, () => ["conflict", padSeq(0), padSeq(5)]),
    );
    expect(await readAll(url)).toEqual([]);

    // Control: the same stream created by the package (never with Stream-Seq) accepts the first commit's 0.
    const good = freshUrl("unseeded");
    expect((await new UrsaStream(good).create({ contentType: "application/json" })).created).toBe(true);
    const committed = await new PrefixCountWriter(good).commit(() => ["e"]);
    expect(committed.attempts.map((a) => [a.outcome, a.streamSeq])).toEqual([["accepted", padSeq(0)]]);
  });

  test("Do not send the count after your own commit: two writers that both read 3 events both win", async () => {
    const url = freshUrl("count-after");
    await createJson(url);
    const setup = new PrefixCountWriter(url);
    for (const e of ["e1", "e2", "e3"]) await setup.commit(() => [e]);
    // A and B both read the log: 3 events.
    expect(await readAll(url)).toHaveLength(3);
    // Wrong: each sends the position its own last event will take.
    const a = await post(url, [{ writer: "A", saw: 3 }], { "Stream-Seq": padSeq(3 + 1) });
    const b = await post(url, [{ writer: "B", saw: 3 }, { writer: "B", saw: 3 }], { "Stream-Seq": padSeq(3 + 2) });
    expect(a.status).toBe(204);
    // B is accepted too, though its events were validated against a log without A's event.
    expect(b.status).toBe(204);
    const log = await readAll(url);
    expect(log).toHaveLength(6);
    expect(log[3]).toEqual({ writer: "A", saw: 3 });
    expect(log[4]).toEqual({ writer: "B", saw: 3 }); // sits after 4 events, decided on 3

    // Control, the recipe's rule: both send n = 3; the second gets 409 and must read on.
    const right = freshUrl("count-before");
    await createJson(right);
    const setup2 = new PrefixCountWriter(right);
    for (const e of ["e1", "e2", "e3"]) await setup2.commit(() => [e]);
    const a2 = await post(right, [{ writer: "A" }], { "Stream-Seq": padSeq(3) });
    const b2 = await post(right, [{ writer: "B" }, { writer: "B" }], { "Stream-Seq": padSeq(3) });
    expect(a2.status).toBe(204);
    expect(b2.status).toBe(409);
    expect(b2.headers.get("Stream-Last-Seq")).toBe(padSeq(3));
  });

  test("The read must end at the tail: a read cut short by max_bytes can stop inside a commit, and its count can beat the stored value", async () => {
    const url = freshUrl("max-bytes");
    await createJson(url);
    const first = await new PrefixCountWriter(url).commit(() => ["c1", "c2", "c3"]);
    expect(first.n).toBe(0); // stored value: 0
    // A careless reader stops after one response capped at 1 byte: one whole message (the
    // first event of the 3-event commit) and no Stream-Up-To-Date.
    const short = await fetch(`${url}?offset=-1&max_bytes=1&consistency=leader`);
    const part = (await short.json()) as unknown[];
    expect(part).toHaveLength(1);
    expect(short.headers.get("Stream-Up-To-Date")).toBeNull();
    // Its count, 1, beats the stored 0: accepted, although it never saw c2 and c3.
    const careless = await post(url, [{ writer: "careless", saw: part.length }], { "Stream-Seq": padSeq(part.length) });
    expect(careless.status).toBe(204);
    const log = await readAll(url);
    expect(log).toHaveLength(4);
    expect(log[3]).toEqual({ writer: "careless", saw: 1 }); // decided on 1 event, sits after 3

    // The recipe reads on until Stream-Up-To-Date: true, so it counts all 4.
    const careful = new PrefixCountWriter(url);
    const committed = await careful.commit((l) => [`saw ${l.n}`]);
    expect(committed.n).toBe(4);
    expect(committed.attempts.at(-1)!.streamSeq).toBe(padSeq(4));
  });
});

// ---------------------------------------------------------------------------------------------

describe("Publishing committed facts (outbox)", () => {
  const PRODUCER = "orders-outbox";

  test(
    "takeover: republished facts answer 409 'already published', the new owner skips on, fences the old one (403), and every fact is on the stream once, in order",
    { timeout: 15_000 },
    async () => {
      const url = freshUrl("outbox");
      await createJson(url);
      await outboxTakeover(url, url);
    },
  );

  test("An append rejected with 409 uses up no Producer-Seq; a retry of an accepted append is a duplicate, not 409", async () => {
    const url = freshUrl("producer-seq");
    await createJson(url);
    const guards = (seq: number, fact: number) => ({ "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": String(seq), "Stream-Seq": padSeq(fact) });
    expect((await post(url, { n: 1 }, guards(0, 1))).status).toBe(200);
    const conflict = await post(url, { n: 1 }, guards(1, 1)); // fact 1 again, with Producer-Seq 1
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get("Stream-Last-Seq")).toBe(padSeq(1));
    // "A Stream-Seq 409 carries neither Stream-Closed nor Producer-Expected-Seq."
    expect(conflict.headers.get("Stream-Closed")).toBeNull();
    expect(conflict.headers.get("Producer-Expected-Seq")).toBeNull();
    // Producer-Seq 1 is still free: accepted (200), not answered as a duplicate (204).
    const next = await post(url, { n: 2 }, guards(1, 2));
    expect(next.status).toBe(200);
    expect(next.headers.get("Producer-Seq")).toBe("1");
    // "Producer deduplication runs first": the retry's Stream-Seq 2 is no longer greater, yet
    // the answer is a duplicate with the original Stream-Next-Offset, not a 409.
    const retry = await post(url, { n: 2 }, guards(1, 2));
    expect(retry.status).toBe(204);
    expect(retry.headers.get("Stream-Next-Offset")).toBe(next.headers.get("Stream-Next-Offset"));
    expect(await readAll(url)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  test("Only a 409 with Stream-Last-Seq means 'already published': any other 409 is an error, and the publisher does not skip", async () => {
    const url = freshUrl("outbox-closed");
    await createJson(url);
    const pub = new OutboxPublisher(url, { producerId: PRODUCER, epoch: 1 });
    expect(await pub.publish(1, { number: 1 })).toBe("published");
    expect((await fetch(url, { method: "POST", headers: { "Stream-Closed": "true" } })).status).toBe(204);
    const error = await pub.publish(2, { number: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamClosed);
    expect((error as StreamClosed).status).toBe(409);
    expect((error as StreamClosed).headers.get("Stream-Last-Seq")).toBeNull();
    expect(pub.lastPublished).toBe(1); // fact 2 was not skipped
    expect(pub.nextProducerSeq).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

describe("Guarding against a recreated stream (Stream-Incarnation)", () => {
  // Equal-length events, so old and new offsets fall on message boundaries of either stream.
  const ev = (tag: string) => ({ v: tag });
  const body = (...tags: string[]) => JSON.stringify(tags.map(ev));

  /** Everything a request could change, read without the header. */
  async function snapshot(url: string) {
    const head = await fetch(url, { method: "HEAD" });
    const info = await inspect(url);
    return {
      status: head.status,
      token: head.headers.get("Stream-Incarnation"),
      tail: head.headers.get("Stream-Next-Offset"),
      closed: head.headers.get("Stream-Closed"),
      events: await readAll(url),
      lastSeq: info.last_stream_seq,
      producers: info.producers,
    };
  }

  /** Deletes `url` and creates it again holding `tags`; returns the new token. */
  async function recreate(url: string, ...tags: string[]): Promise<string> {
    expect((await fetch(url, { method: "DELETE" })).status).toBe(204);
    return createJson(url, {}, body(...tags));
  }

  test("on 412 the client discards derived state, keeps the new token and restarts from the stream's start", async () => {
    const url = freshUrl("client");
    const oldToken = await createJson(url, {}, body("a1", "a2", "a3"));
    const client = new UrsaStream(url);
    const values = (messages: unknown[]) => messages.map((e) => (e as { v: string }).v);
    let read = await client.readToTail();
    expect(values(read.messages)).toEqual(["a1", "a2", "a3"]);
    expect(client.incarnation).toBe(oldToken);

    // The new stream holds 4 events, so the client's old offset (after a3) is a valid position
    // there: only the token tells it that reading on from there would be wrong.
    const newToken = await recreate(url, "b1", "b2", "b3", "b4");
    expect(newToken).not.toBe(oldToken);
    const refused = await client.readToTail(read.nextOffset).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IncarnationMismatch);
    expect((refused as IncarnationMismatch).incarnation).toBe(newToken);
    client.startOver((refused as IncarnationMismatch).incarnation);
    read = await client.readToTail();
    expect(values(read.messages)).toEqual(["b1", "b2", "b3", "b4"]); // nothing of a1..a3 survives

    // A write derived from old state is refused and applies nothing.
    await recreate(url, "c1");
    const write = await client.append([ev("from-b")]).catch((e: unknown) => e);
    expect(write).toBeInstanceOf(IncarnationMismatch);
    expect(await readAll(url)).toEqual([ev("c1")]);
    client.startOver((write as IncarnationMismatch).incarnation);
    read = await client.readToTail();
    expect((await client.append([ev("c2")])).incarnation).toBe(client.incarnation);
    // Its own append, read back by a long-poll from where it stopped.
    const follow = client.read({ offset: read.nextOffset, live: "long-poll", timeoutMs: 5_000 });
    expect((await follow.next()).value).toMatchObject({ messages: [ev("c2")] });

    // A long-poll with the old token: 412 at once (not after 5 s).
    await recreate(url, "d1", "d2");
    const started = performance.now();
    const polled = await follow.next().catch((e: unknown) => e);
    expect(polled).toBeInstanceOf(IncarnationMismatch);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("Every successful response that addresses a stream, except a DELETE, carries Stream-Incarnation", async () => {
    const url = freshUrl("carries");
    const token = await createJson(url); // PUT 201
    const responses: [string, Response][] = [
      ["PUT 200", await fetch(url, { method: "PUT", headers: JSON_TYPE })],
      ["POST 204", await post(url, [ev("a1")])],
      ["POST 200 (producer)", await post(url, [ev("a2")], { "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": "0" })],
      ["GET catch-up", await fetch(`${url}?offset=-1`)],
      ["GET long-poll 204", await fetch(`${url}?offset=now&live=long-poll&timeout_ms=1`)],
      ["HEAD", await fetch(url, { method: "HEAD" })],
    ];
    const sseAbort = new AbortController();
    responses.push(["GET SSE", await fetch(`${url}?offset=now&live=sse`, { signal: sseAbort.signal })]);
    for (const [name, res] of responses) {
      expect(res.status, name).toBeLessThan(300);
      expect(res.headers.get("Stream-Incarnation"), name).toBe(token);
    }
    sseAbort.abort();
    const del = await fetch(url, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(del.headers.get("Stream-Incarnation")).toBeNull();
  });

  test("the check is atomic with the write: appends racing a DELETE and PUT never land in the new stream", { timeout: 10_000 }, async () => {
    await racingRecreate([freshUrl("atomic")]);
  });

  test("every kind of request with the old token answers 412 carrying the new token, and applies nothing", { timeout: 10_000 }, async () => {
    const url = freshUrl("every-request");
    const oldToken = await createJson(url, {}, body("a1", "a2"));
    const oldTail = (await fetch(url, { method: "HEAD" })).headers.get("Stream-Next-Offset")!;
    const newToken = await recreate(url, "b1", "b2", "b3", "b4");
    const before = await snapshot(url);
    expect(before.token).toBe(newToken);
    const old = { "Stream-Incarnation": oldToken };

    const requests: [string, () => Promise<Response>][] = [
      [
        "POST append (with Stream-Seq and producer headers)",
        () =>
          fetch(url, {
            method: "POST",
            headers: { ...JSON_TYPE, ...old, "Stream-Seq": padSeq(99), "Producer-Id": "p", "Producer-Epoch": "3", "Producer-Seq": "0" },
            body: body("x"),
          }),
      ],
      ["POST close", () => fetch(url, { method: "POST", headers: { ...old, "Stream-Closed": "true" } })],
      ["GET catch-up", () => fetch(`${url}?offset=${oldTail}`, { headers: old })],
      ["GET long-poll", () => fetch(`${url}?offset=${before.tail}&live=long-poll&timeout_ms=5000`, { headers: old })],
      ["GET SSE", () => fetch(`${url}?offset=${oldTail}&live=sse`, { headers: old })],
      ["HEAD", () => fetch(url, { method: "HEAD", headers: old })],
      ["DELETE", () => fetch(url, { method: "DELETE", headers: old })],
      ["PUT of the existing stream", () => fetch(url, { method: "PUT", headers: { ...JSON_TYPE, ...old } })],
    ];
    for (const [name, send] of requests) {
      const started = performance.now();
      const res = await send();
      await res.arrayBuffer();
      expect(res.status, name).toBe(412);
      // "The 412 carries the current token."
      expect(res.headers.get("Stream-Incarnation"), name).toBe(newToken);
      // A parked long-poll would take 5 s: the check runs at request start.
      expect(performance.now() - started, name).toBeLessThan(2_000);
      expect(await snapshot(url), `${name} changed the stream`).toEqual(before);
    }

    // Control: with the current token the same requests are served.
    const cur = { "Stream-Incarnation": newToken };
    expect((await fetch(url, { method: "HEAD", headers: cur })).status).toBe(200);
    const read = await fetch(`${url}?offset=${oldTail}`, { headers: cur });
    expect(await read.json()).toEqual([ev("b3"), ev("b4")]);
    expect((await post(url, [ev("b5")], cur)).status).toBe(204);
  });

  test("a request that would answer 404 without the header still does; a PUT with the header for a missing stream answers 412 and creates nothing", async () => {
    const url = freshUrl("missing");
    const token = await createJson(url, {}, body("a1"));
    expect((await fetch(url, { method: "DELETE" })).status).toBe(204);
    const h = { "Stream-Incarnation": token };
    const cases: [string, string, RequestInit][] = [
      ["GET", `${url}?offset=-1`, { headers: h }],
      ["GET long-poll", `${url}?offset=-1&live=long-poll&timeout_ms=5000`, { headers: h }],
      ["GET SSE", `${url}?offset=-1&live=sse`, { headers: h }],
      ["HEAD", url, { method: "HEAD", headers: h }],
      ["POST", url, { method: "POST", headers: { ...JSON_TYPE, ...h }, body: body("x") }],
      ["DELETE", url, { method: "DELETE", headers: h }],
    ];
    for (const [name, target, init] of cases) {
      const res = await fetch(target, init);
      await res.arrayBuffer();
      expect(res.status, name).toBe(404);
    }
    const put = await fetch(url, { method: "PUT", headers: { ...JSON_TYPE, ...h }, body: body("x") });
    await put.arrayBuffer();
    expect(put.status).toBe(412);
    expect((await fetch(url, { method: "HEAD" })).status).toBe(404); // created nothing
    // Without the header the PUT creates it, as a new incarnation.
    expect(await createJson(url)).not.toBe(token);
  });

  test("for a read, 416 (an offset beyond the new tail) comes before 412", async () => {
    const url = freshUrl("range-first");
    const token = await createJson(url, {}, body("a1", "a2", "a3"));
    const oldTail = (await fetch(url, { method: "HEAD" })).headers.get("Stream-Next-Offset")!;
    await recreate(url, "b1");
    const res = await fetch(`${url}?offset=${oldTail}`, { headers: { "Stream-Incarnation": token } });
    await res.arrayBuffer();
    expect(res.status).toBe(416);
  });

  test("TTL expiry then PUT starts a new incarnation: a new token, and the old one answers 412", { timeout: 10_000 }, async () => {
    const url = freshUrl("ttl");
    const oldToken = await createJson(url, { "Stream-TTL": "1" }, body("a1"));
    await sleep(1_300); // nothing touches the stream meanwhile, so its 1 s window passes
    expect((await fetch(url, { method: "HEAD" })).status).toBe(404);
    const newToken = await createJson(url, {}, body("b1"));
    expect(newToken).not.toBe(oldToken);
    const res = await fetch(`${url}?offset=-1`, { headers: { "Stream-Incarnation": oldToken } });
    await res.arrayBuffer();
    expect(res.status).toBe(412);
    expect(res.headers.get("Stream-Incarnation")).toBe(newToken);
  });

  describe("live reads", () => {
    async function liveReaders(): Promise<number> {
      return ((await (await fetch(`${ursa.url}/__ursula/api/info`)).json()) as { live_readers: number }).live_readers;
    }

    /** Waits until the server reports more parked live readers (long-poll or SSE) than `before`. */
    async function parked(before: number): Promise<void> {
      const deadline = Date.now() + 3_000;
      for (;;) {
        const now = await liveReaders();
        if (now > before) return;
        if (Date.now() > deadline) throw new Error(`no newly parked reader after 3 s (live_readers=${now}, before=${before})`);
        await sleep(10);
      }
    }

    /** Parks a long-poll with the token at the tail of a fresh stream holding a1. */
    async function parkedLongPoll(name: string) {
      const url = freshUrl(name);
      const token = await createJson(url, {}, body("a1"));
      const tail = (await fetch(url, { method: "HEAD" })).headers.get("Stream-Next-Offset")!;
      const before = await liveReaders();
      // timeout_ms=5000 overrides the binary's 500 ms default, so a prompt answer means the
      // change woke the reader, not the timeout.
      const poll = fetch(`${url}?offset=${tail}&live=long-poll&timeout_ms=5000`, { headers: { "Stream-Incarnation": token } });
      await parked(before);
      return { url, poll };
    }

    test("a long-poll parked with the token answers 404 promptly when the stream is deleted", { timeout: 10_000 }, async () => {
      const { url, poll } = await parkedLongPoll("live-lp-deleted");
      const changed = performance.now();
      expect((await fetch(url, { method: "DELETE" })).status).toBe(204);
      const res = await poll;
      await res.arrayBuffer();
      expect(performance.now() - changed).toBeLessThan(2_000);
      expect(res.status).toBe(404);
    });

    test("a long-poll parked with the token answers promptly with 412 or 404 when the stream is deleted and recreated, never with the new stream's data", { timeout: 15_000 }, async () => {
      // DELETE and PUT are sent together, as a second client recreating the stream would. When
      // both commit before the reader wakes it sees the new incarnation (412, with its token);
      // when it wakes in between it sees no stream (404). Several rounds, to meet both.
      for (let round = 0; round < 8; round++) {
        const { url, poll } = await parkedLongPoll("live-lp-recreated");
        const changed = performance.now();
        const [del, put] = await Promise.all([
          fetch(url, { method: "DELETE" }),
          fetch(url, { method: "PUT", headers: JSON_TYPE, body: body("b1") }),
        ]);
        expect(del.status).toBe(204);
        if (put.status === 201) expect((await post(url, [ev("b2")])).status).toBe(204);
        const res = await poll;
        const text = await res.text();
        expect(performance.now() - changed, `round ${round}`).toBeLessThan(2_000);
        expect(text, `round ${round}`).not.toMatch(/b1|b2/);
        expect([404, 412], `round ${round}`).toContain(res.status);
        if (res.status === 412) {
          // Only possible once the PUT created the new incarnation; the 412 names it.
          expect(put.status).toBe(201);
          expect(res.headers.get("Stream-Incarnation")).toBe(put.headers.get("Stream-Incarnation"));
        }
      }
    });

    test("an SSE subscription with the token gets event: error and ends when the stream is deleted and recreated, never delivering the new stream's data", { timeout: 10_000 }, async () => {
      const url = freshUrl("live-sse");
      const token = await createJson(url, {}, body("a1"));
      const abort = new AbortController();
      const before = await liveReaders();
      const res = await fetch(`${url}?offset=-1&live=sse`, { headers: { "Stream-Incarnation": token }, signal: abort.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get("Stream-Incarnation")).toBe(token);
      const sse = bodyText(res);
      sse.ended.catch(() => {});
      try {
        // Caught up: the old stream's event, then a control with upToDate.
        const deadline = Date.now() + 3_000;
        while (!/"upToDate":true/.test(sse.text)) {
          if (Date.now() > deadline) throw new Error(`no up-to-date control after 3 s: ${sse.text}`);
          await sleep(10);
        }
        expect(sse.text).toContain("a1");
        await parked(before);
        const changed = performance.now();
        expect((await fetch(url, { method: "DELETE" })).status).toBe(204);
        await createJson(url, {}, body("b1"));
        expect((await post(url, [ev("b2")])).status).toBe(204);
        await Promise.race([sse.ended, sleep(2_000).then(() => Promise.reject(new Error(`SSE still open 2 s after the delete: ${sse.text}`)))]);
        expect(performance.now() - changed).toBeLessThan(2_000);
        expect(sse.text).toMatch(/event: error\n/);
        expect(sse.text).not.toContain("b1");
        expect(sse.text).not.toContain("b2");
      } finally {
        abort.abort();
      }
    });
  });
});

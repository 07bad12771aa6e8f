// The official TypeScript client (@durable-streams/client) against the compiled binary, on both
// URL surfaces: what a real user of the library does, end to end. The conformance suite covers
// the protocol byte by byte; this covers "does the client we tell people to use actually work".
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DurableStream, DurableStreamError, IdempotentProducer, stream, type LiveMode } from "@durable-streams/client";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

type Msg = Record<string, unknown>;

let ursa: UrsaProcess;

beforeAll(async () => {
  ursa = await startUrsa();
  // Buckets may be created implicitly (spec §1.2), but a strict-mode server needs this first.
  const bucket = await fetch(`${ursa.url}/e2e-test`, { method: "PUT" });
  expect([200, 201]).toContain(bucket.status);
});

afterAll(async () => {
  await ursa?.stop();
  ursa?.cleanup();
});

/** A fetch that remembers what it sent and got, to prove which transport the client really used. */
function recordingFetch() {
  const calls: { url: URL; status: number; contentType: string | null }[] = [];
  const f: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push({ url, status: res.status, contentType: res.headers.get("content-type") });
    return res;
  };
  return { fetch: f, calls };
}

/**
 * Subscribe at `offset`, and resolve with everything received once at least `want` items came in.
 * Returns only after the first response arrived, so an append made afterwards is "after subscribing".
 */
async function subscribe(url: string, offset: string, live: LiveMode, want: number) {
  const rec = recordingFetch();
  const res = await stream<Msg>({ url, offset, live, fetch: rec.fetch });
  const items: Msg[] = [];
  const offsets: string[] = [];
  const received = new Promise<{ items: Msg[]; offsets: string[] }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${live}: got ${JSON.stringify(items)} after 5 s, wanted ${want} items`)),
      5_000,
    );
    res.subscribeJson<Msg>((batch) => {
      items.push(...batch.items);
      if (batch.items.length > 0) offsets.push(batch.offset);
      if (items.length >= want) {
        clearTimeout(timer);
        resolve({ items, offsets });
      }
    });
  });
  received.catch(() => {}); // observed by the caller; avoid an unhandled rejection if it never awaits
  return { received, cancel: () => res.cancel(), calls: rec.calls };
}

async function tailOffset(ds: DurableStream): Promise<string> {
  const head = await ds.head();
  expect(head.exists).toBe(true);
  if (!head.exists || !head.offset) throw new Error("HEAD gave no Stream-Next-Offset");
  return head.offset;
}

const surfaces = [
  { name: "bucketed path", prefix: "/e2e-test" },
  { name: "v1 compatibility path", prefix: "/v1/stream" },
];

describe.each(surfaces)("official client on the $name", ({ prefix }) => {
  test("create, append, catch-up, live tail over SSE and long-poll, producer, close, delete", { timeout: 30_000 }, async () => {
    const url = `${ursa.url}${prefix}/client-smoke-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

    const ds = await DurableStream.create({ url, contentType: "application/json" });
    const empty = await tailOffset(ds);
    const first = await ds.stream<Msg>({ live: false });
    expect(await first.json()).toEqual([]);
    expect(first.offset).toBe(empty);

    await ds.append(JSON.stringify({ n: 1 }));
    const afterOne = await tailOffset(ds);
    await ds.append(JSON.stringify({ n: 2 }));
    const afterTwo = await tailOffset(ds);
    // Offsets are opaque but ordered: the suite and the client both compare them as strings.
    expect(afterOne > empty).toBe(true);
    expect(afterTwo > afterOne).toBe(true);

    // Catch-up from the start, and from a position in the middle.
    const all = await ds.stream<Msg>({ live: false });
    expect(await all.json()).toEqual([{ n: 1 }, { n: 2 }]);
    expect(all.offset).toBe(afterTwo);
    expect(all.upToDate).toBe(true);
    expect(all.streamClosed).toBe(false);
    const rest = await ds.stream<Msg>({ live: false, offset: afterOne });
    expect(await rest.json()).toEqual([{ n: 2 }]);
    expect(rest.offset).toBe(afterTwo);

    // Live tail over SSE: only the new message arrives, and the transport really was SSE.
    const sse = await subscribe(url, afterTwo, "sse", 1);
    await ds.append(JSON.stringify({ live: "sse" }));
    const afterSse = await tailOffset(ds);
    const sseGot = await sse.received;
    sse.cancel();
    expect(sseGot.items).toEqual([{ live: "sse" }]);
    expect(sseGot.offsets.at(-1)).toBe(afterSse);
    const sseCalls = sse.calls.filter((c) => c.url.searchParams.get("live") === "sse");
    expect(sseCalls.length).toBeGreaterThan(0);
    expect(sseCalls[0]!.status).toBe(200);
    expect(sseCalls[0]!.contentType).toBe("text/event-stream");
    expect(sse.calls.some((c) => c.url.searchParams.get("live") === "long-poll")).toBe(false);

    // Live tail over long-poll.
    const lp = await subscribe(url, afterSse, "long-poll", 1);
    await ds.append(JSON.stringify({ live: "long-poll" }));
    const afterLp = await tailOffset(ds);
    const lpGot = await lp.received;
    lp.cancel();
    expect(lpGot.items).toEqual([{ live: "long-poll" }]);
    expect(lpGot.offsets.at(-1)).toBe(afterLp);
    expect(lp.calls.some((c) => c.url.searchParams.get("live") === "long-poll" && c.status === 200)).toBe(true);
    expect(lp.calls.some((c) => c.url.searchParams.get("live") === "sse")).toBe(false);

    // Idempotent producer: batched appends with Producer-* headers. detach() leaves the stream
    // open (close() would close it, conformance.md §6).
    const producer = new IdempotentProducer(ds, "smoke-writer", { autoClaim: true });
    for (let p = 0; p < 5; p++) producer.append(JSON.stringify({ p }));
    await producer.flush();
    await producer.detach();

    const { finalOffset } = await ds.close();
    const closedHead = await ds.head();
    expect(closedHead).toMatchObject({ exists: true, offset: finalOffset, streamClosed: true });

    const final = await ds.stream<Msg>({ live: false });
    expect(await final.json()).toEqual([
      { n: 1 },
      { n: 2 },
      { live: "sse" },
      { live: "long-poll" },
      { p: 0 },
      { p: 1 },
      { p: 2 },
      { p: 3 },
      { p: 4 },
    ]);
    expect(final.offset).toBe(finalOffset);
    expect(final.streamClosed).toBe(true);

    const rejected = await ds.append(JSON.stringify({ late: true })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(rejected).toBeInstanceOf(Error);
    expect((rejected as DurableStreamError).status).toBe(409);

    await ds.delete();
    expect(await ds.head()).toEqual({ exists: false });
    expect((await fetch(url)).status).toBe(404);
  });
});

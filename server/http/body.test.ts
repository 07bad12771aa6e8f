import { describe, expect, test } from "bun:test";
import { readBody, WHOLE_BODY_BYTES } from "./body";
import { BodyBudget } from "./body-budget";
import { BodyPacer } from "./body-pace";

/** A request whose body delivers two bytes and then fails, as when the client's connection drops. */
function brokenRequest(headers: Record<string, string>): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("ab"));
      controller.error(new Error("connection closed"));
    },
  });
  return new Request("http://ursa.test/b/s", { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

function chunked(...sizes: number[]): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const n of sizes) controller.enqueue(new Uint8Array(n));
      controller.close();
    },
  });
  return new Request("http://ursa.test/b/s", { method: "POST", body, duplex: "half" } as RequestInit);
}

// Requests built in JavaScript carry no Content-Length; the ones Bun.serve parses from the wire do.
const declared = (body: string) =>
  new Request("http://ursa.test/b/s", { method: "POST", body, headers: { "content-length": String(Buffer.byteLength(body)) } });
const roomy = () => new BodyBudget(1 << 20).hold();
// Bodies built in JavaScript arrive at once; body-pace.test.ts paces slow ones.
const pacer = new BodyPacer({ minBytesPerSecond: 1024, windowMs: 10_000 }, { lift: () => undefined, restore: () => undefined });

describe("readBody", () => {
  test("a body that breaks off mid-way is the client's 400, not a thrown error", async () => {
    for (const headers of [{}, { "content-length": "5" }] as Record<string, string>[]) {
      const got = await readBody(brokenRequest(headers), 1024, roomy(), pacer);
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error.code).toBe("BAD_REQUEST");
    }
  });

  test("a whole body is returned as it came, with or without a declared length", async () => {
    const got = await readBody(declared("abc"), 1024, roomy(), pacer);
    expect(got.ok && new TextDecoder().decode(got.value)).toBe("abc");
    const streamed = await readBody(chunked(2, 3), 1024, roomy(), pacer);
    expect(streamed.ok && streamed.value.length).toBe(5);
  });

  test("a body past the limit is 413, declared or streamed", async () => {
    const over = await readBody(declared("abcd"), 3, roomy(), pacer);
    expect(!over.ok && over.error.code).toBe("PAYLOAD_TOO_LARGE");
    const streamed = await readBody(chunked(2, 2), 3, roomy(), pacer);
    expect(!streamed.ok && streamed.error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("the server-wide budget for bodies in memory", () => {
  test("bodies count against it until released; past it a body is refused with 503's code", async () => {
    const budget = new BodyBudget(10);
    const first = budget.hold();
    expect((await readBody(declared("123456"), 100, first, pacer)).ok).toBe(true);
    expect(budget.inUse).toBe(6);

    const second = budget.hold();
    const refused = await readBody(declared("12345"), 100, second, pacer);
    expect(!refused.ok && refused.error.code).toBe("INGRESS_BODY_BYTES_LIMIT");
    const streamed = await readBody(chunked(3, 3), 100, second, pacer);
    expect(!streamed.ok && streamed.error.code).toBe("INGRESS_BODY_BYTES_LIMIT");
    second.release();
    expect(budget.inUse).toBe(6);

    first.release();
    expect(budget.inUse).toBe(0);
    const now = budget.hold();
    expect((await readBody(declared("1234567890"), 100, now, pacer)).ok).toBe(true);
    now.release();
    first.release();
    expect(budget.inUse).toBe(0);
  });
});

describe("what a body takes from the budget while it arrives", () => {
  /** A request declaring `length` bytes whose body sends `first` bytes now and the rest on finish(). */
  function stalled(length: number, first: number) {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        if (first > 0) c.enqueue(new Uint8Array(first).fill(1));
      },
    });
    const req = new Request("http://ursa.test/b/s", { method: "POST", body, headers: { "content-length": String(length) }, duplex: "half" } as RequestInit);
    return { req, finish: () => (controller.enqueue(new Uint8Array(length - first).fill(2)), controller.close()) };
  }
  const tick = () => new Promise((r) => setTimeout(r, 5));

  test("a declared length takes nothing before its bytes arrive; a large body is counted chunk by chunk", async () => {
    const budget = new BodyBudget(1 << 20);
    const silent = stalled(WHOLE_BODY_BYTES * 4, 0);
    const silentHold = budget.hold();
    const silentRead = readBody(silent.req, 1 << 20, silentHold, pacer);
    const partial = stalled(WHOLE_BODY_BYTES * 4, WHOLE_BODY_BYTES);
    const partialHold = budget.hold();
    const partialRead = readBody(partial.req, 1 << 20, partialHold, pacer);
    const small = stalled(100, 0);
    const smallHold = budget.hold();
    const smallRead = readBody(small.req, 1 << 20, smallHold, pacer);
    await tick();
    expect(budget.inUse).toBe(WHOLE_BODY_BYTES);

    silent.finish();
    partial.finish();
    small.finish();
    const [a, b, c] = await Promise.all([silentRead, partialRead, smallRead]);
    expect([a.ok && a.value.length, b.ok && b.value.length, c.ok && c.value.length]).toEqual([WHOLE_BODY_BYTES * 4, WHOLE_BODY_BYTES * 4, 100]);
    expect(budget.inUse).toBe(WHOLE_BODY_BYTES * 8 + 100);
    for (const hold of [silentHold, partialHold, smallHold]) hold.release();
    expect(budget.inUse).toBe(0);
  });

  test("a declared body that could not fit once whole is refused before it is read", async () => {
    const budget = new BodyBudget(1000);
    const holder = budget.hold();
    expect(holder.take(600)).toBe(true);
    const refused = await readBody(declared("x".repeat(500)), 1000, budget.hold(), pacer);
    expect(!refused.ok && refused.error.code).toBe("INGRESS_BODY_BYTES_LIMIT");
    expect(budget.inUse).toBe(600);
  });
});

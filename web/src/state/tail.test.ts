import { describe, expect, test } from "bun:test";
import { summarizeRates } from "./rate";
import type { SseEnd, SseHandlers } from "../api/sse";
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff";
import { TailModel, type TailConnectRequest, type TailDeps } from "./tail";

const tok = (n: number) => "0000000000000000_" + String(n).padStart(16, "0");

/** A scripted SSE server: each connect runs the next script entry. */
function fakeDeps(script: ((req: TailConnectRequest, h: SseHandlers) => Promise<SseEnd> | SseEnd)[]) {
  const connects: TailConnectRequest[] = [];
  const sleeps: number[] = [];
  let clock = 1_000_000;
  const deps: TailDeps = {
    async connect(req, h) {
      connects.push({ ...req });
      const step = script.shift();
      if (!step) return new Promise<SseEnd>((r) => req.signal.addEventListener("abort", () => r({ kind: "aborted" })));
      return step(req, h);
    },
    async sleep(ms) {
      sleeps.push(ms);
      clock += ms;
    },
    now: () => (clock += 10),
    random: () => 0.5, // no jitter
  };
  return { deps, connects, sleeps, advance: (ms: number) => (clock += ms) };
}

describe("backoffDelay", () => {
  test("doubles from the base and stops at the cap", () => {
    const p = { ...DEFAULT_BACKOFF, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffDelay(a, p))).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
  test("jitter stays within ±20% and never exceeds the cap", () => {
    expect(backoffDelay(1, DEFAULT_BACKOFF, () => 0)).toBe(400);
    expect(backoffDelay(1, DEFAULT_BACKOFF, () => 1)).toBe(600);
    expect(backoffDelay(10, DEFAULT_BACKOFF, () => 1)).toBe(30000);
  });
});

describe("TailModel row cap", () => {
  test("keeps only the newest `cap` rows and counts the dropped ones", async () => {
    const { deps } = fakeDeps([
      (_r, h) => {
        for (let i = 0; i < 25; i++) h.onData(`[{"i":${i}}]`);
        h.onControl({ streamNextOffset: tok(25 * 7), upToDate: true, streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("json", deps, { cap: 10 });
    await tail.start("-1");
    expect(tail.rows.value.length).toBe(10);
    expect(tail.dropped.value).toBe(15);
    expect(tail.received.value).toBe(25);
    expect(tail.rows.value[0]!.text).toBe('{"i":15}');
    expect(tail.rows.value[9]!.text).toBe('{"i":24}');
    expect(tail.status.value).toBe("closed");
  });

  test("JSON data events become one row per message with exact byte positions", async () => {
    const { deps } = fakeDeps([
      (_r, h) => {
        h.onData('[{"a":1},"é",2]');
        h.onControl({ streamNextOffset: tok(20), upToDate: true, streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("json", deps);
    await tail.start(tok(4));
    // {"a":1}\n = 8 bytes, "é"\n = 5 bytes (é is 2 bytes in UTF-8)
    expect(tail.rows.value.map((r) => [r.position, r.text])).toEqual([
      [4, '{"a":1}'],
      [12, '"é"'],
      [17, "2"],
    ]);
  });

  test("lowering the cap trims at once", async () => {
    const { deps } = fakeDeps([
      (_r, h) => {
        for (let i = 0; i < 8; i++) h.onData(`text ${i}`);
        h.onControl({ streamNextOffset: tok(48), streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("text", deps, { cap: 100 });
    await tail.start("-1");
    tail.setCap(3);
    expect(tail.rows.value.map((r) => r.text)).toEqual(["text 5", "text 6", "text 7"]);
    expect(tail.dropped.value).toBe(5);
  });
});

describe("TailModel reconnects", () => {
  test("after an error it backs off and resumes from the last control offset with the incarnation", async () => {
    const { deps, connects, sleeps } = fakeDeps([
      (_r, h) => {
        h.onOpen?.({ incarnation: "inc-1", base64: false });
        h.onData('["x"]');
        h.onControl({ streamNextOffset: tok(4), upToDate: true });
        return { kind: "failed", message: "network reset" };
      },
      () => ({ kind: "failed", message: "connection refused" }),
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(4), streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("json", deps);
    const statuses: string[] = [];
    tail.status.subscribe((s) => statuses.push(s));
    await tail.start("-1");
    expect(connects.map((c) => [c.offset, c.incarnation])).toEqual([
      ["-1", undefined],
      [tok(4), "inc-1"],
      [tok(4), "inc-1"],
    ]);
    expect(sleeps).toEqual([500, 1000]);
    expect(statuses).toContain("reconnecting");
    expect(tail.status.value).toBe("closed");
  });

  test("a successful control event resets the attempt counter", async () => {
    const fail = (): SseEnd => ({ kind: "failed", message: "x" });
    const { deps, sleeps } = fakeDeps([
      fail,
      fail,
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(0), upToDate: true });
        return fail();
      },
      fail,
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(0), streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("text", deps);
    await tail.start("now");
    expect(sleeps).toEqual([500, 1000, 500, 1000]);
  });

  test("gives up after maxAttempts and reports failed", async () => {
    const fail = (): SseEnd => ({ kind: "refused", status: 503 });
    const { deps, sleeps } = fakeDeps(Array.from({ length: 10 }, () => fail));
    const tail = new TailModel("text", deps, { backoff: { ...DEFAULT_BACKOFF, maxAttempts: 3 } });
    await tail.start("now");
    expect(sleeps.length).toBe(3);
    expect(tail.status.value).toBe("failed");
    expect(tail.detail.value).toContain("gave up after 3 attempts");
  });

  test("a clean end after a healthy connection resumes at once, without backoff", async () => {
    const { deps, sleeps, connects, advance } = fakeDeps([
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(9), upToDate: true });
        advance(60_000);
        return { kind: "ended" };
      },
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(9), streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("text", deps);
    await tail.start("now");
    expect(sleeps).toEqual([]);
    expect(connects[1]!.offset).toBe(tok(9));
  });

  test("a clean end right after connecting is treated as a failure (no request storm)", async () => {
    const { deps, sleeps } = fakeDeps([
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(0), upToDate: true });
        return { kind: "ended" };
      },
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(0), streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("text", deps);
    await tail.start("now");
    expect(sleeps).toEqual([500]);
  });

  test("404 on reconnect after an error event means gone", async () => {
    const { deps } = fakeDeps([
      (_r, h) => {
        h.onControl({ streamNextOffset: tok(0), upToDate: true });
        return { kind: "server-error", message: "stream deleted" };
      },
      () => ({ kind: "refused", status: 404, code: "STREAM_NOT_FOUND" }),
    ]);
    const tail = new TailModel("text", deps);
    await tail.start("now");
    expect(tail.status.value).toBe("gone");
    expect(tail.detail.value).toContain("404");
  });

  test("412 on reconnect means the stream was recreated: gone, with the new token", async () => {
    const { deps } = fakeDeps([
      (_r, h) => {
        h.onOpen?.({ incarnation: "old", base64: false });
        h.onControl({ streamNextOffset: tok(0), upToDate: true });
        return { kind: "server-error", message: "deleted" };
      },
      () => ({ kind: "refused", status: 412, incarnation: "new" }),
    ]);
    const tail = new TailModel("text", deps);
    await tail.start("now");
    expect(tail.status.value).toBe("gone");
    expect(tail.detail.value).toContain("new incarnation new");
  });

  test("stop() aborts and reports stopped", async () => {
    const { deps } = fakeDeps([]);
    const tail = new TailModel("text", deps);
    const done = tail.start("now");
    tail.stop();
    await done;
    expect(tail.status.value).toBe("stopped");
  });

  test("binary payloads are kept as bytes", async () => {
    const { deps } = fakeDeps([
      (_r, h) => {
        h.onData(new Uint8Array([0, 255, 16]));
        h.onControl({ streamNextOffset: tok(3), streamClosed: true });
        return { kind: "closed" };
      },
    ]);
    const tail = new TailModel("binary", deps);
    await tail.start("-1");
    expect(Array.from(tail.rows.value[0]!.bytes!)).toEqual([0, 255, 16]);
    expect(tail.rows.value[0]!.position).toBe(0);
  });
});

describe("append rate summary", () => {
  test("a spike a while ago shows in the average and the peak, not as 0 beside it", () => {
    const pts = [0, 0, 12, 0, 0].map((perSec, i) => ({ t: 1000 * (i + 1), perSec, bytesPerSec: perSec * 10 }));
    const s = summarizeRates(pts, 5000)!;
    expect(s).toEqual({ average: 2.4, now: 0, peak: 12, peakAgoS: 2, spanS: 5, bytesPerSec: 24 });
    expect(summarizeRates([])).toBeNull();
  });
});

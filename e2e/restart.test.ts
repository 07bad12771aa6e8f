// Everything a stream is (bytes, content type, closed flag, TTL, last Stream-Seq, producer state,
// incarnation) must come back after the process goes away and starts again over the same files.
// Run once with SIGTERM (clean shutdown) and once with SIGKILL (no shutdown code runs at all):
// an acknowledged write must already be durable, so both must give the same answers.
import { describe, expect, test } from "vitest";
import { restartPair } from "./restart-pair.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

interface Exchange {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
}

async function call(url: string, init: RequestInit = {}): Promise<Exchange> {
  const res = await fetch(url, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) };
}

function producer(epoch: number, seq: number): Record<string, string> {
  return { "Producer-Id": "restart-writer", "Producer-Epoch": String(epoch), "Producer-Seq": String(seq) };
}

/** The data file the binary reports on its start-up line. */
function dataFile(u: UrsaProcess): string | undefined {
  return /\bdata=(\S+)/.exec(u.log())?.[1];
}

const BINARY_BYTES = new Uint8Array([0, 255, 1, 254, 10, 13, 0x80, 0x7f, 0xc3, 0x28]);

describe.each([{ signal: "SIGTERM" as const }, { signal: "SIGKILL" as const }])("restart after $signal", ({ signal }) => {
  const tag = `${signal.toLowerCase()}-${Date.now().toString(36)}`;
  const paths = {
    data: `/e2e-test/restart-data-${tag}`,
    closed: `/v1/stream/restart-closed-${tag}`,
    ttl: `/e2e-test/restart-ttl-${tag}`,
  };
  // What the first process acknowledged; the second must agree with all of it.
  const before = {
    dataTail: "",
    closedTail: "",
    ttlTail: "",
    incarnation: {} as Record<string, string | null>,
    dataFile: undefined as string | undefined,
  };
  const pair = restartPair();
  const url = (u: UrsaProcess, p: string) => `${u.url}${p}`;

  test("first process acknowledges the writes", { timeout: 20_000 }, async () => {
    const first = (pair.first = await startUrsa());
    before.dataFile = dataFile(first);
    expect(before.dataFile, first.log()).toMatch(/ursa\.sqlite$/);

    // Plain text stream written by an idempotent producer (epoch 3, to see that the epoch
    // persists too) that also guards each write with a Stream-Seq.
    expect((await call(url(first, paths.data), { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
    const w0 = await call(url(first, paths.data), {
      method: "POST",
      headers: { "Content-Type": "text/plain", "Stream-Seq": "0001", ...producer(3, 0) },
      body: "hello ",
    });
    expect(w0.status, w0.text).toBe(200);
    const w1 = await call(url(first, paths.data), {
      method: "POST",
      headers: { "Content-Type": "text/plain", "Stream-Seq": "0002", ...producer(3, 1) },
      body: "world",
    });
    expect(w1.status, w1.text).toBe(200);
    expect(w1.headers.get("Producer-Seq")).toBe("1");
    before.dataTail = w1.headers.get("Stream-Next-Offset") ?? "";
    expect(before.dataTail).not.toBe("");

    // JSON stream on the compatibility surface, closed after two messages.
    expect((await call(url(first, paths.closed), { method: "PUT", headers: { "Content-Type": "application/json" } })).status).toBe(201);
    const a = await call(url(first, paths.closed), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '[{"a":1},{"b":2}]',
    });
    expect(a.status, a.text).toBe(204);
    const close = await call(url(first, paths.closed), { method: "POST", headers: { "Stream-Closed": "true" } });
    expect(close.status, close.text).toBe(204);
    expect(close.headers.get("Stream-Closed")).toBe("true");
    before.closedTail = close.headers.get("Stream-Next-Offset") ?? "";
    expect(before.closedTail).not.toBe("");

    // Binary stream with a TTL window and non-UTF-8 bytes in its initial body.
    const ttl = await call(url(first, paths.ttl), {
      method: "PUT",
      headers: { "Content-Type": "application/octet-stream", "Stream-TTL": "3600" },
      body: BINARY_BYTES,
    });
    expect(ttl.status, ttl.text).toBe(201);
    before.ttlTail = ttl.headers.get("Stream-Next-Offset") ?? "";
    expect(before.ttlTail).not.toBe("");

    for (const [name, p] of Object.entries(paths)) {
      const head = await call(url(first, p), { method: "HEAD" });
      expect(head.status).toBe(200);
      before.incarnation[name] = head.headers.get("Stream-Incarnation");
    }

    if (signal === "SIGTERM") expect(await first.stop(), first.log()).toBe(0);
    else await first.kill();
    expect(first.child.signalCode ?? first.child.exitCode).toBe(signal === "SIGTERM" ? 0 : "SIGKILL");
  });

  test("second process opens the same data file", { timeout: 20_000 }, async () => {
    expect(pair.first?.child.pid).toBeDefined();
    const second = (pair.second = await startUrsa({ dataDir: pair.first!.dataDir }));
    expect(dataFile(second), second.log()).toMatch(/ursa\.sqlite$/);
    expect(dataFile(second)).toBe(before.dataFile);
  });

  test("bytes, content type and tail survive", async () => {
    const u = pair.second!;
    const read = await call(`${url(u, paths.data)}?offset=-1`);
    expect(read.status).toBe(200);
    expect(read.text).toBe("hello world");
    expect(read.headers.get("Content-Type")).toBe("text/plain");
    expect(read.headers.get("Stream-Next-Offset")).toBe(before.dataTail);
    expect(read.headers.get("Stream-Up-To-Date")).toBe("true");
    expect(read.headers.get("Stream-Closed")).toBeNull();

    const bin = await call(`${url(u, paths.ttl)}?offset=-1`);
    expect(bin.status).toBe(200);
    expect(bin.headers.get("Content-Type")).toBe("application/octet-stream");
    expect(Array.from(bin.bytes)).toEqual(Array.from(BINARY_BYTES));
    expect(bin.headers.get("Stream-Next-Offset")).toBe(before.ttlTail);
  });

  test("each stream keeps its incarnation", async () => {
    for (const [name, p] of Object.entries(paths)) {
      const head = await call(url(pair.second!, p), { method: "HEAD" });
      expect(head.status, name).toBe(200);
      expect(head.headers.get("Stream-Incarnation"), name).toBe(before.incarnation[name]);
    }
  });

  test("closed stream stays closed", async () => {
    const u = pair.second!;
    const head = await call(url(u, paths.closed), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Stream-Closed")).toBe("true");
    expect(head.headers.get("Content-Type")).toBe("application/json");

    const read = await call(`${url(u, paths.closed)}?offset=-1`);
    expect(JSON.parse(read.text)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(read.headers.get("Stream-Closed")).toBe("true");
    expect(read.headers.get("Stream-Next-Offset")).toBe(before.closedTail);

    const append = await call(url(u, paths.closed), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"c":3}',
    });
    expect(append.status).toBe(409);
    expect(append.headers.get("Stream-Closed")).toBe("true");
    expect(append.headers.get("Stream-Next-Offset")).toBe(before.closedTail);
  });

  test("TTL window survives", async () => {
    const head = await call(url(pair.second!, paths.ttl), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Stream-TTL")).toBe("3600");
  });

  test("last Stream-Seq survives: an equal value is refused with Stream-Last-Seq", async () => {
    const u = pair.second!;
    const res = await call(url(u, paths.data), {
      method: "POST",
      headers: { "Content-Type": "text/plain", "Stream-Seq": "0002" },
      body: "again",
    });
    expect(res.status).toBe(409);
    expect(res.headers.get("Stream-Last-Seq")).toBe("0002");
    expect(res.headers.get("Stream-Next-Offset")).toBe(before.dataTail);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: "STREAM_SEQ_CONFLICT" } });
    expect((await call(`${url(u, paths.data)}?offset=-1`)).text).toBe("hello world");
  });

  test("producer state survives: a retried write is a duplicate, the next seq and the fence still work", async () => {
    const u = pair.second!;
    const retry = await call(url(u, paths.data), {
      method: "POST",
      headers: { "Content-Type": "text/plain", "Stream-Seq": "0002", ...producer(3, 1) },
      body: "world",
    });
    expect(retry.status, retry.text).toBe(204);
    expect(retry.headers.get("Producer-Epoch")).toBe("3");
    expect(retry.headers.get("Producer-Seq")).toBe("1");
    // A repeat of the producer's newest write answers with that write's original offset (spec §5.3).
    expect(retry.headers.get("Stream-Next-Offset")).toBe(before.dataTail);
    expect((await call(`${url(u, paths.data)}?offset=-1`)).text).toBe("hello world");

    // Had the producer been forgotten, seq 2 would be a gap (409, expected 0).
    const next = await call(url(u, paths.data), {
      method: "POST",
      headers: { "Content-Type": "text/plain", "Stream-Seq": "0003", ...producer(3, 2) },
      body: "!",
    });
    expect(next.status, next.text).toBe(200);
    expect(next.headers.get("Producer-Seq")).toBe("2");

    // Had the epoch been forgotten, an older epoch would be let in.
    const stale = await call(url(u, paths.data), {
      method: "POST",
      headers: { "Content-Type": "text/plain", ...producer(2, 0) },
      body: "zombie",
    });
    expect(stale.status).toBe(403);
    expect(stale.headers.get("Producer-Epoch")).toBe("3");

    expect((await call(`${url(u, paths.data)}?offset=-1`)).text).toBe("hello world!");
  });
});

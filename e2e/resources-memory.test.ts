// Bounded memory for the big resources, measured on the compiled binary (spec §2.13, §2.18,
// §2.12): a 128 MiB snapshot streams in and a bootstrap of it streams out without either being
// held whole, and attributes are not held in memory for every stream. Each figure is the peak of
// the server's VmRSS, sampled every 10 ms while the request runs, above its value just before.
// The bounds are far below what holding the data would cost, so they fail for a whole-body
// buffer, not for noise.
import { readFileSync } from "node:fs";
import { createBLAKE3 } from "hash-wasm";
import { afterAll, describe, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const MiB = 1024 * 1024;
const rssMiB = (u: UrsaProcess) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${u.child.pid}/status`, "utf8"))![1]) / 1024;

/** The peak RSS growth (MiB) of the server while `run` runs. */
async function peakGrowth(u: UrsaProcess, run: () => Promise<void>): Promise<number> {
  const base = rssMiB(u);
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(u))), 10);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMiB(u)) - base;
}

/** A reproducible pattern, so the bytes that come back can be checked without keeping a copy. */
function patternChunk(index: number, size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += 4) new DataView(out.buffer).setUint32(i, (index * 2654435761 + i) >>> 0);
  return out;
}

const servers: UrsaProcess[] = [];
afterAll(async () => {
  for (const s of servers) {
    await s.stop();
    s.cleanup();
  }
});

describe("128 MiB snapshot", () => {
  let ursa: UrsaProcess;
  const SIZE = 128 * MiB;
  const PIECE = 256 * 1024;
  /** BLAKE3 of the snapshot's bytes alone, to check what a bootstrap returns. */
  let bodyDigest = "";

  test("streams in (chunked, no Content-Length) with RSS growth far below its size", { timeout: 60_000 }, async () => {
    ursa = await startUrsa();
    servers.push(ursa);
    const url = `${ursa.url}/e2e-mem/snap`;
    expect((await fetch(url, { method: "PUT", headers: { "Content-Type": "application/octet-stream" }, body: "x" })).status).toBe(201);
    const hasher = await createBLAKE3();
    hasher.init();
    const plain = await createBLAKE3();
    plain.init();
    const type = new TextEncoder().encode("application/octet-stream");
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(type.length), true);
    hasher.update(length);
    hasher.update(type);
    let res!: Response;
    const growth = await peakGrowth(ursa, async () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === SIZE) return controller.close();
          const piece = patternChunk(sent / PIECE, PIECE);
          hasher.update(piece);
          plain.update(piece);
          sent += PIECE;
          controller.enqueue(piece);
        },
      });
      res = await fetch(`${url}/snapshot/1`, { method: "PUT", headers: { "Content-Type": "application/octet-stream" }, body, duplex: "half" } as RequestInit);
    });
    expect(res.status, await res.text()).toBe(204);
    expect(res.headers.get("Stream-Snapshot-Digest")).toBe(hasher.digest("hex"));
    bodyDigest = plain.digest("hex");
    console.log(`snapshot upload: 128 MiB in, server RSS +${growth.toFixed(1)} MiB at peak`);
    expect(growth).toBeLessThan(64);
  });

  test("a bootstrap of it plus 8 MiB of messages streams out with RSS growth far below 136 MiB, byte for byte", { timeout: 60_000 }, async () => {
    const url = `${ursa.url}/e2e-mem/snap`;
    for (let i = 0; i < 8; i++) {
      expect((await fetch(url, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: patternChunk(1000 + i, MiB) })).status).toBe(204);
    }
    let boundary = "";
    let received = 0;
    const part = await createBLAKE3();
    part.init();
    const after: Uint8Array[] = [];
    const growth = await peakGrowth(ursa, async () => {
      const res = await fetch(`${url}/bootstrap`);
      expect(res.status).toBe(200);
      boundary = res.headers.get("Content-Type")!.split("boundary=")[1]!;
      const head = new TextEncoder().encode(`--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`).length;
      // Hash the snapshot part as it arrives; keep only what follows it, the message parts.
      for await (const value of res.body as unknown as AsyncIterable<Uint8Array>) {
        const from = Math.max(0, head - received);
        const to = Math.min(value.length, head + SIZE - received);
        if (to > from) part.update(value.subarray(from, to));
        if (received + value.length > head + SIZE) after.push(value.slice(Math.max(0, head + SIZE - received)));
        received += value.length;
      }
    });
    expect(part.digest("hex")).toBe(bodyDigest);
    const text = Buffer.concat(after).toString("latin1");
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
    expect(text.split(`--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`).length - 1).toBe(8);
    console.log(`bootstrap: ${(received / MiB).toFixed(1)} MiB out, server RSS +${growth.toFixed(1)} MiB at peak`);
    expect(growth).toBeLessThan(100);
  });
});

describe("attributes are read on demand, not held for every stream", () => {
  test("4,000 streams with 16 KiB of attributes each do not cost their 64 MiB in memory after a restart", { timeout: 120_000 }, async () => {
    const first = await startUrsa();
    const attrs = JSON.stringify({ title: "t", metadata: { pad: "x".repeat(16 * 1024 - 40) } });
    expect(attrs.length).toBeLessThanOrEqual(16 * 1024);
    const N = 4000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < N) {
          const i = next++;
          const res = await fetch(`${first.url}/e2e-attrs/s-${i}`, { method: "PUT", headers: { "Stream-Attrs": attrs } });
          expect(res.status).toBe(201);
        }
      }),
    );
    expect(await first.stop()).toBe(0);
    const fresh = await startUrsa();
    servers.push(fresh);
    const restarted = await startUrsa({ dataDir: first.dataDir });
    servers.push(restarted);
    await new Promise((r) => setTimeout(r, 300));
    // The attributes are there, read from storage when asked for.
    const got = await fetch(`${restarted.url}/e2e-attrs/s-1234/attrs`);
    expect(await got.text()).toBe(attrs);
    const extra = rssMiB(restarted) - rssMiB(fresh);
    console.log(`attributes: ${N} streams x 16 KiB; RSS after restart ${rssMiB(restarted).toFixed(1)} MiB, an empty server ${rssMiB(fresh).toFixed(1)} MiB (+${extra.toFixed(1)})`);
    expect(extra).toBeLessThan(32);
  });
});

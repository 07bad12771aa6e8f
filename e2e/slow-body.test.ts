// The slow-body attack, against the binary with its default limits: connections declare the
// largest body (32 MiB) and then send nothing, or a little. Taking the budget from the declared
// length, ten of them held 320 MiB of the 256 MiB budget from their headers alone, and every
// write, even to a path that does not exist, got 503 for as long as they stalled. Counting bytes
// as they arrive, they hold what they sent, other clients' writes go on, and the stalled ones
// are cut with 408 once a window goes by in which they bring less than --min-body-rate.
import net from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess;
const WINDOW_S = 2;

beforeAll(async () => {
  ursa = await startUrsa({ args: ["--body-rate-window", `${WINDOW_S}s`] });
});

afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
});

async function bodyBytesInFlight(): Promise<number> {
  const text = await (await fetch(`${ursa.url}/__ursula/metrics`)).text();
  return Number(/^ursa_request_body_bytes_in_flight (\d+)$/m.exec(text)![1]);
}

const MiB = 1024 * 1024;

test("ten stalled 32 MiB uploads leave other clients' writes working, and are cut with 408 once they fall behind the body rate", { timeout: 30_000 }, async () => {
  const stream = `${ursa.url}/e2e-slow/s`;
  expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } })).status).toBe(201);

  const port = Number(new URL(ursa.url).port);
  const stalled = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const socket = net.connect(port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      let answer = "";
      socket.on("data", (d) => (answer += d.toString("latin1")));
      const closed = new Promise<{ at: number; answer: string }>((r) => socket.once("close", () => r({ at: performance.now(), answer })));
      socket.on("error", () => undefined);
      socket.write(`POST /e2e-slow/s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\nContent-Length: ${32 * MiB}\r\n\r\n`);
      // Half send a first mebibyte, which the server holds; the rest send nothing.
      if (i % 2 === 0) socket.write(Buffer.alloc(MiB, 7));
      return { socket, closed };
    }),
  );
  for (let i = 0; i < 100 && (await bodyBytesInFlight()) < 5 * MiB; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await bodyBytesInFlight()).toBe(5 * MiB);
  const lastByteAt = performance.now();

  // Meanwhile other clients write: appends, a create, and a write to a path that does not exist.
  const statuses: number[][] = [];
  for (let round = 0; round < 5; round++) {
    const append = await fetch(stream, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: `r${round}` });
    const create = await fetch(`${ursa.url}/e2e-slow/made-${round}`, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "x" });
    const missing = await fetch(`${ursa.url}/e2e-slow/missing`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "x" });
    statuses.push([append.status, create.status, missing.status]);
  }
  expect(statuses).toEqual(Array.from({ length: 5 }, () => [204, 201, 404]));

  // Those that sent nothing fall behind in their first window, those that sent a mebibyte in
  // their second; each is answered 408 BODY_TOO_SLOW and its connection closed.
  const closed = await Promise.all(stalled.map((s) => s.closed));
  for (const { at, answer } of closed) {
    expect(at - lastByteAt).toBeLessThan((2 * WINDOW_S + 3) * 1000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"BODY_TOO_SLOW"');
  }
  expect(await bodyBytesInFlight()).toBe(0);
  // Nothing of the stalled uploads was written.
  expect(await (await fetch(`${stream}?offset=-1`)).text()).toBe("r0r1r2r3r4");
});

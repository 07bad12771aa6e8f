// The server-wide budget for request bodies in memory, through the binary. An upload holds the
// bytes of its body that have arrived, not the length it declared: a write that would pass the
// budget gets 503 with Retry-After and commits nothing, the held upload lands once its body is
// whole, and uploads that declare a length and send nothing hold nothing.
import net from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess;
const STREAM = "/e2e-budget/s";
const LIMIT = 200_000;

beforeAll(async () => {
  ursa = await startUrsa({ args: ["--max-body-bytes", String(LIMIT), "--max-inflight-body-bytes", String(LIMIT)] });
  expect((await fetch(ursa.url + STREAM, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
});

afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
});

const append = (body: string) => fetch(ursa.url + STREAM, { method: "POST", headers: { "Content-Type": "text/plain" }, body });
const readAll = async () => (await fetch(`${ursa.url}${STREAM}?offset=-1&max_bytes=8388608`)).text();

/** A raw upload that declares `length` bytes and sends `first` of them now. */
async function upload(length: number, first: string) {
  const socket = net.connect(Number(new URL(ursa.url).port), "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  let response = "";
  socket.on("data", (d) => (response += d.toString("latin1")));
  socket.write(`POST ${STREAM} HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: ${length}\r\n\r\n${first}`);
  return { socket, response: () => response };
}

async function untilAsync(check: () => Promise<boolean>, ms = 2000) {
  for (let waited = 0; waited < ms; waited += 20) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
const until = (check: () => boolean, ms?: number) => untilAsync(async () => check(), ms);

/** What the metrics say the server holds of request bodies now. */
async function bodyBytesInFlight(): Promise<number> {
  const text = await (await fetch(`${ursa.url}/__ursula/metrics`)).text();
  return Number(/^ursa_request_body_bytes_in_flight (\d+)$/m.exec(text)![1]);
}

test("an upload holds what has arrived: past the budget a write waits its turn with 503; the held upload lands", { timeout: 10_000 }, async () => {
  const held = await upload(LIMIT, "a".repeat(150_000));
  // Once the server holds the 150,000 bytes, a write of 100,000 would pass the budget, one of 40,000 not.
  expect(await untilAsync(async () => (await bodyBytesInFlight()) === 150_000)).toBe(true);
  const refused = await append("b".repeat(100_000));
  expect(refused.status).toBe(503);
  expect(refused.headers.get("Retry-After")).toBe("1");
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("INGRESS_BODY_BYTES_LIMIT");
  expect((await append("c".repeat(40_000))).status).toBe(204);
  expect(held.response()).toBe("");

  held.socket.write("a".repeat(LIMIT - 150_000));
  expect(await until(() => held.response().includes("\r\n\r\n"))).toBe(true);
  held.socket.destroy();
  expect(held.response()).toMatch(/^HTTP\/1\.1 204 /);

  expect((await append("d".repeat(LIMIT))).status).toBe(204);
  expect(await readAll()).toBe("c".repeat(40_000) + "a".repeat(LIMIT) + "d".repeat(LIMIT));
});

test("uploads that declare the whole budget and send nothing hold none of it", { timeout: 10_000 }, async () => {
  const silent = await Promise.all([upload(LIMIT, ""), upload(LIMIT, ""), upload(LIMIT, "")]);
  await new Promise((r) => setTimeout(r, 200));
  expect(await bodyBytesInFlight()).toBe(0);
  const before = (await readAll()).length;
  expect((await append("e".repeat(LIMIT))).status).toBe(204);
  expect((await readAll()).length).toBe(before + LIMIT);
  for (const s of silent) {
    expect(s.response()).toBe("");
    s.socket.destroy();
  }
});

test("an upload cut short by a dropped connection gives back what it held", { timeout: 10_000 }, async () => {
  for (let i = 0; i < 3; i++) {
    const cut = await upload(LIMIT, "x".repeat(150_000));
    await new Promise((r) => setTimeout(r, 50));
    cut.socket.destroy();
  }
  let status = 0;
  // The server learns of each drop from the socket closing, a moment after the client's destroy().
  for (let i = 0; i < 50 && status !== 204; i++) {
    status = (await append("f".repeat(LIMIT))).status;
    if (status !== 204) await new Promise((r) => setTimeout(r, 20));
  }
  expect(status).toBe(204);
  expect((await readAll()).endsWith("e".repeat(LIMIT) + "f".repeat(LIMIT))).toBe(true);
  expect(await readAll()).not.toContain("x");
});

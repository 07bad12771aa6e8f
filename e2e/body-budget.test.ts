// The server-wide budget for request bodies in memory, through the binary: while one upload's
// body is still arriving it holds its declared length, a write that would pass the budget gets
// 503 with Retry-After and commits nothing, and the held upload lands once its body is whole.
import net from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess;
const STREAM = "/e2e-budget/s";

beforeAll(async () => {
  ursa = await startUrsa({ args: ["--max-body-bytes", "1000", "--max-inflight-body-bytes", "1000"] });
  expect((await fetch(ursa.url + STREAM, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
});

afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
});

const append = (body: string) => fetch(ursa.url + STREAM, { method: "POST", headers: { "Content-Type": "text/plain" }, body });

test("a write past the budget waits its turn with 503 and Retry-After; the upload holding the budget lands", { timeout: 10_000 }, async () => {
  const socket = net.connect(Number(new URL(ursa.url).port), "127.0.0.1");
  await new Promise((r) => socket.once("connect", r));
  let response = "";
  socket.on("data", (d) => (response += d.toString("latin1")));
  socket.write(`POST ${STREAM} HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n${"a".repeat(10)}`);
  await new Promise((r) => setTimeout(r, 200));

  const refused = await append("b".repeat(600));
  expect(refused.status).toBe(503);
  expect(refused.headers.get("Retry-After")).toBe("1");
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("INGRESS_BODY_BYTES_LIMIT");
  expect(response).toBe("");

  socket.write("a".repeat(990));
  for (let i = 0; i < 100 && !response.includes("\r\n\r\n"); i++) await new Promise((r) => setTimeout(r, 20));
  socket.destroy();
  expect(response).toMatch(/^HTTP\/1\.1 204 /);

  expect((await append("c".repeat(1000))).status).toBe(204);
  const read = await fetch(`${ursa.url}${STREAM}?offset=-1`);
  expect(await read.text()).toBe("a".repeat(1000) + "c".repeat(1000));
});

test("an upload cut short by a dropped connection gives its share back", { timeout: 10_000 }, async () => {
  for (let i = 0; i < 3; i++) {
    const socket = net.connect(Number(new URL(ursa.url).port), "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write(`POST ${STREAM} HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nxyz`);
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
  }
  let status = 0;
  // The server learns of each drop from the socket closing, a moment after the client's destroy().
  for (let i = 0; i < 50 && status !== 204; i++) {
    status = (await append("d".repeat(1000))).status;
    if (status !== 204) await new Promise((r) => setTimeout(r, 20));
  }
  expect(status).toBe(204);
  const read = await fetch(`${ursa.url}${STREAM}?offset=-1`);
  expect((await read.text()).endsWith("c".repeat(1000) + "d".repeat(1000))).toBe(true);
});

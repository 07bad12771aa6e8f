// No client crowds out the others, against the binary (docs/operations.md, "Under load"): one
// address that opens more stalled uploads than its share is refused past it while another
// address still writes; an upload that is still arriving is not cut by the idle timeout; and a
// refusal sent while a large body is still arriving reaches the client.
import http from "node:http";
import net from "node:net";
import { afterEach, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess | undefined;
afterEach(async () => {
  await ursa?.stop();
  ursa?.cleanup();
  ursa = undefined;
});

const port = () => Number(new URL(ursa!.url).port);

/** A request from a given loopback address with Node's client, which reads an early answer while it is still writing. */
function send(method: string, path: string, body: Buffer, headers: Record<string, string> = {}, localAddress = "127.0.0.1"): Promise<{ status: number; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port: port(), path, method, localAddress, headers: { "content-length": String(body.length), ...headers } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(body);
  });
}

test("72 stalled uploads from one address hold its share, not the server: another address still writes (row 5)", { timeout: 30_000 }, async () => {
  ursa = await startUrsa({ args: ["--max-connections", "64"] });
  expect((await fetch(`${ursa.url}/e2e-share/s`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  const answers: string[] = [];
  const sockets = await Promise.all(
    Array.from({ length: 72 }, async () => {
      const socket = net.connect(port(), "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      socket.on("data", (d) => answers.push(d.toString("latin1").split("\r\n")[0]!));
      socket.on("error", () => undefined);
      socket.write(`POST /e2e-share/s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n`);
      return socket;
    }),
  );
  try {
    // Half of --max-connections is the default share: 32 held, 40 refused, and the refusals are read.
    for (let i = 0; i < 100 && answers.length < 40; i++) await new Promise((r) => setTimeout(r, 20));
    expect(answers.length).toBe(40);
    expect(new Set(answers)).toEqual(new Set(["HTTP/1.1 429 Too Many Requests"]));
    const other = await send("POST", "/e2e-share/s", Buffer.from("from another client"), { "content-type": "text/plain" }, "127.0.0.2");
    expect(other).toEqual({ status: 204, text: "" });
    const same = await send("POST", "/e2e-share/s", Buffer.from("one more"), { "content-type": "text/plain" });
    expect("status" in same && same.status).toBe(429);
  } finally {
    for (const s of sockets) s.destroy();
  }
  expect(await (await fetch(`${ursa.url}/e2e-share/s?offset=-1`)).text()).toBe("from another client");
});

test("an upload still arriving, a byte every 500 ms, is not cut by a 2 s idle timeout (row 7)", { timeout: 30_000 }, async () => {
  ursa = await startUrsa({ args: ["--idle-timeout", "2s"] });
  expect((await fetch(`${ursa.url}/e2e-share/t`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  const body = "abcdefghijkl";
  const answer = await new Promise<string>((resolve) => {
    const socket = net.connect(port(), "127.0.0.1");
    let got = "";
    socket.on("data", (d) => (got += d.toString("latin1")));
    socket.on("close", () => resolve(got));
    socket.on("error", () => undefined);
    socket.write(`POST /e2e-share/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    let i = 0;
    const timer = setInterval(() => {
      socket.write(body[i++]!);
      if (i === body.length) clearInterval(timer);
    }, 500);
  });
  expect(answer).toMatch(/^HTTP\/1\.1 204 /);
  expect(await (await fetch(`${ursa.url}/e2e-share/t?offset=-1`)).text()).toBe(body);
});

test("a refusal sent while a large body is still arriving reaches Node's client, under tight limits (row 9)", { timeout: 30_000 }, async () => {
  ursa = await startUrsa({ args: ["--max-body-bytes", "1048576", "--max-snapshot-bytes", "1048576"] });
  expect((await fetch(`${ursa.url}/e2e-share/a`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  const attrs = await send("PUT", "/e2e-share/a/attrs", Buffer.alloc(4 * 1024 * 1024, 32), { "content-type": "application/json" });
  expect(attrs).toMatchObject({ status: 400 });
  expect("text" in attrs && JSON.parse(attrs.text).error.code).toBe("INVALID_STREAM_ATTRS");
  const append = await send("POST", "/e2e-share/a", Buffer.alloc(40 * 1024 * 1024, 97), { "content-type": "text/plain" });
  expect(append).toMatchObject({ status: 413 });
  // Nothing of either was kept, and the server answers the next request at once.
  const after = await fetch(`${ursa.url}/e2e-share/a/attrs`);
  expect(await after.text()).toBe("{}");
  expect(await (await fetch(`${ursa.url}/e2e-share/a?offset=-1`)).text()).toBe("");
});

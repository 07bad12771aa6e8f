// File descriptors, against the binary under `ulimit -n 256`: more live readers than there are
// descriptors. Without caps, every descriptor went to a reader, accept() then failed with EMFILE
// over and over (Bun's listener does not back off), the process spun at 100% CPU and answered
// nothing. With them, readers past the caps get 503 with Retry-After and their connections are
// closed, the server keeps answering, and it stays idle while it holds the rest.
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess;
const LIMIT = 256;
// What --max-connections, --max-live-readers and --max-live-readers-per-client come to under it.
const MAX_LIVE = 172;
const PER_CLIENT = 86;

beforeAll(async () => {
  ursa = await startUrsa({ openFileLimit: LIMIT });
});

afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
});

/** CPU seconds the process has used (utime + stime from /proc/PID/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Reader {
  address: string;
  head: Promise<string>;
  socket: net.Socket;
}

/** An SSE reader from a given loopback address; `head` is the response's status line and headers, or why there is none. */
function reader(port: number, address: string): Reader {
  const socket = net.connect({ port, host: "127.0.0.1", localAddress: address });
  socket.on("error", () => undefined);
  const head = new Promise<string>((resolve) => {
    let got = "";
    socket.on("data", (d) => {
      got += d.toString("latin1");
      if (got.includes("\r\n\r\n")) resolve(got.slice(0, got.indexOf("\r\n\r\n")));
    });
    socket.once("close", () => resolve(got || "closed"));
    // A server out of descriptors never answers at all.
    setTimeout(() => resolve(got || "no answer in 10 s"), 10_000).unref();
  });
  socket.write("GET /e2e-fd/s?offset=-1&live=sse HTTP/1.1\r\nHost: localhost\r\n\r\n");
  return { address, head, socket };
}

test("past the caps, live readers get 503 with Retry-After; the server answers and does not spin", { timeout: 60_000 }, async () => {
  const stream = `${ursa.url}/e2e-fd/s`;
  expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "x" })).status).toBe(201);
  const port = Number(new URL(ursa.url).port);
  const pid = ursa.child.pid!;

  // 360 readers from three client addresses: more than the process has descriptors.
  const readers = ["127.0.0.1", "127.0.0.2", "127.0.0.3"].flatMap((address) => Array.from({ length: 120 }, () => reader(port, address)));
  const heads = await Promise.all(readers.map((r) => r.head));

  const admitted = new Map<string, number>();
  heads.forEach((head, i) => {
    if (head.startsWith("HTTP/1.1 200 ")) admitted.set(readers[i]!.address, (admitted.get(readers[i]!.address) ?? 0) + 1);
    else {
      expect(head).toMatch(/^HTTP\/1\.1 503 /);
      expect(head).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
    }
  });
  const total = [...admitted.values()].reduce((a, b) => a + b, 0);
  for (const n of admitted.values()) expect(n).toBeLessThanOrEqual(PER_CLIENT);
  expect(total).toBeLessThanOrEqual(MAX_LIVE);
  // Most places were taken (a few may have gone to requests refused while others were in flight).
  expect(total).toBeGreaterThan(MAX_LIVE / 2);

  // While it holds them, the server answers at once, has descriptors to spare, and is idle.
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const head = await fetch(stream, { method: "HEAD", signal: AbortSignal.timeout(2000) });
  expect(head.status).toBe(200);
  expect(performance.now() - t0).toBeLessThan(1000);
  expect(readdirSync(`/proc/${pid}/fd`).length).toBeLessThan(LIMIT - 16);
  const cpuBefore = cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, 1000));
  expect(cpuSeconds(pid) - cpuBefore).toBeLessThan(0.25);

  const metrics = await (await fetch(`${ursa.url}/__ursula/metrics`)).text();
  expect(metrics).toContain(`ursa_live_readers{kind="sse"} ${total}`);
  expect(metrics).toContain(`process_max_fds ${LIMIT}`);
  expect(Number(/^ursa_http_error_responses_total\{code="LIVE_READ_BACKPRESSURE"\} (\d+)$/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThan(0);

  for (const r of readers) r.socket.destroy();
  for (let i = 0; i < 100; i++) {
    if ((await (await fetch(`${ursa.url}/__ursula/metrics`)).text()).includes('ursa_live_readers{kind="sse"} 0')) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(await (await fetch(`${ursa.url}/__ursula/metrics`)).text()).toContain('ursa_live_readers{kind="sse"} 0');
});

test("a soft open-file limit below the hard one is raised to it at start, and the caps are sized from that", { timeout: 20_000 }, async () => {
  const raised = await startUrsa({ openFileLimit: { soft: 256, hard: 1024 } });
  try {
    const metrics = await (await fetch(`${raised.url}/__ursula/metrics`)).text();
    expect(metrics).toContain("process_max_fds 1024");
    expect(readFileSync(`/proc/${raised.child.pid}/limits`, "utf8")).toMatch(/^Max open files\s+1024\s+1024\s/m);
    for (let i = 0; i < 100 && !raised.log().includes(" started "); i++) await new Promise((r) => setTimeout(r, 20));
    expect(raised.log()).toMatch(/ started .* max_connections=921 max_live_readers=828 fd_limit=1024[ \n]/);
  } finally {
    await raised.stop();
    raised.cleanup();
  }
});

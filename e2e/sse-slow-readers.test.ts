// SSE subscribers that stop reading, on the compiled binary. An append is written to every reader
// waiting at the tail as it commits (server/live/hub.ts Push), straight into the socket's sink
// (server/live/sse-out.ts); a reader whose client has not taken its last event must get nothing
// more until it has, or the server would hold every later event for every stalled reader. Here 20
// stalled readers miss 48 MiB each: held, that is 960 MiB beyond what the kernel's socket buffers
// take; the bound below is far under it. A reader that reads on then gets every byte, in order.
import { readFileSync } from "node:fs";
import { afterAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const READERS = 20;
const APPENDS = 192;
const APPEND_BYTES = 256 * 1024;

const rssMiB = (u: UrsaProcess) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${u.child.pid}/status`, "utf8"))![1]) / 1024;
/** Append `i`'s text: one letter, different from its neighbours', so order and loss both show. */
const appendText = (i: number) => String.fromCharCode(97 + (i % 26)).repeat(APPEND_BYTES);

let ursa: UrsaProcess | null = null;
afterAll(async () => {
  await ursa?.stop();
  ursa?.cleanup();
});

test("readers that stop reading are not buffered for as appends are pushed; one that reads on gets every byte in order", { timeout: 120_000 }, async () => {
  ursa = await startUrsa();
  const url = `${ursa.url}/e2e-sse/slow`;
  expect((await fetch(url, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  const stop = new AbortController();
  const decoder = new TextDecoder();
  // Each reader takes its first control event (it is then waiting at the tail) and stops reading.
  const readers = await Promise.all(
    Array.from({ length: READERS }, async () => {
      const res = await fetch(`${url}?offset=-1&live=sse`, { signal: stop.signal });
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("upToDate")) text += decoder.decode((await reader.read()).value, { stream: true });
      return reader;
    }),
  );
  const base = rssMiB(ursa);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(ursa!))), 10);
  try {
    for (let i = 0; i < APPENDS; i++) {
      const res = await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: appendText(i) });
      expect(res.status).toBe(204);
    }
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    clearInterval(sampler);
  }
  expect(peak - base).toBeLessThan(200);

  const tail = `0000000000000000_${String(APPENDS * APPEND_BYTES).padStart(16, "0")}`;
  let text = "";
  let data = "";
  const reader = readers[0]!;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the response ended");
    text += decoder.decode(value, { stream: true });
    // Whole events only: data lines are taken as they complete.
    let cut: number;
    while ((cut = text.indexOf("\n\n")) >= 0) {
      const event = text.slice(0, cut);
      text = text.slice(cut + 2);
      if (event.startsWith("event: data\n")) data += event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)).join("");
      else if (event.includes(`"streamNextOffset":"${tail}"`) && event.includes("upToDate")) {
        stop.abort();
        expect(data.length).toBe(APPENDS * APPEND_BYTES);
        for (let i = 0; i < APPENDS; i++) expect(data.slice(i * APPEND_BYTES, (i + 1) * APPEND_BYTES) === appendText(i)).toBe(true);
        return;
      }
    }
  }
});

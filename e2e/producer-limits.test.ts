// Producer limits through the binary (spec §5.3 [NEW], made configurable per [REC]): a stream full
// of producers refuses a new one with 429; an idle producer is forgotten and must restart at seq
// 0; a forgotten producer's place goes to a new one. After kill -9 the restart and the eviction
// both still hold.
import { afterAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const IDLE_MS = 3000;
const args = ["--max-producers-per-stream", "2", "--producer-idle-ttl", `${IDLE_MS}ms`];
const STREAM = "/e2e-producers/s";
let ursa: UrsaProcess;

afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
});

const post = (id: string, seq: number) =>
  fetch(ursa.url + STREAM, {
    method: "POST",
    headers: { "Content-Type": "text/plain", "Producer-Id": id, "Producer-Epoch": "0", "Producer-Seq": String(seq) },
    body: `${id}${seq};`,
  });
const body = async () => (await fetch(`${ursa.url}${STREAM}?offset=-1`)).text();
const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

test("429 past the limit, forgetting after the idle limit, and both kept across kill -9", { timeout: 20_000 }, async () => {
  ursa = await startUrsa({ args });
  expect((await fetch(ursa.url + STREAM, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  expect((await post("a", 0)).status).toBe(200);
  expect((await post("b", 0)).status).toBe(200);
  const refused = await post("c", 0);
  expect(refused.status).toBe(429);
  expect(await code(refused)).toBe("PRODUCER_LIMIT");
  expect(await body()).toBe("a0;b0;");

  await new Promise((r) => setTimeout(r, IDLE_MS + 200));
  const forgotten = await post("a", 1);
  expect(forgotten.status).toBe(409);
  expect(forgotten.headers.get("Producer-Expected-Seq")).toBe("0");
  expect((await post("a", 0)).status).toBe(200); // a restarts in its own place
  expect((await post("c", 0)).status).toBe(200); // b, forgotten, makes way for c
  expect(await body()).toBe("a0;b0;a0;c0;");

  await ursa.kill();
  ursa = await startUrsa({ dataDir: ursa.dataDir, args });
  expect(await body()).toBe("a0;b0;a0;c0;");
  expect((await post("a", 1)).status).toBe(200);
  expect((await post("c", 1)).status).toBe(200);
  const evicted = await post("b", 1);
  expect(evicted.status).toBe(409);
  expect(evicted.headers.get("Producer-Expected-Seq")).toBe("0");
});

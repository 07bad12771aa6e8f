// Two compiled binaries on one PostgreSQL database: a live reader on one instance wakes when the
// other acknowledges an append (NOTIFY carries the wake-up; the reader re-reads the stream).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPgCluster, type PgCluster } from "../server/testing/pg-cluster.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

describe("two ursa instances on one PostgreSQL database", () => {
  let cluster: PgCluster;
  let a: UrsaProcess;
  let b: UrsaProcess;

  beforeAll(async () => {
    cluster = await startPgCluster();
    [a, b] = await Promise.all([startUrsa({ args: ["--postgres", cluster.url] }), startUrsa({ args: ["--postgres", cluster.url] })]);
  }, 120_000);

  afterAll(async () => {
    for (const u of [a, b]) {
      await u?.stop();
      u?.cleanup();
    }
    await cluster?.stop();
  }, 60_000);

  const post = (u: UrsaProcess, path: string, body: string) => fetch(`${u.url}${path}`, { method: "POST", headers: { "content-type": "text/plain" }, body });

  test("a long-poll on one instance is answered by the other instance's append, well before its timeout", async () => {
    expect((await fetch(`${a.url}/live/lp`, { method: "PUT", headers: { "content-type": "text/plain" } })).status).toBe(201);
    expect((await post(a, "/live/lp", "first")).status).toBe(204);
    const tail = (await fetch(`${b.url}/live/lp`, { method: "HEAD" })).headers.get("stream-next-offset")!;
    const started = Date.now();
    const waiting = fetch(`${b.url}/live/lp?offset=${tail}&live=long-poll&timeout_ms=20000`);
    await new Promise((r) => setTimeout(r, 300));
    expect((await post(a, "/live/lp", "second")).status).toBe(204);
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(await woken.text()).toBe("second");
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  test("an SSE reader on one instance receives the other instance's appends in order, and its close", async () => {
    expect((await fetch(`${a.url}/live/sse`, { method: "PUT", headers: { "content-type": "text/plain" } })).status).toBe(201);
    const controller = new AbortController();
    const response = await fetch(`${b.url}/live/sse?offset=-1&live=sse`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = "";
    const readUntil = async (needle: string) => {
      for (const end = Date.now() + 15_000; !text.includes(needle) && Date.now() < end; ) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return text.includes(needle);
    };
    for (const m of ["one", "two", "three"]) expect((await post(a, "/live/sse", m)).status).toBe(204);
    expect(await readUntil("data:three")).toBe(true);
    expect(text.indexOf("data:one")).toBeLessThan(text.indexOf("data:two"));
    expect((await fetch(`${a.url}/live/sse`, { method: "POST", headers: { "stream-closed": "true" } })).status).toBe(204);
    expect(await readUntil("streamClosed")).toBe(true);
    controller.abort();
  }, 30_000);
});

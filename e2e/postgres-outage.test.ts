// The compiled binary on PostgreSQL when the database goes away and comes back: requests get
// 503 DATABASE_UNAVAILABLE with Retry-After, readiness turns unready, the server reconnects by
// itself, and no write it acknowledged is lost, even when the database stops under writes.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startPgCluster, type PgCluster } from "../server/testing/pg-cluster.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

describe("ursa --postgres when the database restarts", () => {
  let cluster: PgCluster;
  let ursa: UrsaProcess;

  beforeAll(async () => {
    cluster = await startPgCluster();
    ursa = await startUrsa({ args: ["--postgres", cluster.url] });
  }, 120_000);

  afterAll(async () => {
    await ursa?.stop();
    ursa?.cleanup();
    await cluster?.stop();
  }, 60_000);

  const put = (path: string) => fetch(`${ursa.url}${path}`, { method: "PUT", headers: { "content-type": "text/plain" } });
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${ursa.url}${path}`, { method: "POST", headers: { "content-type": "text/plain", ...headers }, body });
  const ready = () => fetch(`${ursa.url}/__ursula/ready`);

  async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await check()) return true;
    return false;
  }

  test("503 with Retry-After and unready while the database is down; ready and writing again once it is back", async () => {
    expect((await put("/outage/s")).status).toBe(201);
    expect((await post("/outage/s", "before")).status).toBe(204);
    await cluster.halt();
    const refused = await post("/outage/s", "during");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("DATABASE_UNAVAILABLE");
    const read = await fetch(`${ursa.url}/outage/s?offset=-1`);
    expect(read.status).toBe(503);
    const unready = await ready();
    expect(unready.status).toBe(503);
    expect(((await unready.json()) as { reason: string }).reason).toContain("database");
    await cluster.resume();
    expect(await until(async () => (await ready()).status === 200, 30_000)).toBe(true);
    expect((await post("/outage/s", "after")).status).toBe(204);
    expect(await (await fetch(`${ursa.url}/outage/s?offset=-1`)).text()).toBe("beforeafter");
  }, 90_000);

  test("no acknowledged write is lost when the database stops and starts under writes", async () => {
    expect((await put("/outage/w")).status).toBe(201);
    const acked: number[] = [];
    let seq = 0;
    let stop = false;
    // One producer writing in order; a write whose answer was lost is sent again with the same
    // Producer-Seq, so the stream must hold each accepted seq exactly once, in order.
    const writer = (async () => {
      while (!stop) {
        const headers = { "producer-id": "w", "producer-epoch": "0", "producer-seq": String(seq) };
        const response = await post("/outage/w", `[${String(seq).padStart(4, "0")}]`, headers).catch(() => null);
        if (response && (response.status === 200 || response.status === 204)) {
          acked.push(seq);
          seq++;
        } else await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await until(async () => acked.length >= 20, 30_000);
    await cluster.halt();
    const atHalt = acked.length;
    await new Promise((r) => setTimeout(r, 500));
    await cluster.resume();
    await until(async () => acked.length >= atHalt + 20, 60_000);
    stop = true;
    await writer;
    expect(acked.length).toBeGreaterThanOrEqual(atHalt + 20);
    const body = await (await fetch(`${ursa.url}/outage/w?offset=-1`)).text();
    expect(body).toBe(acked.map((n) => `[${String(n).padStart(4, "0")}]`).join(""));
  }, 120_000);
});

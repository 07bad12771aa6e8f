// DS subscriptions on two instances sharing one PostgreSQL database (issue 49): appends reach
// both, yet each wake generation is opened and delivered by exactly one of them; a pull-wake
// lease taken through one instance fences claims and stale acks through the other.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CLUSTER_HOOK_TIMEOUT_MS, startCluster, startPgUrsa, type PgCluster } from "./pg-instances.ts";
import { until, type UrsaProcess } from "./server-process.ts";

const J = { "content-type": "application/json" };
let cluster: PgCluster | undefined;
let a: UrsaProcess | undefined;
let b: UrsaProcess | undefined;
let server: Server | undefined;
const wakes: { generation: number; wake_id: string }[] = [];
let receiverUrl = "";

beforeAll(async () => {
  cluster = await startCluster();
  const database = await cluster.createDatabase("subs");
  const options = { args: ["--webhook-allow-hosts", "127.0.0.1"] };
  a = await startPgUrsa(database, options);
  b = await startPgUrsa(database, options);
  // Answers done a little later, so that appends through both instances meet an outstanding wake.
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      wakes.push(JSON.parse(raw) as { generation: number; wake_id: string });
      setTimeout(() => res.writeHead(200, J).end('{"done":true}'), 20);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
}, CLUSTER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  server?.close();
  for (const u of [a, b]) {
    await u?.stop();
    u?.cleanup();
  }
  await cluster?.stop();
}, CLUSTER_HOOK_TIMEOUT_MS);

const call = (u: UrsaProcess, method: string, path: string, body?: unknown, token?: string) =>
  fetch(`${u.url}${path}`, { method, headers: token ? { ...J, authorization: `Bearer ${token}` } : J, body: body === undefined ? undefined : JSON.stringify(body) });

describe("subscriptions on two instances of one PostgreSQL database", () => {
  test("appends through both instances: each generation is delivered once, in order, and everything is acked", async () => {
    expect((await call(a!, "PUT", "/bkt1/__ds/subscriptions/hook", { type: "webhook", pattern: "*", webhook: { url: receiverUrl }, lease_ttl_ms: 10_000 })).status).toBe(201);
    expect((await call(b!, "PUT", "/bkt1/s", {})).status).toBe(201);
    for (let i = 0; i < 30; i++) expect((await call(i % 2 ? a! : b!, "POST", "/bkt1/s", { n: i })).status).toBe(204);
    const tail = (await fetch(`${a!.url}/bkt1/s`, { method: "HEAD" })).headers.get("stream-next-offset");
    const acked = async (u: UrsaProcess) => ((await (await call(u, "GET", "/bkt1/__ds/subscriptions/hook")).json()) as { streams: { acked_offset: string }[] }).streams[0]?.acked_offset;
    await until("everything acked", async () => (await acked(b!)) === tail);
    expect(await acked(a!)).toBe(tail);
    const generations = wakes.map((w) => w.generation);
    expect(generations.length).toBeGreaterThan(0);
    // Exactly one instance delivered each generation: none twice, none skipped.
    expect(generations).toEqual(generations.map((_, i) => i + 1));
    expect(new Set(wakes.map((w) => w.wake_id)).size).toBe(wakes.length);
  });

  test("a pull-wake lease taken through one instance fences the other", async () => {
    expect((await call(a!, "PUT", "/bkt2/wakes", [])).status).toBe(201);
    expect((await call(a!, "PUT", "/bkt2/__ds/subscriptions/pool", { type: "pull-wake", streams: ["jobs"], wake_stream: "wakes", lease_ttl_ms: 30_000 })).status).toBe(201);
    expect((await call(b!, "PUT", "/bkt2/jobs", { job: 1 })).status).toBe(201);
    const claim = await call(a!, "POST", "/bkt2/__ds/subscriptions/pool/claim", { worker: "w1" });
    expect(claim.status).toBe(200);
    const claimed = (await claim.json()) as { token: string; wake_id: string; generation: number; streams: { path: string; tail_offset: string }[] };
    const busy = await call(b!, "POST", "/bkt2/__ds/subscriptions/pool/claim", { worker: "w2" });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: "ALREADY_CLAIMED", current_holder: "w1" } });
    const answer = { wake_id: claimed.wake_id, generation: claimed.generation, acks: [{ stream: "jobs", offset: claimed.streams[0]!.tail_offset }], done: true };
    const ack = await call(b!, "POST", "/bkt2/__ds/subscriptions/pool/ack", answer, claimed.token);
    expect(ack.status).toBe(200);
    const again = await call(a!, "POST", "/bkt2/__ds/subscriptions/pool/ack", answer, claimed.token);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("FENCED");
  });
});

// DS subscriptions survive kill -9 (issue 49): a webhook wake outstanding when the process dies is
// sent again after the restart (no wake lost) and every generation is acked once at most; a
// pull-wake lease, its holder and its token outlive the process too.
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const J = { "content-type": "application/json" };
const started: UrsaProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const u of started.splice(0)) {
    await u.kill();
    u.cleanup();
  }
  for (const s of servers.splice(0)) s.close();
});

interface Wake {
  subscription_id: string;
  wake_id: string;
  generation: number;
  callback_token: string;
  streams: { path: string; tail_offset: string }[];
}

/** A webhook receiver on 127.0.0.1: `mode` says whether it hangs or answers done. */
async function receiver() {
  const state = { mode: "hang" as "hang" | "done", wakes: [] as Wake[] };
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      state.wakes.push(JSON.parse(raw) as Wake);
      if (state.mode === "done") res.writeHead(200, J).end('{"done":true}');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { state, url: `http://127.0.0.1:${port}/hook` };
}

async function start(dataDir?: string): Promise<UrsaProcess> {
  const u = await startUrsa({ dataDir, args: ["--webhook-allow-hosts", "127.0.0.1"] });
  started.push(u);
  return u;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const subscription = async (u: UrsaProcess, id: string) => (await (await fetch(`${u.url}/bkt1/__ds/subscriptions/${id}`)).json()) as { generation: number; streams: { path: string; acked_offset: string }[]; wake: unknown };
const tailOf = async (u: UrsaProcess, stream: string) => (await fetch(`${u.url}/bkt1/${stream}`, { method: "HEAD" })).headers.get("stream-next-offset");
const callback = (u: UrsaProcess, id: string, wake: Wake) =>
  fetch(`${u.url}/bkt1/__ds/subscriptions/${id}/callback`, {
    method: "POST",
    headers: { ...J, authorization: `Bearer ${wake.callback_token}` },
    body: JSON.stringify({ wake_id: wake.wake_id, generation: wake.generation, done: true }),
  });

describe("subscriptions across kill -9", () => {
  test("a webhook wake outstanding at the kill is sent again after it, and no generation is acked twice", async () => {
    const r = await receiver();
    let u = await start();
    const dataDir = u.dataDir;
    const created = await fetch(`${u.url}/bkt1/__ds/subscriptions/k1`, { method: "PUT", headers: J, body: JSON.stringify({ type: "webhook", pattern: "*", webhook: { url: r.url }, lease_ttl_ms: 60_000 }) });
    expect(created.status).toBe(201);
    expect((await fetch(`${u.url}/bkt1/s1`, { method: "PUT", headers: J, body: '{"n":0}' })).status).toBe(201);
    for (let i = 1; i <= 3; i++) expect((await fetch(`${u.url}/bkt1/s1`, { method: "POST", headers: J, body: `{"n":${i}}` })).status).toBe(204);
    // The receiver has the first wake and has not answered it: the process dies during delivery.
    const first = await until("the first wake", async () => r.state.wakes[0]);
    expect(first.generation).toBe(1);
    await u.kill();

    r.state.mode = "done";
    u = await start(dataDir);
    const tail = await tailOf(u, "s1");
    expect(tail).not.toBeNull();
    // Sent again with its generation unchanged, then (answered done) the appends it did not show.
    await until("every message acked", async () => (await subscription(u, "k1")).streams.find((s) => s.path === "s1")?.acked_offset === tail);
    const resent = r.state.wakes.slice(1);
    expect(resent[0]!.generation).toBe(1);
    expect(resent[0]!.wake_id).toBe(first.wake_id);
    const generations = r.state.wakes.map((w) => w.generation);
    expect((await subscription(u, "k1")).generation).toBe(Math.max(...generations));

    // Every generation was acked once (by its done answer): answering any of them again is fenced.
    for (const wake of r.state.wakes) {
      const again = await callback(u, "k1", wake);
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe("FENCED");
    }

    // Acked state is durable too: after another kill -9 nothing is re-sent and nothing moves back.
    const before = r.state.wakes.length;
    await u.kill();
    u = await start(dataDir);
    const after = await subscription(u, "k1");
    expect(after.streams.find((s) => s.path === "s1")?.acked_offset).toBe(tail);
    expect(after.wake).toBeNull();
    await new Promise((res) => setTimeout(res, 300));
    expect(r.state.wakes.length).toBe(before);
    const stale = await callback(u, "k1", first);
    expect(stale.status).toBe(409);
  });

  test("a pull-wake lease, its holder and its token survive kill -9", async () => {
    let u = await start();
    const dataDir = u.dataDir;
    await fetch(`${u.url}/bkt1/wakes`, { method: "PUT", headers: J, body: "[]" });
    expect((await fetch(`${u.url}/bkt1/__ds/subscriptions/p1`, { method: "PUT", headers: J, body: JSON.stringify({ type: "pull-wake", pattern: "*", wake_stream: "wakes", lease_ttl_ms: 60_000 }) })).status).toBe(201);
    await fetch(`${u.url}/bkt1/jobs`, { method: "PUT", headers: J, body: '{"job":1}' });
    const claim = await fetch(`${u.url}/bkt1/__ds/subscriptions/p1/claim`, { method: "POST", headers: J, body: '{"worker":"w1"}' });
    expect(claim.status).toBe(200);
    const claimed = (await claim.json()) as { token: string; wake_id: string; generation: number; streams: { path: string; tail_offset: string }[] };
    await u.kill();

    u = await start(dataDir);
    const busy = await fetch(`${u.url}/bkt1/__ds/subscriptions/p1/claim`, { method: "POST", headers: J, body: '{"worker":"w2"}' });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: "ALREADY_CLAIMED", current_holder: "w1", generation: claimed.generation } });
    const tail = claimed.streams.find((s) => s.path === "jobs")!.tail_offset;
    const ack = await fetch(`${u.url}/bkt1/__ds/subscriptions/p1/ack`, {
      method: "POST",
      headers: { ...J, authorization: `Bearer ${claimed.token}` },
      body: JSON.stringify({ wake_id: claimed.wake_id, generation: claimed.generation, acks: [{ stream: "jobs", offset: tail }], done: true }),
    });
    expect(ack.status).toBe(200);
    expect(await ack.json()).toEqual({ ok: true, next_wake: false });
    // The wake stream is not followed: the subscription has nothing more to do.
    const none = await fetch(`${u.url}/bkt1/__ds/subscriptions/p1/claim`, { method: "POST", headers: J, body: '{"worker":"w2"}' });
    expect(none.status).toBe(409);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("NO_PENDING_WORK");
  });
});

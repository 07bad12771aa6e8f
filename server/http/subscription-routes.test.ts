// The DS reserved subscription API (DS §6–§7, issue 49) through the app: its shapes, fencing and
// leases, signed webhook wakes to a receiver on 127.0.0.1, and refused webhook targets.

import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createPublicKey, verify } from "node:crypto";
import { harness, type Harness } from "../testing/app-harness";
import type { SubscriptionOptions } from "./subscriptions/service";

// Wakes travel over real sockets to local receivers: on a loaded machine that takes a while.
setDefaultTimeout(20_000);

const J = { "content-type": "application/json" };
let h: Harness | undefined;
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const r of receivers.splice(0)) r.stop();
  await h?.close();
  h = undefined;
});

interface Receiver {
  url: string;
  got: { body: Record<string, any>; raw: string; signature: string | null }[];
  next(): Promise<{ body: Record<string, any>; raw: string; signature: string | null }>;
  stop(): void;
}

/** A webhook receiver on 127.0.0.1 answering each POST with `answer`. */
function receiver(answer: () => Response | Promise<Response> = () => Response.json({})): Receiver {
  const got: Receiver["got"] = [];
  let wake: (() => void) | null = null;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const raw = await req.text();
      got.push({ body: JSON.parse(raw), raw, signature: req.headers.get("webhook-signature") });
      wake?.();
      return answer();
    },
  });
  const r: Receiver = {
    url: `http://127.0.0.1:${server.port}/hook`,
    got,
    async next() {
      const seen = got.length;
      const deadline = Date.now() + 10_000;
      while (got.length <= seen && Date.now() < deadline) await new Promise<void>((res) => ((wake = res), setTimeout(res, 50)));
      expect(got.length).toBeGreaterThan(seen);
      return got[got.length - 1]!;
    },
    stop: () => void server.stop(true),
  };
  receivers.push(r);
  return r;
}

async function open(options: Partial<Omit<SubscriptionOptions, "log">> = {}): Promise<Harness> {
  h = harness({ v1BucketPaths: true, subscriptions: { allowHosts: ["127.0.0.1"], retryDelayMs: 10, ...options } });
  await h.ready;
  return h;
}

const sub = (id: string, prefix = "/v1/stream") => `${prefix}/__ds/subscriptions/${id}`;
const put = (path: string, body: unknown) => h!.request("PUT", path, { headers: J, body: JSON.stringify(body) });
const post = (path: string, body: unknown, token?: string) => h!.request("POST", path, { headers: token ? { ...J, authorization: `Bearer ${token}` } : J, body: JSON.stringify(body) });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(10);
  }
}

describe("subscription resources (DS §6)", () => {
  test("create 201, re-confirm 200, another configuration 409, delete 204, then 404", async () => {
    await open();
    const r = receiver();
    const config = { type: "webhook", pattern: "events/*", webhook: { url: r.url }, lease_ttl_ms: 1000 };
    const created = await put(sub("s1"), config);
    expect(created.status).toBe(201);
    const body = (await created.json()) as Record<string, any>;
    expect(body).toMatchObject({ id: "s1", type: "webhook", pattern: "events/*", lease_ttl_ms: 1000, generation: 0, wake: null, webhook: { url: r.url, signing: { alg: "ed25519", jwks_url: "http://ursa.test/v1/stream/__ds/jwks.json" } } });
    expect(body.webhook.signing.kid).toMatch(/^ds_/);
    expect((await put(sub("s1"), config)).status).toBe(200);
    const other = await put(sub("s1"), { ...config, lease_ttl_ms: 2000 });
    expect(other.status).toBe(409);
    expect(await errorOf(other)).toBe("SUBSCRIPTION_ALREADY_EXISTS");
    expect((await h!.request("DELETE", sub("s1"))).status).toBe(204);
    const gone = await h!.request("GET", sub("s1"));
    expect(gone.status).toBe(404);
    expect(await errorOf(gone)).toBe("SUBSCRIPTION_NOT_FOUND");
  });

  test("malformed configurations are 400 INVALID_SUBSCRIPTION, a body that is not JSON 400 INVALID_JSON", async () => {
    await open();
    for (const body of [{ type: "email", pattern: "a/*" }, { type: "pull-wake", pattern: "a/*" }, { type: "webhook", pattern: "a/*" }, { type: "pull-wake", streams: [], wake_stream: "w" }]) {
      const res = await put(sub("bad"), body);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toBe("INVALID_SUBSCRIPTION");
    }
    const res = await h!.request("PUT", sub("bad"), { headers: J, body: "{" });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("INVALID_JSON");
  });

  test("explicit streams are added and removed; a stream the pattern also takes stays", async () => {
    await open();
    const r = receiver();
    expect((await put(sub("s2"), { type: "webhook", streams: ["manual/a"], webhook: { url: r.url } })).status).toBe(201);
    expect((await post(`${sub("s2")}/streams`, { streams: ["manual/b"] })).status).toBe(204);
    expect((await h!.request("DELETE", `${sub("s2")}/streams/${encodeURIComponent("manual/b")}`)).status).toBe(204);
    const body = (await (await h!.request("GET", sub("s2"))).json()) as { streams: { path: string; link_type: string }[] };
    expect(body.streams).toEqual([{ path: "manual/a", link_type: "explicit", acked_offset: expect.any(String) } as never]);
    expect((await post(`${sub("s2")}/streams`, { streams: [] })).status).toBe(400);
  });

  test("the JWKS is public JSON of the signing key", async () => {
    await open();
    const res = await h!.request("GET", "/v1/stream/__ds/jwks.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/jwk-set+json");
    const { keys } = (await res.json()) as { keys: Record<string, string>[] };
    expect(keys).toEqual([expect.objectContaining({ kty: "OKP", crv: "Ed25519", alg: "EdDSA" })]);
  });
});

describe("webhook wakes (DS §6–§7)", () => {
  test("an append wakes the receiver with a signed body; its callback acks; the same generation again is FENCED", async () => {
    await open();
    const r = receiver();
    expect((await put(sub("w1"), { type: "webhook", pattern: "events/*", webhook: { url: r.url }, lease_ttl_ms: 5000 })).status).toBe(201);
    expect((await h!.request("PUT", "/v1/stream/events/a", { headers: J, body: '{"n":1}' })).status).toBe(201);
    const wake = await r.next();
    const { keys } = (await (await h!.request("GET", "/v1/stream/__ds/jwks.json")).json()) as { keys: object[] };
    const [, t, kid, sig] = /^t=(\d+),kid=([^,]+),ed25519=([A-Za-z0-9_-]+)$/.exec(wake.signature!)!;
    const key = keys.find((k) => (k as { kid: string }).kid === kid)!;
    expect(verify(null, Buffer.from(`${t}.${wake.raw}`), createPublicKey({ key: key as never, format: "jwk" }), Buffer.from(sig!, "base64url"))).toBe(true);
    expect(verify(null, Buffer.from(`${t}.${wake.raw} `), createPublicKey({ key: key as never, format: "jwk" }), Buffer.from(sig!, "base64url"))).toBe(false);
    expect(wake.body).toMatchObject({ subscription_id: "w1", generation: 1, callback_url: "http://ursa.test/v1/stream/__ds/subscriptions/w1/callback" });
    const stream = wake.body.streams.find((s: { path: string }) => s.path === "events/a");
    expect(stream).toMatchObject({ link_type: "glob", acked_offset: "-1", has_pending: true });
    const answer = { wake_id: wake.body.wake_id, generation: 1, acks: [{ stream: "events/a", offset: stream.tail_offset }], done: true };

    const forged = await post(`${sub("w1")}/callback`, answer, `${wake.body.callback_token}x`);
    expect(forged.status).toBe(401);
    expect(await errorOf(forged)).toBe("TOKEN_INVALID");
    const acked = await post(`${sub("w1")}/callback`, answer, wake.body.callback_token);
    expect(acked.status).toBe(200);
    expect(await acked.json()).toEqual({ ok: true, next_wake: false });
    const again = await post(`${sub("w1")}/callback`, answer, wake.body.callback_token);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toBe("FENCED");
    const view = (await (await h!.request("GET", sub("w1"))).json()) as { streams: { acked_offset: string }[]; generation: number; wake: null };
    expect(view.streams[0]!.acked_offset).toBe(stream.tail_offset);
    expect(view.wake).toBeNull();
  });

  test("a receiver answering done acks the wake's snapshot; the next append opens the next generation", async () => {
    await open();
    const r = receiver(() => Response.json({ done: true }));
    await put(sub("w2"), { type: "webhook", pattern: "events/*", webhook: { url: r.url } });
    await h!.request("PUT", "/v1/stream/events/b", { headers: J, body: '{"n":1}' });
    const first = await r.next();
    const tail = first.body.streams[0].tail_offset;
    await until(async () => ((await (await h!.request("GET", sub("w2"))).json()) as { streams: { acked_offset: string }[] }).streams[0]!.acked_offset === tail);
    expect((await post("/v1/stream/events/b", { n: 2 })).status).toBe(204);
    const second = await r.next();
    expect(second.body.generation).toBe(2);
    expect(second.body.streams[0].acked_offset).toBe(tail);
  });

  test("a stream deleted and created again at the same path wakes the subscription from its start", async () => {
    await open();
    const r = receiver(() => Response.json({ done: true }));
    await put(sub("w3"), { type: "webhook", streams: ["events/c"], webhook: { url: r.url } });
    await h!.request("PUT", "/v1/stream/events/c", { headers: J, body: '{"long":"a longer first message"}' });
    const first = await r.next();
    const tail = first.body.streams[0].tail_offset;
    await until(async () => ((await (await h!.request("GET", sub("w3"))).json()) as { streams: { acked_offset: string }[] }).streams[0]!.acked_offset === tail);
    expect((await h!.request("DELETE", "/v1/stream/events/c")).status).toBe(204);
    await until(async () => ((await (await h!.request("GET", sub("w3"))).json()) as { streams: { acked_offset: string }[] }).streams[0]!.acked_offset === "-1");
    await h!.request("PUT", "/v1/stream/events/c", { headers: J, body: '{"n":1}' });
    const second = await r.next();
    expect(second.body.generation).toBe(2);
    expect(second.body.streams[0]).toMatchObject({ path: "events/c", acked_offset: "-1", has_pending: true });
  });

  test("subscriptions under a bucket follow that bucket's streams only", async () => {
    await open();
    const r = receiver(() => Response.json({ done: true }));
    expect((await put(sub("b1", "/bkt1"), { type: "webhook", pattern: "*", webhook: { url: r.url } })).status).toBe(201);
    await h!.request("PUT", "/bkt2/s", { headers: J, body: '{"n":1}' });
    await h!.request("PUT", "/bkt1/s", { headers: J, body: '{"n":1}' });
    const wake = await r.next();
    expect(wake.body.callback_url).toBe("http://ursa.test/bkt1/__ds/subscriptions/b1/callback");
    expect(wake.body.streams.map((s: { path: string }) => s.path)).toEqual(["s"]);
    expect((await h!.request("GET", sub("b1"))).status).toBe(404);
  });
});

describe("webhook targets (issue 49: safe outbound calls)", () => {
  test("loopback, private and link-local addresses are refused 400 WEBHOOK_URL_REJECTED, as literals or as names resolving to them, unless allowed", async () => {
    await open({ allowHosts: ["allowed.test"], resolve: async (host) => (host === "internal.test" ? ["10.9.8.7"] : host === "allowed.test" ? ["127.0.0.1"] : ["93.184.215.14"]) });
    for (const url of ["http://10.0.0.1/hook", "http://127.0.0.1:9/hook", "http://169.254.169.254/", "http://[::1]/", "http://internal.test/hook"]) {
      const res = await put(sub("u"), { type: "webhook", pattern: "a/*", webhook: { url } });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toBe("WEBHOOK_URL_REJECTED");
    }
    expect((await put(sub("u1"), { type: "webhook", pattern: "a/*", webhook: { url: "http://allowed.test/hook" } })).status).toBe(201);
    expect((await put(sub("u2"), { type: "webhook", pattern: "a/*", webhook: { url: "https://public.test/hook" } })).status).toBe(201);
    expect((await put(sub("u3"), { type: "webhook", pattern: "a/*", webhook: { url: "ftp://public.test/hook" } })).status).toBe(400);
  });

  test("localhost resolves to loopback and is refused unless allowed", async () => {
    await open({ allowHosts: [] });
    const res = await put(sub("l"), { type: "webhook", pattern: "a/*", webhook: { url: "http://localhost:9/hook" } });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe("WEBHOOK_URL_REJECTED");
  });

  test("a name that resolved elsewhere at creation and to a private address at call time is not called", async () => {
    let address = "93.184.215.14";
    await open({ allowHosts: [], maxAttempts: 1, resolve: async () => [address] });
    expect((await put(sub("d"), { type: "webhook", pattern: "events/*", webhook: { url: "http://rebind.test/hook" } })).status).toBe(201);
    address = "10.0.0.1";
    await h!.request("PUT", "/v1/stream/events/d", { headers: J, body: '{"n":1}' });
    await until(async () => ((await (await h!.request("GET", sub("d"))).json()) as { delivery: { last_error: string | null } }).delivery.last_error !== null);
    const view = (await (await h!.request("GET", sub("d"))).json()) as { delivery: { last_error: string; attempts: number } };
    expect(view.delivery.last_error).toContain("10.0.0.1");
    expect(view.delivery.attempts).toBe(1);
  });
});

describe("failing receivers (issue 49)", () => {
  const failing = async (name: string, url: string, options: Partial<Omit<SubscriptionOptions, "log">>) => {
    await open({ maxAttempts: 3, retryDelayMs: 5, ...options });
    expect((await put(sub(name), { type: "webhook", pattern: "events/*", webhook: { url }, lease_ttl_ms: 60_000 })).status).toBe(201);
    expect((await h!.request("PUT", `/v1/stream/events/${name}`, { headers: J, body: '{"n":1}' })).status).toBe(201);
    // Appends are answered while deliveries fail: delivery is off the write path.
    for (let i = 0; i < 5; i++) expect((await post(`/v1/stream/events/${name}`, { n: i })).status).toBe(204);
    await until(async () => ((await (await h!.request("GET", sub(name))).json()) as { delivery: { attempts: number } }).delivery.attempts >= 3);
    await Bun.sleep(100);
    return (await (await h!.request("GET", sub(name))).json()) as { status: string; delivery: { attempts: number; last_error: string; next_attempt_at: string | null }; wake: unknown };
  };

  test("one answering 500 is tried a bounded number of times, then the subscription shows the error", async () => {
    const r = receiver(() => new Response("no", { status: 500 }));
    const view = await failing("five", r.url, {});
    expect(view.delivery).toMatchObject({ attempts: 3, last_error: "HTTP 500", next_attempt_at: null });
    expect(view.status).toBe("failed");
    expect(r.got.length).toBe(3);
  });

  test("one that hangs is given up on after the delivery timeout", async () => {
    const r = receiver(() => new Promise<Response>(() => undefined));
    const view = await failing("hang", r.url, { deliveryTimeoutMs: 50 });
    expect(view.delivery.last_error).toContain("no answer within 50 ms");
    expect(view.delivery.attempts).toBe(3);
  });

  test("an endless answer is read only as far as a done could be, and counts as no done", async () => {
    await open({ deliveryTimeoutMs: 2000 });
    const r = receiver(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new Uint8Array(16 * 1024).fill(32));
            },
          }),
          { headers: J },
        ),
    );
    await put(sub("big"), { type: "webhook", pattern: "events/*", webhook: { url: r.url }, lease_ttl_ms: 60_000 });
    await h!.request("PUT", "/v1/stream/events/big", { headers: J, body: '{"n":1}' });
    await until(async () => ((await (await h!.request("GET", sub("big"))).json()) as { delivery: { last_delivery_at: string | null } }).delivery.last_delivery_at !== null);
    // Delivered (not timed out: the endless body was not read to its end), and no done was in it.
    const view = (await (await h!.request("GET", sub("big"))).json()) as { wake: unknown; streams: { acked_offset: string }[]; delivery: { last_error: string | null } };
    expect(view.delivery.last_error).toBeNull();
    expect(view.wake).not.toBeNull();
    expect(view.streams[0]!.acked_offset).toBe("-1");
  });

  test("one that is gone (nothing listens) counts as failed", async () => {
    const r = receiver();
    r.stop();
    const view = await failing("gone", r.url, {});
    expect(view.delivery.attempts).toBe(3);
    expect(view.delivery.last_error).not.toBeNull();
  });
});

describe("pull-wake leases (DS §7)", () => {
  test("a wake event in the wake stream; one holder at a time; ack done; a release ends the lease", async () => {
    await open();
    await h!.request("PUT", "/v1/stream/wake/pool", { headers: J, body: "[]" });
    expect((await put(sub("p1"), { type: "pull-wake", pattern: "events/*", wake_stream: "wake/pool", lease_ttl_ms: 1000 })).status).toBe(201);
    const nothing = await post(`${sub("p1")}/claim`, { worker: "w1" });
    expect(nothing.status).toBe(409);
    expect(await errorOf(nothing)).toBe("NO_PENDING_WORK");
    await h!.request("PUT", "/v1/stream/events/p", { headers: J, body: '{"n":1}' });
    await until(async () => ((await (await h!.request("GET", "/v1/stream/wake/pool?offset=-1")).json()) as { subscription_id: string }[]).some((e) => e.subscription_id === "p1"));

    const claim = await post(`${sub("p1")}/claim`, { worker: "w1" });
    expect(claim.status).toBe(200);
    const claimed = (await claim.json()) as { token: string; wake_id: string; generation: number; streams: { path: string; tail_offset: string }[]; lease_ttl_ms: number };
    expect(claimed).toMatchObject({ generation: 1, lease_ttl_ms: 1000 });
    const busy = await post(`${sub("p1")}/claim`, { worker: "w2" });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: "ALREADY_CLAIMED", current_holder: "w1", generation: 1 } });

    const tail = claimed.streams.find((s) => s.path === "events/p")!.tail_offset;
    const ack = await post(`${sub("p1")}/ack`, { wake_id: claimed.wake_id, generation: 1, acks: [{ stream: "events/p", offset: tail }], done: true }, claimed.token);
    expect(ack.status).toBe(200);
    expect(await ack.json()).toEqual({ ok: true, next_wake: false });

    await post("/v1/stream/events/p", { n: 2 });
    const claim2 = (await (await post(`${sub("p1")}/claim`, { worker: "w1" })).json()) as { token: string; wake_id: string; generation: number };
    expect(claim2.generation).toBe(2);
    const stale = await post(`${sub("p1")}/release`, { wake_id: claimed.wake_id, generation: 1 }, claim2.token);
    expect(stale.status).toBe(409);
    expect((await post(`${sub("p1")}/release`, { wake_id: claim2.wake_id, generation: 2 }, claim2.token)).status).toBe(204);
  });
});

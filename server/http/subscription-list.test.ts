// The console's list of a bucket's subscriptions (GET /__ursula/api/buckets/{b}/subscriptions):
// each one as the reserved API's GET shows it, its lease after a claim, and only to a token with
// the admin scope on that bucket (webhook URLs are the admin's to read). And the console's test
// receiver (…/test-receiver): a webhook to it is allowed without --webhook-allow-hosts, its wakes
// arrive signed, and it too is for the bucket's admins only.

import { afterEach, describe, expect, test } from "bun:test";
import { NO_AUTH } from "../auth/authenticator";
import { ADMIN, ALL_SCOPES, READ } from "../auth/scopes";
import { harness, HARNESS_HOST, type Harness } from "../testing/app-harness";
import type { ReceivedWakes, SubscriptionView } from "../introspection-api";

const ADMIN_DEMO = "admin-demo-0123456789";
const READ_DEMO = "read-demo-01234567890";
const ADMIN_OTHER = "admin-other-012345678";
const J = { "content-type": "application/json" };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function open(withTokens: boolean): Promise<Harness> {
  const tokens = [
    { token: ADMIN_DEMO, scopes: ALL_SCOPES, buckets: new Set(["demo"]) },
    { token: READ_DEMO, scopes: READ, buckets: new Set(["demo"]) },
    { token: ADMIN_OTHER, scopes: ADMIN | READ, buckets: new Set(["other"]) },
  ];
  h = harness({ subscriptions: { allowHosts: [] }, ...(withTokens ? { security: { auth: { ...NO_AUTH, tokens } } } : {}) });
  await h.ready;
  return h;
}

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const send = (method: string, path: string, body?: unknown, token?: string) =>
  h!.request(method, path, { headers: { ...J, ...auth(token) }, body: body === undefined ? undefined : JSON.stringify(body) });
const list = (bucket: string, token?: string) => h!.request("GET", `/__ursula/api/buckets/${bucket}/subscriptions`, { headers: auth(token) });

describe("a bucket's subscriptions", () => {
  test("lists each subscription of the bucket only, by id, with its lease after a claim", async () => {
    await open(false);
    for (const b of ["/demo", "/other"]) expect((await send("PUT", b)).status).toBe(201);
    for (const s of ["/demo/wake-pool", "/demo/events-a", "/other/wake-x"]) expect((await send("PUT", s)).status).toBe(201);
    expect((await send("PUT", "/demo/__ds/subscriptions/w1", { type: "webhook", pattern: "events-*", webhook: { url: `http://${HARNESS_HOST}/__ursula/api/buckets/demo/test-receiver` } })).status).toBe(201);
    expect((await send("PUT", "/demo/__ds/subscriptions/p1", { type: "pull-wake", streams: ["events-a"], wake_stream: "wake-pool", lease_ttl_ms: 30_000 })).status).toBe(201);
    expect((await send("PUT", "/other/__ds/subscriptions/x1", { type: "pull-wake", pattern: "*", wake_stream: "wake-x" })).status).toBe(201);
    expect((await send("POST", "/demo/events-a", ["m"])).status).toBe(204);
    // The wake opens once the append is committed: claim until there is one to claim.
    let claimed = await send("POST", "/demo/__ds/subscriptions/p1/claim", { worker: "worker-7" });
    for (let tries = 0; claimed.status === 409 && tries < 200; tries++) {
      await Bun.sleep(10);
      claimed = await send("POST", "/demo/__ds/subscriptions/p1/claim", { worker: "worker-7" });
    }
    expect([claimed.status, claimed.status === 200 ? "" : await claimed.text()]).toEqual([200, ""]);

    const res = await list("demo");
    expect(res.status).toBe(200);
    const page = (await res.json()) as { bucket_id: string; subscriptions: { id: string; type: string; pattern?: string; streams: { path: string }[]; generation: number; wake: { holder: string | null; opened_at: string | null; lease_expires_at: string | null } | null }[] };
    expect(page.bucket_id).toBe("demo");
    expect(page.subscriptions.map((s) => [s.id, s.type, s.pattern ?? s.streams.map((l) => l.path).join()])).toEqual([
      ["p1", "pull-wake", "events-a"],
      ["w1", "webhook", "events-*"],
    ]);
    const p1 = page.subscriptions[0]!;
    expect(p1.generation).toBeGreaterThan(0);
    expect(p1.wake?.holder).toBe("worker-7");
    expect(Date.parse(p1.wake!.opened_at!)).toBeLessThanOrEqual(Date.parse(p1.wake!.lease_expires_at!));
    expect(Date.parse(p1.wake!.lease_expires_at!)).toBeGreaterThan(Date.now() - 60_000);
    // The single resource and the list agree.
    const one = (await (await send("GET", "/demo/__ds/subscriptions/p1")).json()) as Record<string, unknown>;
    expect(page.subscriptions[0]).toEqual(one as never);
  });

  test("a bucket without subscriptions lists none; an invalid bucket ID is 400", async () => {
    await open(false);
    expect(((await (await list("empty")).json()) as { subscriptions: unknown[] }).subscriptions).toEqual([]);
    expect((await list("__bad")).status).toBe(400);
  });

  test("needs the admin scope on that bucket; another bucket's token is told it does not exist", async () => {
    await open(true);
    expect((await send("PUT", "/demo", undefined, ADMIN_DEMO)).status).toBe(201);
    expect((await send("PUT", "/demo/wake-pool", undefined, ADMIN_DEMO)).status).toBe(201);
    expect((await send("PUT", "/demo/__ds/subscriptions/p1", { type: "pull-wake", pattern: "*", wake_stream: "wake-pool" }, ADMIN_DEMO)).status).toBe(201);
    expect((await list("demo", ADMIN_DEMO)).status).toBe(200);
    expect((await list("demo", READ_DEMO)).status).toBe(403);
    const other = await list("demo", ADMIN_OTHER);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("BUCKET_NOT_FOUND");
    expect((await list("demo")).status).toBe(401);
  });
});

describe("the console's test receiver", () => {
  const receiver = (bucket: string) => `http://${HARNESS_HOST}/__ursula/api/buckets/${bucket}/test-receiver`;

  test("a webhook to it is allowed, a wake arrives signed, is answered done, and shows as delivered", async () => {
    await open(false);
    for (const p of ["/demo", "/demo/orders"]) expect((await send("PUT", p)).status).toBe(201);
    expect((await send("PUT", "/demo/__ds/subscriptions/try", { type: "webhook", streams: ["orders"], webhook: { url: receiver("demo") } })).status).toBe(201);
    expect((await send("POST", "/demo/orders", [{ n: 1 }])).status).toBe(204);
    let got: ReceivedWakes = { bucket_id: "", path: "", wakes: [] };
    for (let tries = 0; got.wakes.length === 0 && tries < 200; tries++) {
      await Bun.sleep(10);
      got = (await (await h!.request("GET", "/__ursula/api/buckets/demo/test-receiver")).json()) as ReceivedWakes;
    }
    expect(got.path).toBe("/__ursula/api/buckets/demo/test-receiver");
    expect(got.wakes.length).toBe(1);
    expect(got.wakes[0]).toMatchObject({ subscription_id: "try", generation: 1, signature_verified: true });
    expect(got.wakes[0]!.streams.map((s) => s.path)).toEqual(["orders"]);
    // Answered `done`: the wake is acked, and the delivery is recorded.
    const view = (await (await send("GET", "/demo/__ds/subscriptions/try")).json()) as SubscriptionView;
    expect(view.wake).toBeNull();
    expect(view.delivery.last_error).toBeNull();
    expect(view.delivery.last_delivery_at).not.toBeNull();
    expect(view.streams[0]!.acked_offset).not.toBe("-1");
  });

  test("another bucket's receiver, or another host, is an ordinary loopback target: refused", async () => {
    // Created through 127.0.0.1 (an IP literal is an allowed Host), so the receiver's host is a loopback address.
    await open(false);
    for (const p of ["/demo", "/demo/orders"]) expect((await send("PUT", p)).status).toBe(201);
    const through = (url: string) => h!.request("PUT", "/demo/__ds/subscriptions/x", { host: "127.0.0.1", headers: J, body: JSON.stringify({ type: "webhook", streams: ["orders"], webhook: { url } }) });
    for (const url of ["http://127.0.0.1/__ursula/api/buckets/other/test-receiver", "http://127.0.0.2/__ursula/api/buckets/demo/test-receiver"]) {
      const res = await through(url);
      expect([url, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([url, 400, "WEBHOOK_URL_REJECTED"]);
    }
    expect((await through("http://127.0.0.1:9/__ursula/api/buckets/demo/test-receiver")).status).toBe(201);
  });

  test("its wakes are for the bucket's admins only", async () => {
    await open(true);
    const get = (token?: string) => h!.request("GET", "/__ursula/api/buckets/demo/test-receiver", { headers: auth(token) });
    expect((await get(ADMIN_DEMO)).status).toBe(200);
    expect((await get(READ_DEMO)).status).toBe(403);
    expect((await get(ADMIN_OTHER)).status).toBe(404);
    expect((await get()).status).toBe(401);
  });
});

import { describe, expect, test } from "bun:test";
import { failureOf, TRY_STREAM, WebhookTryModel } from "./webhookTry";
import type { Exchange, ProtocolRequest } from "../api/types";
import type { ReceivedWake } from "../api/subscriptions";
import type { Transport } from "./transport";

const answer = (req: ProtocolRequest, status: number, bodyText = ""): Exchange => ({
  id: "x",
  origin: "http://127.0.0.1:4437",
  request: req,
  startedAt: 0,
  durationMs: 1,
  response: { status, statusText: "", headers: [], bodyText },
});

const wake = (id: string, wakeId: string, verified = true): ReceivedWake => ({
  received_at: "2026-12-07T05:00:00.000Z",
  subscription_id: id,
  wake_id: wakeId,
  generation: 1,
  streams: [{ path: TRY_STREAM, acked_offset: "-1", tail_offset: "0000000000000000_0000000000000010", has_pending: true }],
  signature: "t=1,kid=k,ed25519=s",
  signature_verified: verified,
});

function setup(statusOf: (req: ProtocolRequest) => number = () => 200) {
  const sent: ProtocolRequest[] = [];
  const received: ReceivedWake[] = [];
  const transport: Transport = async (req) => {
    sent.push(req);
    const status = statusOf(req);
    return answer(req, status, status >= 400 ? JSON.stringify({ error: { code: "WEBHOOK_URL_REJECTED", message: "no" } }) : "");
  };
  const m = new WebhookTryModel("demo", transport, "http://127.0.0.1:4437", async () => ({ ok: true, data: { bucket_id: "demo", path: "/p", wakes: [...received] } }), 60_000, () => "console-try-t1");
  return { m, sent, received };
}

describe("try a webhook", () => {
  test("ensures the stream, creates a webhook to the bucket's test receiver, appends, and sees the wake arrive", async () => {
    const { m, sent, received } = setup();
    await m.start();
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(["PUT /demo/webhook-try", "PUT /demo/__ds/subscriptions/console-try-t1", "POST /demo/webhook-try"]);
    expect(JSON.parse(sent[1]!.body!)).toMatchObject({ type: "webhook", streams: [TRY_STREAM], webhook: { url: "http://127.0.0.1:4437/__ursula/api/buckets/demo/test-receiver" } });
    expect(m.step.value).toBe("waiting");
    received.unshift(wake("someone-else", "w_0"), wake("console-try-t1", "w_1"));
    await m.refresh();
    expect(m.step.value).toBe("arrived");
    expect(m.wakes.value.map((w) => w.wake_id)).toEqual(["w_1"]);
    // Another append waits for a wake other than the one seen.
    await m.append();
    expect(m.step.value).toBe("waiting");
    await m.refresh();
    expect(m.step.value).toBe("waiting");
    received.unshift(wake("console-try-t1", "w_2"));
    await m.refresh();
    expect(m.step.value).toBe("arrived");
    await m.remove();
    expect(sent.at(-1)).toMatchObject({ method: "DELETE", path: "/demo/__ds/subscriptions/console-try-t1" });
    expect(m.step.value).toBe("deleted");
    expect(m.subscriptionId.value).toBeNull();
  });

  test("a refused subscription stops there and says why", async () => {
    const { m, sent } = setup((req) => (req.path.includes("__ds") ? 400 : 201));
    await m.start();
    expect(m.step.value).toBe("failed");
    expect(m.error.value).toBe("Creating the subscription: 400 WEBHOOK_URL_REJECTED no");
    expect(sent.length).toBe(2);
    expect(m.subscriptionId.value).toBeNull();
  });

  test("an exchange without an answer is a failure in words", () => {
    const req: ProtocolRequest = { method: "PUT", path: "/x", headers: [] };
    expect(failureOf({ ...answer(req, 0), response: undefined, networkError: "connection refused" }, "Creating")).toBe("Creating: connection refused");
    expect(failureOf(answer(req, 204), "Creating")).toBeNull();
    expect(failureOf(answer(req, 403, "nope"), "Creating")).toBe("Creating: 403 nope");
  });
});

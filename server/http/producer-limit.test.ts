// The producer limit over HTTP (spec §5.3 [NEW]): 429 PRODUCER_LIMIT with nothing committed, a
// place freed by an hour's idleness, and the console's producer list without forgotten ones.

import { afterEach, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

const HOUR = 3_600_000;
let h: Harness;
afterEach(() => h.close());

const post = (id: string, seq: number, body = "x") =>
  h.request("POST", "/limit-b/s", {
    headers: { "Content-Type": "text/plain", "Producer-Id": id, "Producer-Epoch": "0", "Producer-Seq": String(seq) },
    body,
  });
const listed = async () => {
  const detail = (await (await h.request("GET", "/__ursula/api/streams/limit-b/s")).json()) as { producers: { producer_id: string }[] };
  return detail.producers.map((p) => p.producer_id);
};

test("a new producer past the limit gets 429 PRODUCER_LIMIT and commits nothing; an hour's idleness makes room", async () => {
  h = harness({ producerLimits: { idleTtlMs: 2 * HOUR, maxPerStream: 2 } });
  expect((await h.request("PUT", "/limit-b/s", { headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  expect((await post("a", 0)).status).toBe(200);
  h.clock.now += 10;
  expect((await post("b", 0)).status).toBe(200);
  const before = await h.fingerprint("limit-b/s");

  const refused = await post("c", 0, "refused");
  expect(refused.status).toBe(429);
  expect(refused.headers.get("Stream-Incarnation")).toBe((await h.store.get("limit-b/s"))!.incarnation);
  const { error } = (await refused.json()) as { error: { code: string; message: string } };
  expect(error.code).toBe("PRODUCER_LIMIT");
  expect(error.message).toStartWith("producer_limit");
  expect(await h.fingerprint("limit-b/s")).toBe(before);

  h.clock.now += HOUR;
  expect((await post("c", 0)).status).toBe(200);
  expect(await listed()).toEqual(["b", "c"]);
  expect((await post("a", 1)).status).toBe(409);

  h.clock.now += 2 * HOUR;
  expect(await listed()).toEqual([]);
});

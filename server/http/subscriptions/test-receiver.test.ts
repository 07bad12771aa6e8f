// The console's test receiver: which URLs it is (the exception to refusing loopback targets is
// exactly one path per bucket on the subscription's own host), signatures checked, memory bounded.

import { describe, expect, test } from "bun:test";
import { generateKeyPairSync, sign } from "node:crypto";
import { isTestReceiverUrl, RECEIVER_BUCKETS, RECEIVER_WAKES, signatureVerifies, TestReceiver, testReceiverPath } from "./test-receiver";
import type { Jwk } from "./wake-signing";

const ORIGIN = "http://127.0.0.1:4437";
const NOW = Date.UTC(2026, 11, 7, 5, 0, 0);

function keys(kid = "ds_test") {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const pub = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string };
  const jwk: Jwk = { kty: pub.kty, crv: pub.crv, x: pub.x, kid, alg: "EdDSA", use: "sig" };
  const signature = (body: string, nowMs = NOW) => {
    const t = Math.floor(nowMs / 1000);
    return `t=${t},kid=${kid},ed25519=${sign(null, Buffer.from(`${t}.${body}`), privateKey).toString("base64url")}`;
  };
  return { jwk, signature, publicKey };
}

const wake = (id: string, generation = 1) => JSON.stringify({ subscription_id: id, wake_id: `w_${generation}`, generation, streams: [], callback_url: "x", callback_token: "secret-token" });

describe("which URL is the test receiver", () => {
  test("its bucket's path on the host the subscription was created through, any port or scheme", () => {
    expect(testReceiverPath("demo")).toBe("/__ursula/api/buckets/demo/test-receiver");
    expect(isTestReceiverUrl(`${ORIGIN}/__ursula/api/buckets/demo/test-receiver`, "demo", ORIGIN)).toBe(true);
    expect(isTestReceiverUrl("https://127.0.0.1/__ursula/api/buckets/demo/test-receiver", "demo", ORIGIN)).toBe(true);
  });

  test("anything else is not: another bucket, another host, a query, credentials, the v1 surface, another path", () => {
    for (const url of [
      `${ORIGIN}/__ursula/api/buckets/other/test-receiver`,
      "http://10.0.0.1:4437/__ursula/api/buckets/demo/test-receiver",
      `${ORIGIN}/__ursula/api/buckets/demo/test-receiver?x=1`,
      "http://u:p@127.0.0.1:4437/__ursula/api/buckets/demo/test-receiver",
      `${ORIGIN}/__ursula/api/buckets/demo/test-receiver/more`,
      `${ORIGIN}/__ursula/api/buckets/demo/subscriptions`,
      `ftp://127.0.0.1/__ursula/api/buckets/demo/test-receiver`,
      "not a url",
    ]) {
      expect([url, isTestReceiverUrl(url, "demo", ORIGIN)]).toEqual([url, false]);
    }
    expect(isTestReceiverUrl(`${ORIGIN}/__ursula/api/buckets/v1/test-receiver`, "v1", ORIGIN)).toBe(false);
  });
});

describe("signatures", () => {
  test("this key's signature verifies; another key's, another body, or a stale time does not", () => {
    const mine = keys();
    const theirs = keys();
    const body = wake("w1");
    expect(signatureVerifies(body, mine.signature(body), mine.publicKey, "ds_test", NOW)).toBe(true);
    expect(signatureVerifies(body, theirs.signature(body), mine.publicKey, "ds_test", NOW)).toBe(false);
    expect(signatureVerifies(`${body} `, mine.signature(body), mine.publicKey, "ds_test", NOW)).toBe(false);
    expect(signatureVerifies(body, mine.signature(body, NOW - 600_000), mine.publicKey, "ds_test", NOW)).toBe(false);
    expect(signatureVerifies(body, "garbage", mine.publicKey, "ds_test", NOW)).toBe(false);
  });
});

describe("the wakes kept", () => {
  test("newest first, the callback token dropped, at most RECEIVER_WAKES per bucket", () => {
    const k = keys();
    const r = new TestReceiver(k.jwk, () => NOW);
    for (let g = 1; g <= RECEIVER_WAKES + 5; g++) r.take("demo", wake("w1", g), k.signature(wake("w1", g)));
    const got = r.list("demo");
    expect(got.length).toBe(RECEIVER_WAKES);
    expect(got[0]!.generation).toBe(RECEIVER_WAKES + 5);
    expect(got.every((w) => w.signature_verified)).toBe(true);
    expect(JSON.stringify(got)).not.toContain("secret-token");
    expect(r.list("other")).toEqual([]);
  });

  test("at most RECEIVER_BUCKETS buckets; the one delivered to longest ago is forgotten", () => {
    const k = keys();
    const r = new TestReceiver(k.jwk, () => NOW);
    for (let b = 0; b <= RECEIVER_BUCKETS; b++) r.take(`b${b}`, wake("w1"), k.signature(wake("w1")));
    expect(r.list("b0")).toEqual([]);
    expect(r.list("b1").length).toBe(1);
    expect(r.list(`b${RECEIVER_BUCKETS}`).length).toBe(1);
  });
});

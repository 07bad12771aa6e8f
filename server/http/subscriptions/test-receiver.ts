// The console's test receiver (issue 49: "a test receiver that the console itself shows"). A
// webhook URL naming `/__ursula/api/buckets/{bucket}/test-receiver` on the host a subscription of
// that bucket was created through is handed its wakes in-process, never over the network: allowing
// it is a narrow exception to the refusal of loopback targets that cannot reach anything else. The
// last wakes of each bucket are kept in memory, bounded, with whether their signature verifies
// against this server's key, for the bucket's admins to see. A test aid: nothing here is durable,
// and each server of a shared database keeps the wakes it delivered itself.

import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { V1_SCOPE } from "../../protocol/subscription-paths";
import type { ReceivedWake } from "../../introspection-api";
import type { Jwk } from "./wake-signing";

/** Wakes kept per bucket, newest first. */
export const RECEIVER_WAKES = 20;
/** Buckets kept; the one least recently delivered to is forgotten first. */
export const RECEIVER_BUCKETS = 64;
/** A signature older or newer than this does not verify (docs/api.md, Verifying a wake). */
const SIGNATURE_SKEW_S = 300;

export function testReceiverPath(bucket: string): string {
  return `/__ursula/api/buckets/${encodeURIComponent(bucket)}/test-receiver`;
}

/** Whether `url` is the test receiver for subscriptions of `scope` created through `origin`. */
export function isTestReceiverUrl(url: string, scope: string, origin: string): boolean {
  if (scope === V1_SCOPE) return false;
  let u: URL;
  let o: URL;
  try {
    u = new URL(url);
    o = new URL(origin);
  } catch {
    return false;
  }
  const web = u.protocol === "http:" || u.protocol === "https:";
  return web && u.username === "" && u.password === "" && u.search === "" && u.hash === "" && u.hostname.toLowerCase() === o.hostname.toLowerCase() && u.pathname === testReceiverPath(scope);
}

/** Whether a `Webhook-Signature` header signs `body` with this key, within the allowed skew. */
export function signatureVerifies(body: string, header: string, key: KeyObject, kid: string, nowMs: number): boolean {
  const m = /^t=(\d+),kid=([^,]+),ed25519=([\w-]+)$/.exec(header);
  if (!m || m[2] !== kid || Math.abs(nowMs / 1000 - Number(m[1])) > SIGNATURE_SKEW_S) return false;
  return verify(null, Buffer.from(`${m[1]}.${body}`), key, Buffer.from(m[3]!, "base64url"));
}

export class TestReceiver {
  private readonly wakes = new Map<string, ReceivedWake[]>();
  private readonly key: KeyObject;

  constructor(
    private readonly jwk: Jwk,
    private readonly now: () => number,
  ) {
    this.key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
  }

  /** Takes a signed wake for `bucket`; the callback token it carries is not kept. */
  take(bucket: string, body: string, signature: string): void {
    const wake = JSON.parse(body) as { subscription_id: string; wake_id: string; generation: number; streams: ReceivedWake["streams"] };
    const list = this.wakes.get(bucket) ?? [];
    this.wakes.delete(bucket);
    list.unshift({
      received_at: new Date(this.now()).toISOString(),
      subscription_id: wake.subscription_id,
      wake_id: wake.wake_id,
      generation: wake.generation,
      streams: wake.streams,
      signature,
      signature_verified: signatureVerifies(body, signature, this.key, this.jwk.kid, this.now()),
    });
    this.wakes.set(bucket, list.slice(0, RECEIVER_WAKES));
    for (const oldest of this.wakes.keys()) {
      if (this.wakes.size <= RECEIVER_BUCKETS) break;
      this.wakes.delete(oldest);
    }
  }

  /** The bucket's wakes, newest first. */
  list(bucket: string): ReceivedWake[] {
    return this.wakes.get(bucket) ?? [];
  }
}

// A bucket's DS subscriptions with their state: GET /__ursula/api/buckets/{bucket}/subscriptions
// (docs/api.md, Subscriptions), the console's test receiver's wakes, and the requests that create
// and delete a webhook subscription pointed at it. The shapes are server/introspection-api.ts's.
import type { ReceivedWakes, SubscriptionList } from "../../../server/introspection-api";
import type { ProtocolRequest } from "./types";
import { getJson, type ApiResult } from "./introspection";

export type { SubscriptionList, SubscriptionView } from "../../../server/introspection-api";

export function fetchSubscriptions(bucket: string, signal?: AbortSignal): Promise<ApiResult<SubscriptionList>> {
  // Only the bucket's admins see its subscriptions: a reader's bucket page says so rather than asking for a token.
  return getJson<SubscriptionList>(`/buckets/${encodeURIComponent(bucket)}/subscriptions`, signal, false);
}

export type { ReceivedWake, ReceivedWakes } from "../../../server/introspection-api";

/** The wakes the console's test receiver got for the bucket, newest first (docs/api.md, Subscriptions). */
export function fetchReceivedWakes(bucket: string, signal?: AbortSignal): Promise<ApiResult<ReceivedWakes>> {
  return getJson<ReceivedWakes>(`/buckets/${encodeURIComponent(bucket)}/test-receiver`, signal, false);
}

/** The webhook URL that delivers to the console's test receiver of `bucket`, on the server at `origin`. */
export function testReceiverUrl(origin: string, bucket: string): string {
  return `${origin}/__ursula/api/buckets/${encodeURIComponent(bucket)}/test-receiver`;
}

const subscriptionPath = (bucket: string, id: string) => `/${encodeURIComponent(bucket)}/__ds/subscriptions/${encodeURIComponent(id)}`;

/** A webhook subscription following `streams` explicitly, its wakes to `url`. */
export function createWebhookRequest(bucket: string, id: string, streams: string[], url: string, description: string): ProtocolRequest {
  return { method: "PUT", path: subscriptionPath(bucket, id), headers: [["Content-Type", "application/json"]], body: JSON.stringify({ type: "webhook", streams, webhook: { url }, description }) };
}

export function deleteSubscriptionRequest(bucket: string, id: string): ProtocolRequest {
  return { method: "DELETE", path: subscriptionPath(bucket, id), headers: [] };
}

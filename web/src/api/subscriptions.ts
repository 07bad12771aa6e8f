// A bucket's DS subscriptions with their state: GET /__ursula/api/buckets/{bucket}/subscriptions
// (docs/api.md, Subscriptions). The shapes are server/introspection-api.ts's.
import type { SubscriptionList } from "../../../server/introspection-api";
import { getJson, type ApiResult } from "./introspection";

export type { SubscriptionList, SubscriptionView } from "../../../server/introspection-api";

export function fetchSubscriptions(bucket: string, signal?: AbortSignal): Promise<ApiResult<SubscriptionList>> {
  // Only the bucket's admins see its subscriptions: a reader's bucket page says so rather than asking for a token.
  return getJson<SubscriptionList>(`/buckets/${encodeURIComponent(bucket)}/subscriptions`, signal, false);
}

// A subscription as the reserved API shows it (DS §6: `GET __ds/subscriptions/{id}`), with what
// ursa adds for operators: the generation, the outstanding wake and its lease, and how the last
// delivery went. Offsets are wire tokens; an acked offset of -1 (nothing yet) is shown as "-1".

import { formatOffset } from "../../protocol/offsets";
import type { StreamLink } from "../../protocol/subscription-wake";
import type { StoredSubscription } from "../../storage/subscriptions";
import type { SubscriptionView } from "../../introspection-api";

export const showOffset = (offset: number) => (offset < 0 ? "-1" : formatOffset(offset));

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function linkType(link: StreamLink): "explicit" | "glob" {
  return link.explicit ? "explicit" : "glob";
}

export function subscriptionView(s: StoredSubscription, signing: { kid: string; jwksUrl: string }): SubscriptionView {
  const { state, delivery } = s;
  const c = state.config;
  return {
    id: state.id,
    subscription_id: state.id,
    type: c.type,
    pattern: c.pattern ?? undefined,
    streams: state.links.map((l) => ({ path: l.path, link_type: linkType(l), acked_offset: showOffset(l.ackedOffset) })),
    webhook: c.webhookUrl === null ? undefined : { url: c.webhookUrl, signing: { alg: "ed25519", kid: signing.kid, jwks_url: signing.jwksUrl } },
    wake_stream: c.wakeStream ?? undefined,
    lease_ttl_ms: c.leaseTtlMs,
    created_at: new Date(s.createdAtMs).toISOString(),
    status: delivery.lastError === null ? "active" : "failed",
    description: c.description ?? undefined,
    generation: state.generation,
    wake: state.wake === null ? null : { wake_id: state.wake.id, opened_at: iso(state.wake.openedAtMs ?? null), holder: state.wake.holder, lease_expires_at: iso(state.wake.leaseUntilMs) },
    delivery: { last_delivery_at: iso(delivery.lastDeliveryAtMs), last_error: delivery.lastError, attempts: delivery.attempts, next_attempt_at: iso(delivery.nextAttemptAtMs) },
  };
}

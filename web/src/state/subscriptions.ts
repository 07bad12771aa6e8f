// A bucket's subscriptions for its page: asked again every few seconds while the page is open
// (and visible), so a wake opening, a lease taken and a delivery failing show without a reload.
// Each subscription's state is put in words here; the component only lays it out.
import { fetchSubscriptions, type SubscriptionList, type SubscriptionView } from "../api/subscriptions";
import type { ApiResult } from "../api/introspection";
import { age, count } from "../format";
import { whileVisible } from "./poll";
import { Resource } from "./resource";

export interface SubscriptionRow {
  id: string;
  type: SubscriptionView["type"];
  /** The pattern and the explicit streams, as one line. */
  follows: string;
  /** Where wakes go: the webhook URL or the wake stream. */
  target: string;
  /** The outstanding wake in words, or "none". */
  wake: string;
  pending: boolean;
  /** Who holds the wake's lease and until when, or null when nobody does. */
  lease: string | null;
  lastDelivery: string;
  lastError: string | null;
  attempts: string;
}

const when = (iso: string | null, now: number) => (iso === null ? null : `${iso.replace("T", " ").replace(/\.\d+Z$/, "Z")} (${age(Date.parse(iso), now)})`);

export function describeSubscription(s: SubscriptionView, now = Date.now()): SubscriptionRow {
  const explicit = s.streams.filter((l) => l.link_type === "explicit").map((l) => l.path);
  const follows = [s.pattern ? `pattern ${s.pattern}` : null, explicit.length > 0 ? `streams ${explicit.join(", ")}` : null].filter((x) => x !== null).join("; ");
  const lease = s.wake?.holder ? `${s.wake.holder} until ${when(s.wake.lease_expires_at, now) ?? "—"}` : null;
  return {
    id: s.id,
    type: s.type,
    follows: follows || "no stream yet",
    target: s.type === "webhook" ? (s.webhook?.url ?? "—") : `wake stream ${s.wake_stream ?? "—"}`,
    wake: s.wake === null ? `none (generation ${count(s.generation)})` : `generation ${count(s.generation)}, ${s.wake.wake_id}${s.wake.opened_at === null ? "" : `, pending since ${when(s.wake.opened_at, now)}`}`,
    pending: s.wake !== null,
    lease,
    lastDelivery: s.type === "webhook" ? (when(s.delivery.last_delivery_at, now) ?? "never") : "— (workers claim)",
    lastError: s.delivery.last_error,
    attempts: s.delivery.next_attempt_at === null ? count(s.delivery.attempts) : `${count(s.delivery.attempts)}, next try ${age(Date.parse(s.delivery.next_attempt_at), now)}`,
  };
}

type Fetcher = (bucket: string, signal?: AbortSignal) => Promise<ApiResult<SubscriptionList>>;

export class SubscriptionsModel {
  readonly list: Resource<SubscriptionList, null>;
  private stopPolling: (() => void) | undefined;

  constructor(
    bucket: string,
    fetcher: Fetcher = fetchSubscriptions,
    private readonly pollMs = 2000,
  ) {
    this.list = new Resource((_q, signal) => fetcher(bucket, signal));
  }

  get rows(): SubscriptionRow[] {
    return this.list.data.value?.subscriptions.map((s) => describeSubscription(s)) ?? [];
  }

  start(): void {
    void this.list.load(null);
    this.stopPolling = whileVisible(this.pollMs, () => void this.list.reload());
  }

  stop(): void {
    this.stopPolling?.();
    this.list.dispose();
  }
}

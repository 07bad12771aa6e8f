// Where subscriptions (DS §6–§7) are kept, whichever engine holds them: each subscription's whole
// state (configuration, followed streams and their acked offsets, generation, outstanding wake and
// lease, delivery status) as one record written atomically, and the server's own secrets (the
// wake signing key, the callback token key), created once and kept, so that wakes signed and
// tokens given before a restart still verify after it. Saves are compare-and-set on a version, so
// servers sharing one database never both open, ack or claim the same wake.

import type { SubscriptionState } from "../protocol/subscription-wake";

/** How the last webhook delivery went: what the console shows, and when the next try is due. */
export interface DeliveryStatus {
  lastDeliveryAtMs: number | null;
  lastError: string | null;
  /** Failed tries of the outstanding wake. */
  attempts: number;
  nextAttemptAtMs: number | null;
}

export interface StoredSubscription {
  /** Bumped by every save: a save names the version it read, so two servers never both change one (compare-and-set). */
  version: number;
  /** The surface it was created on: a bucket, or `v1` for `/v1/stream/__ds/…`. */
  scope: string;
  /** The origin it was created through: its callback and JWKS URLs are built on it. */
  origin: string;
  createdAtMs: number;
  state: SubscriptionState;
  delivery: DeliveryStatus;
}

export interface SubscriptionStore {
  /** Every subscription, of every scope. */
  all(): Promise<StoredSubscription[]>;
  /**
   * Every subscription, as of at least every stream change the store has told: the list a
   * change's wakes are matched against. An engine may keep it between changes of its own.
   */
  forWakes(): Promise<readonly StoredSubscription[]>;
  get(scope: string, id: string): Promise<StoredSubscription | undefined>;
  /**
   * Writes a subscription's record whole if the stored one is still at `version - 1` (absent for
   * version 1); resolves, once durable, with whether it did.
   */
  save(subscription: StoredSubscription): Promise<boolean>;
  /** Whether it existed. */
  remove(scope: string, id: string): Promise<boolean>;
  /** The secret kept under `name`, made with `make` (and kept) the first time it is asked for. */
  secret(name: string, make: () => string): Promise<string>;
}

export const NO_DELIVERY: DeliveryStatus = { lastDeliveryAtMs: null, lastError: null, attempts: 0, nextAttemptAtMs: null };

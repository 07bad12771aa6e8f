// What the HTTP layer is given by main.ts (or by a test): the store, the live hub and limits.

import type { LiveHub } from "../live/hub";
import type { SecurityConfig } from "./security/options";
import type { Logger } from "../ops/log";
import type { ServerMetrics } from "../ops/server-metrics";
import type { BodyBudget } from "./body-budget";
import type { BodyPacer } from "./body-pace";
import type { Store } from "../storage/store";
import type { SubscriptionService } from "./subscriptions/service";

export interface ServerLimits {
  maxBodyBytes: number;
  /** The snapshot route's own body limit (spec §8.1). */
  maxSnapshotBytes: number;
  longPollTimeoutMs: number;
  sseHeartbeatMs: number;
  sseMaxDurationMs: number;
  /** Requests in progress at once, live reads included (--max-connections). */
  maxConnections: number;
  /** Requests in progress at once from one client address (--max-requests-per-client). */
  maxRequestsPerClient: number;
}

export interface AppDeps {
  store: Store;
  hub: LiveHub;
  limits: ServerLimits;
  /** Request bodies in memory, server-wide. */
  bodies: BodyBudget;
  /** The pace request bodies must keep (--min-body-rate, --body-rate-window). */
  pacer: BodyPacer;
  /**
   * A request's connection closes once it has sent nothing for this many seconds, 0 for never
   * (Bun's per-request idle timeout): live reads outlast the idle timeout this way.
   */
  closeIdleAfter(req: Request, seconds: number): void;
  /** The client's address, for the per-client caps on requests and live readers, and the request log. */
  clientAddress(req: Request): string;
  /** Requests in progress, this one included. */
  inFlight(): number;
  /** True once shutdown has begun: readiness turns 503. */
  stopping(): boolean;
  log: Logger;
  /** Absent with --metrics false: nothing is counted then. */
  metrics?: ServerMetrics;
  info: { version: string; dataPath: string; sync: string; startedAtMs: number };
  /** `/v1/stream/{bucket}/{stream}` names a stream of that bucket (--v1-bucket-paths, spec §1.4). */
  v1BucketPaths?: boolean;
  /** DS subscriptions; absent when the engine keeps none (the reserved API answers 404). */
  subscriptions?: SubscriptionService;
  /** Hosts, CORS and authentication; without it, the defaults of a loopback server with no options. */
  security?: SecurityConfig;
}

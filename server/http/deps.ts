// What the HTTP layer is given by main.ts (or by a test): the store, the live hub and limits.

import type { LiveHub } from "../live/hub";
import type { SecurityConfig } from "./security/options";
import type { Logger } from "../ops/log";
import type { ServerMetrics } from "../ops/server-metrics";
import type { BodyBudget } from "./body-budget";
import type { Store } from "../storage/store";

export interface ServerLimits {
  maxBodyBytes: number;
  /** The snapshot route's own body limit (spec §8.1). */
  maxSnapshotBytes: number;
  longPollTimeoutMs: number;
  sseHeartbeatMs: number;
  sseMaxDurationMs: number;
  /** Requests in progress at once, live reads included (--max-connections). */
  maxConnections: number;
}

export interface AppDeps {
  store: Store;
  hub: LiveHub;
  limits: ServerLimits;
  /** Request bodies in memory, server-wide. */
  bodies: BodyBudget;
  /** Live reads outlast Bun's idle timeout; main.ts lifts it per request. */
  keepOpen(req: Request): void;
  /** The client's address, for the per-client cap on live readers and the request log. */
  clientAddress(req: Request): string;
  /** Requests in progress, this one included. */
  inFlight(): number;
  /** True once shutdown has begun: readiness turns 503. */
  stopping(): boolean;
  log: Logger;
  /** Absent with --metrics false: nothing is counted then. */
  metrics?: ServerMetrics;
  info: { version: string; dataPath: string; sync: string; startedAtMs: number };
  /** Hosts, CORS and authentication; without it, the defaults of a loopback server with no options. */
  security?: SecurityConfig;
}

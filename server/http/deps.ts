// What the HTTP layer is given by main.ts (or by a test): the store, the live hub and limits.

import type { LiveHub } from "../live/hub";
import type { BodyBudget } from "./body-budget";
import type { Store } from "../storage/store";

export interface ServerLimits {
  maxBodyBytes: number;
  /** The snapshot route's own body limit (spec §8.1). */
  maxSnapshotBytes: number;
  longPollTimeoutMs: number;
  sseHeartbeatMs: number;
  sseMaxDurationMs: number;
}

export interface AppDeps {
  store: Store;
  hub: LiveHub;
  limits: ServerLimits;
  /** Request bodies in memory, server-wide. */
  bodies: BodyBudget;
  /** Live reads outlast Bun's idle timeout; main.ts lifts it per request. */
  keepOpen(req: Request): void;
  info: { version: string; dataPath: string; sync: string; startedAtMs: number };
}

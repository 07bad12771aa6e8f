// In-process app for tests: an in-memory store, a fake clock, and a fingerprint of everything a
// write could change, so a test can prove that a refused request committed nothing.

import { createApp } from "../app";
import type { AppDeps } from "../http/deps";
import { SubscriptionService, type SubscriptionOptions } from "../http/subscriptions/service";
import { BodyPacer, type PaceLimits } from "../http/body-pace";
import { BodyBudget } from "../http/body-budget";
import { LiveHub } from "../live/hub";
import { Logger } from "../ops/log";
import { LoopLagMonitor } from "../ops/loop-lag";
import { ROUTE_FAMILIES, ServerMetrics, type RouteFamily } from "../ops/server-metrics";
import type { ProducerLimits } from "../protocol/producer";
import type { Quotas } from "../protocol/quota";
import { DEFAULT_SECURITY, type SecurityConfig } from "../http/security/options";
import type { StreamState } from "../protocol/state";
import { SqliteStore } from "../storage/sqlite/sqlite-store";

export interface Harness {
  store: SqliteStore;
  hub: LiveHub;
  metrics: ServerMetrics;
  /** The event-loop lag monitor behind the metrics, running (every 20 ms) as the server's does. */
  lag: LoopLagMonitor;
  /** Every log line written, debug level, text format. */
  logs: string[];
  clock: { now: number };
  /** `host` replaces the harness's own host in the request URL, as a Host header would. */
  request(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string | Uint8Array | ReadableStream<Uint8Array>; host?: string; signal?: AbortSignal },
  ): Promise<Response>;
  /**
   * Every retained byte, guard and lifetime field of the stream at `key` (`bucket/name`), its
   * attributes, its snapshot (bytes included) and its floor, or null.
   */
  fingerprint(key: string): Promise<string | null>;
  /** The metrics family of a request for `raw` (its path, still encoded), from the route it takes. */
  routeFamily(method: string, raw: string): RouteFamily;
  /** Resolves once the subscription service is open (options.subscriptions), or at once without one. */
  ready: Promise<void>;
  close(): Promise<void>;
}

interface HarnessOptions {
  longPollTimeoutMs?: number;
  sseMaxDurationMs?: number;
  maxBodyBytes?: number;
  maxSnapshotBytes?: number;
  maxInflightBodyBytes?: number;
  producerLimits?: ProducerLimits;
  /** A database file; in memory if not given. */
  path?: string;
  quotas?: Quotas;
  /** Hosts, CORS and authentication; the defaults otherwise, with the harness's own host allowed. */
  security?: Partial<SecurityConfig>;
  /** How long deferred index and summary rows may wait (message-log.ts); 0 writes them with every write. */
  materializeEveryMs?: number;
  maxLiveReaders?: number;
  maxLiveReadersPerClient?: number;
  /** Requests in progress as the server would count them; the harness's requests not yet answered if not given. */
  inFlight?: () => number;
  /** No cap if not given: in-process tests send many requests at once. */
  maxConnections?: number;
  /** No share per client if not given: in-process tests send many requests at once from one address. */
  maxRequestsPerClient?: number;
  /** The pace request bodies must keep; 1 KiB/s after 10 s if not given. */
  bodyPace?: PaceLimits;
  /** Bytes of a byte stream's messages to a segment file (segment-tiering.ts); the store's default if not given. */
  segmentBytes?: number;
  /** Whether the store should take other requests to be in progress; never if not given. */
  busy?: () => boolean;
  /** Run DS subscriptions with these options (the log is the harness's); none if not given. */
  subscriptions?: Omit<SubscriptionOptions, "log">;
  /** `/v1/stream/{bucket}/{stream}` names that bucket's stream (--v1-bucket-paths). */
  v1BucketPaths?: boolean;
}

/** The host every harness request names. */
export const HARNESS_HOST = "ursa.test";

export function harness(options: HarnessOptions = {}): Harness {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const lag = new LoopLagMonitor(20).start();
  const metrics = new ServerMetrics(lag, null);
  const store = new SqliteStore({
    path: options.path ?? ":memory:",
    sync: "full",
    now: () => clock.now,
    sweepIntervalMs: 3_600_000,
    producerLimits: options.producerLimits,
    quotas: options.quotas,
    materializeEveryMs: options.materializeEveryMs,
    segmentBytes: options.segmentBytes,
    busy: options.busy,
    commitObserver: metrics,
  });
  const hub = new LiveHub(store, { maxReaders: options.maxLiveReaders ?? 1000, maxPerClient: options.maxLiveReadersPerClient ?? 1000 });
  const logs: string[] = [];
  const log = new Logger("debug", "text", (line) => void logs.push(line));
  let answering = 0;
  const deps: AppDeps = {
      store,
      hub,
      bodies: new BodyBudget(options.maxInflightBodyBytes ?? 256 * 1024 * 1024),
      // A request may name its client in X-Test-Client, to test per-client limits in-process.
      clientAddress: (req) => req.headers.get("x-test-client") ?? "127.0.0.1",
      inFlight: options.inFlight ?? (() => answering),
      stopping: () => false,
      log,
      metrics,
      v1BucketPaths: options.v1BucketPaths,
      limits: {
        maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
        maxSnapshotBytes: options.maxSnapshotBytes ?? 4 * 1024 * 1024,
        longPollTimeoutMs: options.longPollTimeoutMs ?? 50,
        sseHeartbeatMs: 1000,
        sseMaxDurationMs: options.sseMaxDurationMs ?? 2000,
        maxConnections: options.maxConnections ?? Number.MAX_SAFE_INTEGER,
        maxRequestsPerClient: options.maxRequestsPerClient ?? Number.MAX_SAFE_INTEGER,
      },
      pacer: new BodyPacer(options.bodyPace ?? { minBytesPerSecond: 1024, windowMs: 10_000 }, { lift: () => undefined, restore: () => undefined }),
      closeIdleAfter: () => undefined,
      info: { version: "test", dataPath: ":memory:", sync: "full", startedAtMs: clock.now },
      security: { ...DEFAULT_SECURITY, allowedHosts: { any: false, names: new Set([HARNESS_HOST]), domains: [] }, ...options.security },
  };
  const app = createApp(deps, "/nonexistent");
  const ready = options.subscriptions
    ? SubscriptionService.open(store, { ...options.subscriptions, log }).then((service) => {
        deps.subscriptions = service;
      })
    : Promise.resolve();
  return {
    store,
    hub,
    metrics,
    lag,
    logs,
    clock,
    request: (method, path, init = {}) => {
      answering++;
      // duplex: a ReadableStream body streams in, as a chunked upload does.
      return Promise.resolve(
        app.request(`http://${init.host ?? HARNESS_HOST}${path}`, { method, headers: init.headers, body: init.body, signal: init.signal, duplex: "half" } as RequestInit),
      ).finally(() => answering--);
    },
    routeFamily: (method, raw) => ROUTE_FAMILIES[app.route(method, raw).family]!,
    ready,
    async fingerprint(key) {
      const s = await store.get(key);
      return s ? fingerprintOf(store, s) : null;
    },
    close: () => {
      lag.stop();
      deps.subscriptions?.close();
      return store.close();
    },
  };
}

async function fingerprintOf(store: SqliteStore, s: StreamState): Promise<string> {
  // From the floor: rows below it are deleted in the background, and are unreadable already.
  // Concatenated: how the log splits bytes into chunks (a packed JSON row) is not state.
  const bytes = Buffer.concat((await store.readRange(s, s.retained, Number.MAX_SAFE_INTEGER, false)).chunks).toString("base64");
  let snapshotBytes: string | null = null;
  if (s.snapshot) {
    const reader = await store.openSnapshot(s.snapshot);
    const chunks = await Promise.all(Array.from({ length: reader.chunks }, (_, i) => reader.chunk(i)));
    reader.release();
    snapshotBytes = Buffer.concat(chunks).toString("base64");
  }
  return JSON.stringify({
    ...s,
    producers: [...s.producers],
    bytes,
    attrs: await store.attrs(s),
    snapshotBytes,
  });
}

// The binary: read the options, bind the port, open the store, build the app and serve. The port
// is bound before the data directory is touched, so a port in use is reported before anything is
// written, and a start that fails later removes what it created (storage/sqlite/data-dir.ts).

import { createApp } from "./app";
import { ConfigError, helpText, parseConfig, printConfig, type Config } from "./config";
import { DataDir, explainOpenError } from "./storage/sqlite/data-dir";
import { authMode } from "./auth/authenticator";
import { BodyBudget } from "./http/body-budget";
import { BodyPacer } from "./http/body-pace";
import { startupCheck, type SecurityConfig } from "./http/security/options";
import { renderError } from "./http/error-map";
import { json } from "./http/respond";
import { LiveHub } from "./live/hub";
import { SubscriptionService } from "./http/subscriptions/service";
import { restartWithAllocatorOptions } from "./ops/allocator-restart";
import { FALLBACK_FD_LIMIT, openFileLimit } from "./ops/descriptors";
import { Logger } from "./ops/log";
import { LoopLagMonitor } from "./ops/loop-lag";
import { ServerMetrics } from "./ops/server-metrics";
import { protocolError } from "./protocol/errors";
import { withoutPassword } from "./storage/postgres/hosts";
import { PgStore } from "./storage/postgres/pg-store";
import { NewerSchemaError } from "./storage/postgres/schema";
import { SqliteStore } from "./storage/sqlite/sqlite-store";
import type { Store } from "./storage/store";
import pkg from "../package.json" with { type: "json" };

const VERSION = pkg.version;

type Server = ReturnType<typeof Bun.serve>;

function start(): void {
  const fdLimit = openFileLimit();
  let parsed;
  try {
    parsed = parseConfig({ argv: process.argv.slice(2), env: process.env, fdLimit: fdLimit ?? FALLBACK_FD_LIMIT });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`ursa: ${error.message} (ursa --help lists the options)`);
    process.exit(2);
  }
  if (parsed.kind === "help") return void console.log(helpText(VERSION));
  if (parsed.kind === "version") return void console.log(VERSION);
  if (parsed.kind === "print-config") return void console.log(printConfig(parsed.resolved, VERSION));
  // Before anything is printed or opened: the restarted process does all of this again.
  restartWithAllocatorOptions();
  const check = startupCheck(parsed.config.host, parsed.security);
  if ("refuse" in check) {
    console.error(`ursa: ${check.refuse}`);
    process.exit(2);
  }
  for (const warning of check.warnings) console.error(warning);
  void serve(parsed.config, parsed.security, fdLimit);
}

async function serve(config: Config, security: SecurityConfig, fdLimit: number | null): Promise<void> {
  const log = new Logger(config.logLevel, config.logFormat);
  // A start-up failure is the user's to fix: one line saying what to do, then exit 1.
  function fail(message: string, cleanup?: () => void): never {
    cleanup?.();
    if (config.logFormat === "json") log.error(message);
    else console.error(`ursa: ${message}`);
    process.exit(1);
  }

  // Until the store is open, everything but liveness is 503: ready is not yet true.
  let handler = (req: Request): Response | Promise<Response> =>
    new URL(req.url).pathname === "/__ursula/health" ? json({ status: "ok" }) : renderError(protocolError("STARTING", "ursa is starting; retry shortly"));
  let server: Server;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      fetch: (req) => handler(req),
      // What fails after the handler has answered: a body Bun reads from a file itself (a segment
      // file, storage/sqlite/segment-files.ts) that is gone. ursa deletes none a response may still
      // open, so one missing is damage to the data directory.
      error(error) {
        const path = (error as { path?: unknown }).path;
        if (typeof path === "string" && path.includes(".sqlite-segments")) {
          log.error("a segment file could not be opened for a response: it was removed or damaged outside ursa; restore the data directory from a backup (docs/operations.md)", { error: error.message });
          return renderError(protocolError("STORAGE_CORRUPT", "a segment file holding these bytes cannot be read"));
        }
        log.error("internal error", { error: error.message, stack: error.stack });
        return renderError(protocolError("INTERNAL", "internal error"));
      },
      // ursa enforces its own limits, from the headers and as bytes arrive, with a JSON error the
      // client can read (app.ts letBodyGo); Bun would instead reset a connection that declares
      // more than its limit, so its limit is out of the way.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      idleTimeout: Math.round(config.idleTimeout / 1000),
    });
  } catch (error) {
    const inUse = (error as { code?: string }).code === "EADDRINUSE";
    fail(`cannot listen on ${config.host}:${config.port}: ${inUse ? "the address is in use (is another ursa running?); choose another with --port, or --port 0 for any free one" : (error as Error).message}`);
  }

  const postgres = config.postgres !== "";
  if (postgres && config.memory) fail("--postgres and --memory exclude each other: choose where the streams are kept");
  let dataDir: DataDir | undefined;
  let dataPath = postgres ? withoutPassword(config.postgres) : ":memory:";
  if (!config.memory && !postgres) {
    try {
      dataDir = new DataDir(config.data);
    } catch (error) {
      fail((error as Error).message);
    }
    dataPath = dataDir.databasePath;
  }
  const lag = new LoopLagMonitor().start();
  const metrics = config.metrics ? new ServerMetrics(lag, fdLimit) : undefined;
  let hub: LiveHub | undefined;
  let store: Store;
  let lockHeld: string | undefined;
  const producerLimits = { idleTtlMs: config.producerIdleTtl, maxPerStream: config.maxProducersPerStream };
  const quotas = { maxBuckets: config.maxBuckets, maxStreamsPerBucket: config.maxStreamsPerBucket };
  if (postgres) {
    try {
      store = await PgStore.open({ url: config.postgres, producerLimits, quotas, commitObserver: metrics });
    } catch (error) {
      const why = error instanceof NewerSchemaError ? error.message : `${(error as Error).message}; check the URL, and that the database exists and takes connections`;
      fail(`cannot open the PostgreSQL database ${dataPath}: ${why}`);
    }
  } else {
  try {
      const sqlite = new SqliteStore({
        path: dataPath,
        sync: config.sync,
        checkpointerUrl: new URL("./storage/sqlite/checkpointer.ts", import.meta.url),
        snapshotReaderUrl: new URL("./storage/sqlite/snapshot-read-thread.ts", import.meta.url),
        integrityCheckUrl: new URL("./storage/sqlite/integrity-check.ts", import.meta.url),
        reserveBytes: config.diskReserveMb * 1024 * 1024,
        log: (level, message, fields) => log.log(level, message, fields),
        recentBytes: config.readCacheMb * 1024 * 1024,
        cachedStreams: config.streamCache,
        segmentBytes: config.segmentMb * 1024 * 1024,
        producerLimits,
        quotas,
        // Besides the write being committed, live readers are in progress: parked long-polls and SSE sessions.
        busy: () => server.pendingRequests > (hub?.active ?? 0) + 1,
        commitObserver: metrics,
        onCheckpointMessage: (m) => log.log(m.level, m.message, { error: m.error }),
        onSyncFailure: (error) => {
          // After a failed fsync nobody can say which committed writes are on disk; acknowledging any
          // more would be a lie, so stop (as PostgreSQL does) and let recovery replay the WAL.
          log.error("fsync of the write-ahead log failed; stopping", { error: (error as Error).message });
          process.exit(70);
        },
      });
      store = sqlite;
      lockHeld = sqlite.lockHeld;
    } catch (error) {
      fail(`cannot open the database ${dataPath}: ${explainOpenError(error)}`, () => dataDir?.removeCreated());
    }
  }
  hub = new LiveHub(store, { maxReaders: config.maxLiveReaders, maxPerClient: config.maxLiveReadersPerClient });
  let stopping = false;
  const idleSeconds = Math.round(config.idleTimeout / 1000);
  const closeIdleAfter = (req: Request, seconds: number) => server.timeout(req, seconds);
  const pacer = new BodyPacer(
    { minBytesPerSecond: config.minBodyRate, windowMs: config.bodyRateWindow },
    { lift: (req) => closeIdleAfter(req, 0), restore: (req) => closeIdleAfter(req, idleSeconds) },
  );
  const subscriptions = await SubscriptionService.open(store, { allowHosts: listOf(config.webhookAllowHosts), log });
  const app = createApp({
    store,
    hub,
    subscriptions,
    v1BucketPaths: config.v1BucketPaths,
    bodies: new BodyBudget(config.maxInflightBodyBytes),
    pacer,
    closeIdleAfter,
    limits: {
      maxBodyBytes: config.maxBodyBytes,
      maxSnapshotBytes: config.maxSnapshotBytes,
      longPollTimeoutMs: config.longPollTimeoutMs,
      sseHeartbeatMs: config.sseHeartbeat,
      sseMaxDurationMs: config.sseMaxDuration,
      maxConnections: config.maxConnections,
      maxRequestsPerClient: config.maxRequestsPerClient,
    },
    clientAddress: (req) => server.requestIP(req)?.address ?? "unknown",
    inFlight: () => server.pendingRequests,
    stopping: () => stopping,
    log,
    metrics,
    info: { version: VERSION, dataPath, sync: postgres ? "postgres" : config.memory ? "memory" : config.sync, startedAtMs: Date.now() },
    security,
  });
  handler = app.fetch;

  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${server.port}`;
  // The one line on stdout: scripts and the test fixtures read the URL from it.
  console.log(`ursa listening ${url} console ${url}/ui/ data=${dataPath}`);
  log.info("started", {
    version: VERSION,
    address: `${host}:${server.port}`,
    data: dataPath,
    sync: postgres ? "postgres" : config.memory ? "memory" : config.sync,
    auth: authMode(security.auth),
    max_connections: config.maxConnections,
    max_live_readers: config.maxLiveReaders,
    fd_limit: fdLimit ?? undefined,
    lock: lockHeld,
  });

  const startedAt = performance.now();
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("stopping: finishing in-flight writes", { signal });
    hub.shutdown();
    subscriptions?.close();
    await server.stop(false);
    await store.close();
    lag.stop();
    log.info("stopped", { signal, uptime_s: Math.round((performance.now() - startedAt) / 100) / 10 });
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

start();

/** A comma-separated option as its entries. */
function listOf(raw: string): string[] {
  return raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

// The binary: parse flags and environment, open the store, build the app and serve. Nothing else.

import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { createApp } from "./app";
import { helpText, parseConfig } from "./config";
import { BodyBudget } from "./http/body-budget";
import { LiveHub } from "./live/hub";
import { SqliteStore } from "./storage/sqlite-store";
import pkg from "../package.json" with { type: "json" };

const VERSION = pkg.version;

function start(): void {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (e) {
    console.error(`ursa: ${(e as Error).message}\n\n${helpText(VERSION)}`);
    process.exit(2);
  }
  if (parsed.kind === "help") return void console.log(helpText(VERSION));
  if (parsed.kind === "version") return void console.log(VERSION);
  const config = parsed.config;

  let dataPath = ":memory:";
  if (!config.memory) {
    startStep(`cannot create the data directory ${config.dataDir}`, () => mkdirSync(config.dataDir, { recursive: true }));
    dataPath = resolve(join(config.dataDir, "ursa.sqlite"));
  }
  let server: ReturnType<typeof Bun.serve> | undefined;
  const store = startStep(`cannot open the database ${dataPath}`, () => new SqliteStore({
    path: dataPath,
    sync: config.sync,
    checkpointerUrl: new URL("./storage/checkpointer.ts", import.meta.url),
    recentBytes: config.readCacheBytes,
    producerLimits: { idleTtlMs: config.producerIdleTtlMs, maxPerStream: config.maxProducersPerStream },
    // Besides the write being committed, live readers are in progress: parked long-polls and SSE sessions.
    busy: () => server !== undefined && server.pendingRequests > hub.active + 1,
  }));
  const hub = new LiveHub(store, config.maxLiveReaders);
  const app = createApp({
    store,
    hub,
    bodies: new BodyBudget(config.maxInflightBodyBytes),
    limits: {
      maxBodyBytes: config.maxBodyBytes,
      maxSnapshotBytes: config.maxSnapshotBytes,
      longPollTimeoutMs: config.longPollTimeoutMs,
      sseHeartbeatMs: config.sseHeartbeatMs,
      sseMaxDurationMs: config.sseMaxDurationMs,
    },
    keepOpen: (req) => server?.timeout(req, 0),
    info: { version: VERSION, dataPath, sync: config.memory ? "memory" : config.sync, startedAtMs: Date.now() },
  });

  server = startStep(`cannot listen on ${config.host}:${config.port}`, () => Bun.serve({
    hostname: config.host,
    port: config.port,
    fetch: app.fetch,
    // ursa enforces its own limits (with a JSON error); Bun's must sit above both.
    maxRequestBodySize: Math.max(config.maxBodyBytes, config.maxSnapshotBytes) + 1024 * 1024,
    idleTimeout: 30,
  }));
  console.log(`ursa listening http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port} data=${dataPath}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`ursa: ${signal}: finishing in-flight writes`);
    hub.shutdown();
    await server!.stop(false);
    await store.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/** A start-up failure is the user's to fix (a busy port, a database in use): one line, then exit 1. */
function startStep<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    console.error(`ursa: ${what}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

start();

// Command-line options, each also settable by an environment variable; flags win.

import { parseArgs } from "node:util";

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  memory: boolean;
  sync: "full" | "normal";
  longPollTimeoutMs: number;
  sseMaxDurationMs: number;
  sseHeartbeatMs: number;
  maxBodyBytes: number;
  maxSnapshotBytes: number;
  maxInflightBodyBytes: number;
  maxLiveReaders: number;
  readCacheBytes: number;
  producerIdleTtlMs: number;
  maxProducersPerStream: number;
}

interface OptionSpec {
  flag: string;
  env: string;
  value: string;
  help: string;
  default: string;
}

const OPTIONS: OptionSpec[] = [
  { flag: "host", env: "URSA_HOST", value: "ADDR", default: "127.0.0.1", help: "address to listen on" },
  { flag: "port", env: "URSA_PORT", value: "N", default: "4437", help: "port to listen on; 0 picks a free one" },
  { flag: "data", env: "URSA_DATA", value: "DIR", default: "./ursa-data", help: "directory of the SQLite database (ursa.sqlite)" },
  { flag: "memory", env: "URSA_MEMORY", value: "", default: "false", help: "keep everything in memory; nothing survives a restart" },
  { flag: "sync", env: "URSA_SYNC", value: "full|normal", default: "full", help: "full: no write is acknowledged before it is on disk; normal: survives a crash of ursa, may lose the last writes on power loss" },
  { flag: "long-poll-timeout-ms", env: "URSA_LONG_POLL_TIMEOUT_MS", value: "MS", default: "1000", help: "how long a long-poll waits before 204; timeout_ms overrides it per request" },
  { flag: "sse-max-duration", env: "URSA_SSE_MAX_DURATION", value: "DURATION", default: "60s", help: "an SSE response ends after this long (ms, or with s/m/h/d suffix); clients reconnect from the last offset" },
  { flag: "sse-heartbeat", env: "URSA_SSE_HEARTBEAT", value: "DURATION", default: "15s", help: "idle SSE connections get a comment this often" },
  { flag: "max-body-bytes", env: "URSA_MAX_BODY_BYTES", value: "N", default: String(32 * 1024 * 1024), help: "largest request body; larger ones get 413" },
  { flag: "max-snapshot-bytes", env: "URSA_MAX_SNAPSHOT_BYTES", value: "N", default: String(128 * 1024 * 1024), help: "largest snapshot body (PUT …/snapshot); it streams to storage, never held whole; larger ones get 413" },
  { flag: "max-inflight-body-bytes", env: "URSA_MAX_INFLIGHT_BODY_BYTES", value: "N", default: String(256 * 1024 * 1024), help: "request bodies held in memory at once, server-wide; writes past it get 503 with Retry-After" },
  { flag: "max-live-readers", env: "URSA_MAX_LIVE_READERS", value: "N", default: "65536", help: "long-poll and SSE readers at once; more get 503" },
  { flag: "producer-idle-ttl", env: "URSA_PRODUCER_IDLE_TTL", value: "DURATION", default: "7d", help: "a producer idle this long is forgotten and must restart at Producer-Seq 0" },
  { flag: "max-producers-per-stream", env: "URSA_MAX_PRODUCERS_PER_STREAM", value: "N", default: "4096", help: "producers a stream remembers; a new one past this takes the place of one idle for an hour, or gets 429" },
  { flag: "read-cache-mb", env: "URSA_READ_CACHE_MB", value: "N", default: "64", help: "the newest messages kept in memory for reads, in MiB; 0 keeps only what is not yet indexed" },
];

export function helpText(version: string): string {
  const lines = [`ursa ${version}: a Durable Streams server in one file`, "", "Usage: ursa [options]", "", "Options:"];
  for (const o of OPTIONS) {
    const left = `  --${o.flag}${o.value ? ` ${o.value}` : ""}`;
    lines.push(`${left.padEnd(36)}${o.help}`);
    lines.push(`${"".padEnd(36)}default ${o.default}; env ${o.env}`);
  }
  lines.push("  --help".padEnd(36) + "show this help", "  --version".padEnd(36) + "print the version");
  return lines.join("\n");
}

export class ConfigError extends Error {}

function integer(name: string, raw: string, min: number): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min) throw new ConfigError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function duration(name: string, raw: string, min = 0): number {
  const m = /^([0-9]+)(ms|s|m|h|d)?$/.exec(raw);
  const ms = m ? Number(m[1]) * DURATION_UNIT_MS[m[2] ?? "ms"]! : NaN;
  if (!(ms >= min) || !Number.isSafeInteger(ms)) {
    throw new ConfigError(`--${name} must be a duration of at least ${min} ms like 500ms, 60s, 2m, 1h or 7d, got ${JSON.stringify(raw)}`);
  }
  return ms;
}

export type ParsedArgs = { kind: "help" } | { kind: "version" } | { kind: "run"; config: Config };

export function parseConfig(argv: string[], env: Record<string, string | undefined>): ParsedArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(OPTIONS.map((o) => [o.flag, { type: o.value ? ("string" as const) : ("boolean" as const) }])),
      help: { type: "boolean" },
      version: { type: "boolean" },
    },
    strict: true,
  });
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const get = (flag: string): string => {
    const o = OPTIONS.find((x) => x.flag === flag)!;
    const v = (values as Record<string, string | boolean | undefined>)[flag];
    if (typeof v === "string") return v;
    if (v === true) return "true";
    return env[o.env] ?? o.default;
  };
  const sync = get("sync");
  if (sync !== "full" && sync !== "normal") throw new ConfigError(`--sync must be full or normal, got ${JSON.stringify(sync)}`);
  const memory = get("memory");
  const maxBodyBytes = integer("max-body-bytes", get("max-body-bytes"), 1);
  return {
    kind: "run",
    config: {
      host: get("host"),
      port: integer("port", get("port"), 0),
      dataDir: get("data"),
      memory: memory === "true" || memory === "1",
      sync,
      longPollTimeoutMs: integer("long-poll-timeout-ms", get("long-poll-timeout-ms"), 1),
      sseMaxDurationMs: duration("sse-max-duration", get("sse-max-duration")),
      sseHeartbeatMs: duration("sse-heartbeat", get("sse-heartbeat")),
      maxBodyBytes,
      maxSnapshotBytes: integer("max-snapshot-bytes", get("max-snapshot-bytes"), 0),
      // A budget below the largest body would refuse that body forever.
      maxInflightBodyBytes: integer("max-inflight-body-bytes", get("max-inflight-body-bytes"), maxBodyBytes),
      maxLiveReaders: integer("max-live-readers", get("max-live-readers"), 1),
      readCacheBytes: integer("read-cache-mb", get("read-cache-mb"), 0) * 1024 * 1024,
      producerIdleTtlMs: duration("producer-idle-ttl", get("producer-idle-ttl"), 1),
      maxProducersPerStream: integer("max-producers-per-stream", get("max-producers-per-stream"), 1),
    },
  };
}

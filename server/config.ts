// Command-line options, each also settable by an environment variable; flags win.

import { parseArgs } from "node:util";
import { parseSecurityOptions, type SecurityConfig } from "./http/security/options";

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
  maxInflightBodyBytes: number;
  maxLiveReaders: number;
  readCacheBytes: number;
  producerIdleTtlMs: number;
  maxProducersPerStream: number;
  /** Infinity: no limit. */
  maxBuckets: number;
  maxStreamsPerBucket: number;
  security: SecurityConfig;
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
  { flag: "max-inflight-body-bytes", env: "URSA_MAX_INFLIGHT_BODY_BYTES", value: "N", default: String(256 * 1024 * 1024), help: "request bodies held in memory at once, server-wide; writes past it get 503 with Retry-After" },
  { flag: "max-live-readers", env: "URSA_MAX_LIVE_READERS", value: "N", default: "65536", help: "long-poll and SSE readers at once; more get 503" },
  { flag: "producer-idle-ttl", env: "URSA_PRODUCER_IDLE_TTL", value: "DURATION", default: "7d", help: "a producer idle this long is forgotten and must restart at Producer-Seq 0" },
  { flag: "max-producers-per-stream", env: "URSA_MAX_PRODUCERS_PER_STREAM", value: "N", default: "4096", help: "producers a stream remembers; a new one past this takes the place of one idle for an hour, or gets 429" },
  { flag: "read-cache-mb", env: "URSA_READ_CACHE_MB", value: "N", default: "64", help: "the newest messages kept in memory for reads, in MiB; 0 keeps only what is not yet indexed" },
  { flag: "max-buckets", env: "URSA_MAX_BUCKETS", value: "N", default: "unlimited", help: "buckets the server holds; creating one more gets 429 QUOTA_EXCEEDED" },
  { flag: "max-streams-per-bucket", env: "URSA_MAX_STREAMS_PER_BUCKET", value: "N", default: "unlimited", help: "streams a bucket holds; creating one more gets 429 QUOTA_EXCEEDED" },
  { flag: "allowed-hosts", env: "URSA_ALLOWED_HOSTS", value: "NAMES", default: "", help: "host names answered besides IP addresses, localhost and *.localhost, comma-separated; .example.com allows its subdomains; * turns the check off" },
  { flag: "cors-origins", env: "URSA_CORS_ORIGINS", value: "ORIGINS", default: "*", help: "origins whose pages may read (* for any) and, when listed, write; comma-separated scheme://host[:port]" },
  { flag: "token", env: "URSA_TOKEN", value: "TOKEN", default: "", help: "a bearer token with every scope on every bucket (visible to ps: prefer the variable or --token-file)" },
  { flag: "token-file", env: "URSA_TOKEN_FILE", value: "FILE", default: "", help: "bearer tokens, one a line: TOKEN SCOPES [BUCKETS] (docs/security.md)" },
  { flag: "jwks", env: "URSA_JWKS", value: "FILE|URL", default: "", help: "accept JWT access tokens signed by a key of this JWKS (needs --jwt-issuer, --jwt-audience)" },
  { flag: "jwt-issuer", env: "URSA_JWT_ISSUER", value: "ISS", default: "", help: "the iss a JWT must carry" },
  { flag: "jwt-audience", env: "URSA_JWT_AUDIENCE", value: "AUD", default: "", help: "the aud a JWT must carry" },
  { flag: "jwks-refresh", env: "URSA_JWKS_REFRESH", value: "DURATION", default: "10m", help: "how long keys fetched from a JWKS URL are used before they are fetched again" },
  { flag: "public-read", env: "URSA_PUBLIC_READ", value: "", default: "false", help: "let requests without a token read every bucket" },
  { flag: "require-auth", env: "URSA_REQUIRE_AUTH", value: "", default: "false", help: "refuse to start without --token, --token-file or --jwks" },
];

export function helpText(version: string): string {
  const lines = [`ursa ${version}: a Durable Streams server in one file`, "", "Usage: ursa [options]", "", "Options:"];
  for (const o of OPTIONS) {
    const left = `  --${o.flag}${o.value ? ` ${o.value}` : ""}`;
    lines.push(`${left.padEnd(36)}${o.help}`);
    lines.push(`${"".padEnd(36)}default ${o.default === "" ? "none" : o.default}; env ${o.env}`);
  }
  lines.push("  --help".padEnd(36) + "show this help", "  --version".padEnd(36) + "print the version");
  return lines.join("\n");
}

export class ConfigError extends Error {}

function integer(name: string, raw: string, min: number): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min) throw new ConfigError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

const limit = (name: string, raw: string): number => (raw === "unlimited" ? Infinity : integer(name, raw, 1));

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
  const host = get("host");
  const security = parseSecurityOptions(get, host, duration("jwks-refresh", get("jwks-refresh"), 1000));
  if (typeof security === "string") throw new ConfigError(security);
  return {
    kind: "run",
    config: {
      host,
      port: integer("port", get("port"), 0),
      dataDir: get("data"),
      memory: memory === "true" || memory === "1",
      sync,
      longPollTimeoutMs: integer("long-poll-timeout-ms", get("long-poll-timeout-ms"), 1),
      sseMaxDurationMs: duration("sse-max-duration", get("sse-max-duration")),
      sseHeartbeatMs: duration("sse-heartbeat", get("sse-heartbeat")),
      maxBodyBytes,
      // A budget below the largest body would refuse that body forever.
      maxInflightBodyBytes: integer("max-inflight-body-bytes", get("max-inflight-body-bytes"), maxBodyBytes),
      maxLiveReaders: integer("max-live-readers", get("max-live-readers"), 1),
      readCacheBytes: integer("read-cache-mb", get("read-cache-mb"), 0) * 1024 * 1024,
      producerIdleTtlMs: duration("producer-idle-ttl", get("producer-idle-ttl"), 1),
      maxProducersPerStream: integer("max-producers-per-stream", get("max-producers-per-stream"), 1),
      maxBuckets: limit("max-buckets", get("max-buckets")),
      maxStreamsPerBucket: limit("max-streams-per-bucket", get("max-streams-per-bucket")),
      security,
    },
  };
}

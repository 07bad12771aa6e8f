// Every option: a flag, an environment variable and a config-file key (the flag's name), in that
// order of precedence over the default. Adding an option is one entry in OPTIONS: the Config
// type, --help, --print-config, the environment and the config file all follow from the table.
// An entry without `parse` is text (a flag without a value is a boolean); `secret` masks the
// value in --print-config.

import { autoInteger, bool, choice, duration, integer, integerAtLeast, ValueError, type ParseContext, type Parser } from "./cli/values";
import { renderConfig, renderHelp } from "./cli/help";
import { ConfigError, resolveOptions, type OptionSpec, type Resolved, type ResolveInput } from "./cli/resolve";
import { parseSecurityOptions, type SecurityConfig } from "./http/security/options";

/**
 * File descriptors kept back from the connection cap for ursa's own files (the database, its WAL
 * and lock, the checkpointer's connection, stdio) and for connections that are idle between
 * requests, so that accepting a connection to refuse it never finds none left.
 */
export function reservedDescriptors(fdLimit: number): number {
  return Math.max(64, Math.ceil(fdLimit / 10));
}

export const OPTIONS = [
  { flag: "host", env: "URSA_HOST", value: "ADDR", default: "127.0.0.1", help: "address to listen on" },
  { flag: "port", env: "URSA_PORT", value: "N", default: "4437", help: "port to listen on; 0 picks a free one", parse: integer(0, 65535) },
  { flag: "data", env: "URSA_DATA", value: "DIR", default: "./ursa-data", help: "directory of the SQLite database (ursa.sqlite)" },
  { flag: "postgres", env: "URSA_POSTGRES", value: "URL", default: "", help: "keep every stream in this PostgreSQL database (postgres://user@host:port/db) instead of SQLite under --data; several ursa processes may share it", secret: true },
  { flag: "memory", env: "URSA_MEMORY", value: "", default: "false", help: "keep everything in memory; nothing survives a restart", parse: bool },
  { flag: "sync", env: "URSA_SYNC", value: "full|normal", default: "full", help: "full: no write is acknowledged before it is on disk; normal: survives a crash of ursa, may lose the last writes on power loss", parse: choice("full", "normal") },
  { flag: "long-poll-timeout-ms", env: "URSA_LONG_POLL_TIMEOUT_MS", value: "MS", default: "1000", help: "how long a long-poll waits before 204; timeout_ms overrides it per request", parse: integer(1) },
  { flag: "sse-max-duration", env: "URSA_SSE_MAX_DURATION", value: "DURATION", default: "60s", help: "an SSE response ends after this long (ms, or with s/m/h/d suffix); clients reconnect from the last offset", parse: duration() },
  { flag: "sse-heartbeat", env: "URSA_SSE_HEARTBEAT", value: "DURATION", default: "15s", help: "idle SSE connections get a comment this often", parse: duration() },
  { flag: "max-body-bytes", env: "URSA_MAX_BODY_BYTES", value: "N", default: String(32 * 1024 * 1024), help: "largest request body; larger ones get 413", parse: integer(1) },
  { flag: "max-snapshot-bytes", env: "URSA_MAX_SNAPSHOT_BYTES", value: "N", default: String(128 * 1024 * 1024), help: "largest snapshot body (PUT .../snapshot/{offset}); larger ones get 413", parse: integer(0) },
  // A budget below the largest body would refuse that body forever.
  { flag: "max-inflight-body-bytes", env: "URSA_MAX_INFLIGHT_BODY_BYTES", value: "N", default: String(256 * 1024 * 1024), help: "request body bytes received and held in memory at once, server-wide; writes past it get 503 with Retry-After", parse: integerAtLeast("max-body-bytes", "maxBodyBytes") },
  { flag: "idle-timeout", env: "URSA_IDLE_TIMEOUT", value: "DURATION", default: "30s", help: "a connection idle this long between requests is closed (a request body is paced by --min-body-rate instead; live reads excepted); 1s to 255s", parse: duration(1000, 255_000) },
  { flag: "min-body-rate", env: "URSA_MIN_BODY_RATE", value: "BYTES", default: "1024", help: "a request body that brings fewer bytes per second than this over a --body-rate-window is cut with 408", parse: integer(1) },
  { flag: "body-rate-window", env: "URSA_BODY_RATE_WINDOW", value: "DURATION", default: "10s", help: "the window over which --min-body-rate is measured; a body of up to 64 KiB must be whole within it plus its length at that rate", parse: duration(1000, 3_600_000) },
  { flag: "max-connections", env: "URSA_MAX_CONNECTIONS", value: "N|auto", default: "auto", help: "requests in progress at once, live reads included; more get 503 with Retry-After. auto: the open-file limit less a tenth (at least 64) kept for ursa's own files", parse: autoInteger(({ fdLimit }) => Math.max(16, fdLimit - reservedDescriptors(fdLimit))) },
  { flag: "max-requests-per-client", env: "URSA_MAX_REQUESTS_PER_CLIENT", value: "N|auto", default: "auto", help: "requests one client address may have in progress at once, live reads included while they wait; more get 429. auto: half of --max-connections", parse: autoInteger(({ config }) => Math.max(1, Math.ceil((config.maxConnections as number) / 2))) },
  { flag: "max-live-readers", env: "URSA_MAX_LIVE_READERS", value: "N|auto", default: "auto", help: "long-poll and SSE readers at once; more get 503. auto: 65536, or nine tenths of --max-connections if that is less", parse: autoInteger(({ config }) => liveReaderShare(config.maxConnections as number)) },
  { flag: "max-live-readers-per-client", env: "URSA_MAX_LIVE_READERS_PER_CLIENT", value: "N|auto", default: "auto", help: "live readers one client address may hold; more get 503. auto: half of --max-live-readers", parse: autoInteger(({ config }) => Math.max(1, Math.ceil((config.maxLiveReaders as number) / 2))) },
  { flag: "producer-idle-ttl", env: "URSA_PRODUCER_IDLE_TTL", value: "DURATION", default: "7d", help: "a producer idle this long is forgotten and must restart at Producer-Seq 0", parse: duration(1) },
  { flag: "max-producers-per-stream", env: "URSA_MAX_PRODUCERS_PER_STREAM", value: "N", default: "4096", help: "producers a stream remembers; a new one past this takes the place of one idle for an hour, or gets 429", parse: integer(1) },
  { flag: "read-cache-mb", env: "URSA_READ_CACHE_MB", value: "N", default: "64", help: "the newest messages kept in memory for reads, in MiB; 0 keeps only what is not yet indexed", parse: integer(0) },
  { flag: "segment-mb", env: "URSA_SEGMENT_MB", value: "N", default: "8", help: "a byte stream's messages move to a file of N MiB beside the database once that many are indexed, and catch-ups inside it are sent from the file (sendfile); 0 keeps every message in the database", parse: integer(0) },
  { flag: "stream-cache", env: "URSA_STREAM_CACHE", value: "N", default: "100000", help: "stream states (metadata and producers) kept in memory, about 0.5 KiB each; the others are read from the database when touched", parse: integer(1) },
  { flag: "disk-reserve-mb", env: "URSA_DISK_RESERVE_MB", value: "N", default: "64", help: "disk space held in ursa.sqlite-reserve, in MiB, and given up when the disk fills so that deletes, retention and restarts still work; 0 holds none", parse: integer(0) },
  { flag: "metrics", env: "URSA_METRICS", value: "true|false", default: "true", help: "serve Prometheus metrics at /__ursula/metrics", parse: bool },
  { flag: "log-format", env: "URSA_LOG_FORMAT", value: "text|json", default: "text", help: "log lines on stderr as text or as one JSON object each", parse: choice("text", "json") },
  { flag: "log-level", env: "URSA_LOG_LEVEL", value: "error|warn|info|debug", default: "info", help: "debug logs every request; info logs start, stop and trouble; warn only trouble", parse: choice("error", "warn", "info", "debug") },
  { flag: "max-buckets", env: "URSA_MAX_BUCKETS", value: "N", default: "unlimited", help: "buckets the server holds; creating one more gets 429 QUOTA_EXCEEDED", parse: limit },
  { flag: "max-streams-per-bucket", env: "URSA_MAX_STREAMS_PER_BUCKET", value: "N", default: "unlimited", help: "streams a bucket holds; creating one more gets 429 QUOTA_EXCEEDED", parse: limit },
  { flag: "allowed-hosts", env: "URSA_ALLOWED_HOSTS", value: "NAMES", default: "", help: "host names answered besides IP addresses, localhost and *.localhost, comma-separated; .example.com allows its subdomains; * turns the check off" },
  { flag: "cors-origins", env: "URSA_CORS_ORIGINS", value: "ORIGINS", default: "*", help: "origins whose pages may read (* for any) and, when listed, write; comma-separated scheme://host[:port]" },
  { flag: "webhook-allow-hosts", env: "URSA_WEBHOOK_ALLOW_HOSTS", value: "HOSTS", default: "", help: "host names and addresses subscription webhooks may call although they are loopback, private or link-local, comma-separated" },
  { flag: "v1-bucket-paths", env: "URSA_V1_BUCKET_PATHS", value: "", default: "false", help: "/v1/stream/{bucket}/{stream} names a stream of that bucket, as DS subscription clients expect; without it a / in a v1 stream ID is 400", parse: bool },
  { flag: "token", env: "URSA_TOKEN", value: "TOKEN", default: "", help: "a bearer token with every scope on every bucket (visible to ps: prefer the variable or --token-file)", secret: true },
  { flag: "token-file", env: "URSA_TOKEN_FILE", value: "FILE", default: "", help: "bearer tokens, one a line: TOKEN SCOPES [BUCKETS] (docs/security.md)" },
  { flag: "jwks", env: "URSA_JWKS", value: "FILE|URL", default: "", help: "accept JWT access tokens signed by a key of this JWKS (needs --jwt-issuer, --jwt-audience)" },
  { flag: "jwt-issuer", env: "URSA_JWT_ISSUER", value: "ISS", default: "", help: "the iss a JWT must carry" },
  { flag: "jwt-audience", env: "URSA_JWT_AUDIENCE", value: "AUD", default: "", help: "the aud a JWT must carry" },
  { flag: "jwks-refresh", env: "URSA_JWKS_REFRESH", value: "DURATION", default: "10m", help: "how long keys fetched from a JWKS URL are used before they are fetched again", parse: duration(1000) },
  { flag: "public-read", env: "URSA_PUBLIC_READ", value: "", default: "false", help: "let requests without a token read every bucket", parse: bool },
  { flag: "require-auth", env: "URSA_REQUIRE_AUTH", value: "", default: "false", help: "refuse to start without --token, --token-file or --jwks", parse: bool },
] as const satisfies readonly OptionSpec[];

/** A cap, or `unlimited` (Infinity). */
function limit(raw: string, ctx: ParseContext): number {
  if (raw === "unlimited") return Infinity;
  try {
    return integer(1)(raw, ctx);
  } catch {
    throw new ValueError("must be an integer >= 1, or unlimited");
  }
}

/** The live-reader default: room for ordinary requests beside them, and the spec's 65,536 at most (§8.1). */
function liveReaderShare(maxConnections: number): number {
  return Math.max(1, Math.min(65_536, maxConnections - Math.max(16, Math.ceil(maxConnections / 10))));
}

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type ValueOf<O> = O extends { parse: Parser<infer T> } ? T : O extends { value: "" } ? boolean : string;

/** One field per option, named after its flag in camelCase (`--max-body-bytes` is maxBodyBytes). */
export type Config = { -readonly [O in (typeof OPTIONS)[number] as Camel<O["flag"]>]: ValueOf<O> };

export type ParsedArgs =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "print-config"; resolved: Resolved }
  | { kind: "run"; config: Config; resolved: Resolved; security: SecurityConfig };

export { ConfigError };

export function parseConfig(input: ResolveInput): ParsedArgs {
  const parsed = resolveOptions(OPTIONS, input) as Exclude<ParsedArgs, { kind: "run" }> | Omit<Extract<ParsedArgs, { kind: "run" }>, "security">;
  if (parsed.kind !== "run") return parsed;
  // The security options are read together: a token file, a JWKS and its issuer and audience make
  // sense only in combination (auth/options.ts).
  const raw = (flag: string) => parsed.resolved.options.find((o) => o.spec.flag === flag)!.raw;
  const security = parseSecurityOptions(raw, parsed.config.host, parsed.config.jwksRefresh);
  if (typeof security === "string") throw new ConfigError(security);
  return { ...parsed, security };
}

export const helpText = (version: string): string => renderHelp(OPTIONS, version);

export const printConfig = (resolved: Resolved, version: string): string => renderConfig(resolved, version);

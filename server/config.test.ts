import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MASK, renderConfig, shownDefault } from "./cli/help";
import { resolveOptions, type ResolveInput } from "./cli/resolve";
import { ConfigError, helpText, OPTIONS, parseConfig, printConfig, reservedDescriptors, type Config } from "./config";
import type { OptionSpec } from "./cli/resolve";

const FD_LIMIT = 20_000;

function parse(argv: string[], env: Record<string, string> = {}, files: Record<string, string> = {}, fdLimit = FD_LIMIT) {
  return parseConfig({ argv, env, fdLimit, readFile: (path) => {
    if (!(path in files)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    return files[path]!;
  } });
}

const run = (...args: Parameters<typeof parse>): Config => {
  const parsed = parse(...args);
  if (parsed.kind !== "run") throw new Error(parsed.kind);
  return parsed.config;
};

/** The one-line message a bad invocation gets. */
function refusal(...args: Parameters<typeof parse>): string {
  try {
    parse(...args);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain("\n");
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("command line, environment and config file", () => {
  test("defaults", () => {
    const reserve = reservedDescriptors(FD_LIMIT);
    expect(run([])).toEqual({
      host: "127.0.0.1",
      port: 4437,
      data: "./ursa-data",
      postgres: "",
      memory: false,
      sync: "full",
      longPollTimeoutMs: 1000,
      sseMaxDuration: 60_000,
      sseHeartbeat: 15_000,
      maxBodyBytes: 32 * 1024 * 1024,
      maxSnapshotBytes: 128 * 1024 * 1024,
      maxInflightBodyBytes: 256 * 1024 * 1024,
      idleTimeout: 30_000,
      minBodyRate: 1024,
      bodyRateWindow: 10_000,
      maxConnections: FD_LIMIT - reserve,
      maxRequestsPerClient: Math.ceil((FD_LIMIT - reserve) / 2),
      maxLiveReaders: FD_LIMIT - reserve - Math.ceil((FD_LIMIT - reserve) / 10),
      maxLiveReadersPerClient: Math.ceil((FD_LIMIT - reserve - Math.ceil((FD_LIMIT - reserve) / 10)) / 2),
      producerIdleTtl: 7 * 86_400_000,
      maxProducersPerStream: 4096,
      readCacheMb: 64,
      segmentMb: 8,
      streamCache: 100000,
      diskReserveMb: 64,
      metrics: true,
      logFormat: "text",
      logLevel: "info",
      maxBuckets: Infinity,
      maxStreamsPerBucket: Infinity,
      allowedHosts: "",
      corsOrigins: "*",
      webhookAllowHosts: "",
      v1BucketPaths: false,
      token: "",
      tokenFile: "",
      jwks: "",
      jwtIssuer: "",
      jwtAudience: "",
      jwksRefresh: 600_000,
      publicRead: false,
      requireAuth: false,
    });
  });

  test("auto caps follow the open-file limit, leaving room for ursa's own files; the spec's 65,536 live readers at most", () => {
    expect(run([], {}, {}, 1024)).toMatchObject({ maxConnections: 921, maxRequestsPerClient: 461, maxLiveReaders: 828, maxLiveReadersPerClient: 414 });
    expect(run([], {}, {}, 256)).toMatchObject({ maxConnections: 192, maxLiveReaders: 172, maxLiveReadersPerClient: 86 });
    expect(run([], {}, {}, 1_048_576).maxLiveReaders).toBe(65_536);
    // Each auto follows the explicit value before it.
    expect(run(["--max-connections", "100"], {}, {}, 1024)).toMatchObject({ maxConnections: 100, maxRequestsPerClient: 50, maxLiveReaders: 84, maxLiveReadersPerClient: 42 });
    expect(run(["--max-live-readers", "10"], {}, {}, 1024)).toMatchObject({ maxConnections: 921, maxLiveReaders: 10, maxLiveReadersPerClient: 5 });
  });

  test("every option can come from the environment", () => {
    const env = {
      URSA_HOST: "0.0.0.0",
      URSA_PORT: "9000",
      URSA_DATA: "/d",
      URSA_POSTGRES: "postgres://u@db:5432/ursa",
      URSA_MEMORY: "1",
      URSA_SYNC: "normal",
      URSA_LONG_POLL_TIMEOUT_MS: "250",
      URSA_SSE_MAX_DURATION: "2m",
      URSA_SSE_HEARTBEAT: "500ms",
      URSA_MAX_BODY_BYTES: "1024",
      URSA_MAX_SNAPSHOT_BYTES: "2048",
      URSA_MAX_INFLIGHT_BODY_BYTES: "4096",
      URSA_IDLE_TIMEOUT: "5s",
      URSA_MIN_BODY_RATE: "500",
      URSA_BODY_RATE_WINDOW: "20s",
      URSA_MAX_CONNECTIONS: "50",
      URSA_MAX_REQUESTS_PER_CLIENT: "9",
      URSA_MAX_LIVE_READERS: "7",
      URSA_MAX_LIVE_READERS_PER_CLIENT: "3",
      URSA_PRODUCER_IDLE_TTL: "36h",
      URSA_MAX_PRODUCERS_PER_STREAM: "10",
      URSA_READ_CACHE_MB: "3",
      URSA_SEGMENT_MB: "0",
      URSA_STREAM_CACHE: "500",
      URSA_DISK_RESERVE_MB: "0",
      URSA_METRICS: "false",
      URSA_LOG_FORMAT: "json",
      URSA_LOG_LEVEL: "debug",
      URSA_MAX_BUCKETS: "5",
      URSA_MAX_STREAMS_PER_BUCKET: "6",
      URSA_ALLOWED_HOSTS: "ursa.lan,.example.test",
      URSA_CORS_ORIGINS: "http://localhost:5173",
      URSA_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
      URSA_V1_BUCKET_PATHS: "true",
      URSA_TOKEN: "0123456789abcdef0123",
      URSA_TOKEN_FILE: "",
      URSA_JWKS: "",
      URSA_JWT_ISSUER: "",
      URSA_JWT_AUDIENCE: "",
      URSA_JWKS_REFRESH: "1m",
      URSA_PUBLIC_READ: "1",
      URSA_REQUIRE_AUTH: "true",
    };
    expect(Object.keys(env)).toEqual(OPTIONS.map((o) => o.env));
    expect(run([], env)).toEqual({
      host: "0.0.0.0",
      port: 9000,
      data: "/d",
      postgres: "postgres://u@db:5432/ursa",
      memory: true,
      sync: "normal",
      longPollTimeoutMs: 250,
      sseMaxDuration: 120_000,
      sseHeartbeat: 500,
      maxBodyBytes: 1024,
      maxSnapshotBytes: 2048,
      maxInflightBodyBytes: 4096,
      idleTimeout: 5000,
      minBodyRate: 500,
      bodyRateWindow: 20_000,
      maxConnections: 50,
      maxRequestsPerClient: 9,
      maxLiveReaders: 7,
      maxLiveReadersPerClient: 3,
      producerIdleTtl: 36 * 3_600_000,
      maxProducersPerStream: 10,
      readCacheMb: 3,
      segmentMb: 0,
      streamCache: 500,
      diskReserveMb: 0,
      metrics: false,
      logFormat: "json",
      logLevel: "debug",
      maxBuckets: 5,
      maxStreamsPerBucket: 6,
      allowedHosts: "ursa.lan,.example.test",
      corsOrigins: "http://localhost:5173",
      webhookAllowHosts: "127.0.0.1,localhost",
      v1BucketPaths: true,
      token: "0123456789abcdef0123",
      tokenFile: "",
      jwks: "",
      jwtIssuer: "",
      jwtAudience: "",
      jwksRefresh: 60_000,
      publicRead: true,
      requireAuth: true,
    });
    const parsed = parse([], env);
    if (parsed.kind !== "run") throw new Error(parsed.kind);
    expect(parsed.security).toEqual({
      allowedHosts: { any: false, names: new Set(["ursa.lan"]), domains: [".example.test"] },
      cors: { any: false, origins: new Set(["http://localhost:5173"]) },
      auth: { tokens: [{ token: "0123456789abcdef0123", scopes: 7, buckets: null }], jwt: null, publicRead: true, requireAuth: true },
    });
    // An empty variable counts as unset.
    expect(run([], { URSA_PORT: "" }).port).toBe(4437);
  });

  test("a flag beats the environment, which beats the config file, which beats the default", () => {
    const files = { "u.toml": 'port = 1111\nsync = "normal"\nhost = "10.0.0.1"\nmemory = true\n' };
    const both = { URSA_CONFIG: "u.toml", URSA_PORT: "2222", URSA_SYNC: "full" };
    expect(run([], both, files)).toMatchObject({ port: 2222, sync: "full", host: "10.0.0.1", memory: true, data: "./ursa-data" });
    expect(run(["--port", "3333"], both, files)).toMatchObject({ port: 3333, sync: "full", host: "10.0.0.1" });
    expect(run(["--config", "u.toml"], {}, files)).toMatchObject({ port: 1111, sync: "normal" });
    // --config beats URSA_CONFIG.
    expect(run(["--config", "v.json"], { URSA_CONFIG: "u.toml" }, { ...files, "v.json": '{"port": 4444}' }).port).toBe(4444);
  });

  test("config files: TOML or JSON, keys as flags with - or _, numbers and booleans as written", () => {
    const files = {
      "a.toml": 'max_body_bytes = 2048\nmax-inflight-body-bytes = "4096"\nsse-max-duration = "2m"\nmetrics = false\n',
      "a.json": JSON.stringify({ "max-body-bytes": 2048, log_level: "debug", memory: true }),
    };
    expect(run(["--config", "a.toml"], {}, files)).toMatchObject({ maxBodyBytes: 2048, maxInflightBodyBytes: 4096, sseMaxDuration: 120_000, metrics: false });
    expect(run(["--config", "a.json"], {}, files)).toMatchObject({ maxBodyBytes: 2048, logLevel: "debug", memory: true });
  });

  test("a bad value is one line naming the flag, variable or file key it came from", () => {
    expect(refusal(["--port", "http"])).toBe('--port must be an integer from 0 to 65535, got "http"');
    expect(refusal([], { URSA_PORT: "70000" })).toBe('URSA_PORT must be an integer from 0 to 65535, got "70000"');
    expect(refusal(["--config", "c.toml"], {}, { "c.toml": 'port = "x"' })).toBe('port in c.toml must be an integer from 0 to 65535, got "x"');
    expect(refusal([], { URSA_CONFIG: "c.json" }, { "c.json": '{"sync": "sometimes"}' })).toBe('sync in c.json must be full or normal, got "sometimes"');
    expect(refusal(["--sse-max-duration", "1w"])).toMatch(/^--sse-max-duration must be a duration/);
    expect(refusal(["--producer-idle-ttl", "0"])).toMatch(/^--producer-idle-ttl must be a duration of at least 1 ms/);
    expect(refusal(["--producer-idle-ttl", "99999999999d"])).toMatch(/^--producer-idle-ttl/);
    expect(refusal(["--idle-timeout", "300s"])).toMatch(/^--idle-timeout must be a duration from 1000 ms to 255000 ms/);
    expect(refusal(["--max-producers-per-stream", "0"])).toMatch(/^--max-producers-per-stream/);
    expect(refusal(["--read-cache-mb", "-1"])).toMatch(/^--read-cache-mb/);
    expect(refusal(["--max-snapshot-bytes", "128MiB"])).toMatch(/^--max-snapshot-bytes must be an integer/);
    expect(refusal(["--max-connections", "lots"])).toBe('--max-connections must be an integer >= 1, got "lots"');
    expect(refusal([], { URSA_MEMORY: "yes" })).toBe('URSA_MEMORY must be true or false, got "yes"');
    expect(refusal(["--log-level", "trace"])).toBe('--log-level must be error, warn, info or debug, got "trace"');
    // A budget for bodies in memory smaller than one allowed body would refuse that body forever.
    expect(refusal(["--max-body-bytes", "2048", "--max-inflight-body-bytes", "2047"])).toBe('--max-inflight-body-bytes must be an integer >= 2048 (--max-body-bytes), got "2047"');
    expect(run(["--max-body-bytes", "2048", "--max-inflight-body-bytes", "2048"]).maxInflightBodyBytes).toBe(2048);
  });

  test("mistakes in the invocation itself are one line too", () => {
    expect(refusal(["--prot", "1"])).toBe("unknown option --prot");
    expect(refusal(["--port"])).toBe("--port needs a value");
    expect(refusal(["--memory=yes"])).toBe("--memory takes no value");
    expect(refusal(["serve"])).toBe('unexpected argument "serve"; options start with --');
    expect(refusal(["--config", "missing.toml"])).toBe("cannot read the config file missing.toml: no such file");
    expect(refusal(["--config", "c.yaml"], {}, { "c.yaml": "" })).toBe("the config file c.yaml must end in .toml or .json");
    expect(refusal(["--config", "c.toml"], {}, { "c.toml": "port = " })).toMatch(/^the config file c\.toml is not valid TOML: /);
    expect(refusal(["--config", "c.toml"], {}, { "c.toml": "prot = 1" })).toBe('unknown option "prot" in c.toml');
    expect(refusal(["--config", "c.toml"], {}, { "c.toml": "[server]\nport = 1" })).toBe('"server" in c.toml is a table; options are top-level keys named like the flags (port = 4437)');
    expect(refusal(["--config", "c.json"], {}, { "c.json": '{"port": null}' })).toBe("port in c.json must be a string, a number, a boolean or a list, got null");
  });

  test("-h, --help, -v, --version", () => {
    expect(parse(["-h"]).kind).toBe("help");
    expect(parse(["--help", "--port", "x"]).kind).toBe("help");
    expect(parse(["-v"]).kind).toBe("version");
    expect(parse(["--version"]).kind).toBe("version");
  });

  test("--help lists every option with its value, default and environment variable", () => {
    const text = helpText("test");
    for (const o of OPTIONS) {
      expect(text).toContain(`--${o.flag}${o.value ? ` ${o.value}` : ""}`);
      expect(text).toContain(`default ${shownDefault(o)}; env ${o.env}`);
    }
    for (const extra of ["--config FILE", "env URSA_CONFIG", "--print-config", "-h, --help", "-v, --version"]) expect(text).toContain(extra);
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  });

  test("the README's options table has every option with its variable and default, as --help prints them", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
    for (const o of OPTIONS) {
      const flag = `--${o.flag}${o.value ? ` ${o.value}` : ""}`.replace(/\|/g, "\\|");
      expect(readme).toContain(`| \`${flag}\` | \`${o.env}\` | \`${shownDefault(o)}\` | ${o.help.replace(/\|/g, "\\|")} |`);
    }
  });

  test("--print-config is a config file of the values in effect, each with where it came from", () => {
    const parsed = parse(["--print-config", "--port", "0", "--config", "u.toml"], { URSA_SYNC: "normal" }, { "u.toml": 'data = "/srv/ursa"' }, 1024);
    if (parsed.kind !== "print-config") throw new Error(parsed.kind);
    const text = printConfig(parsed.resolved, "test");
    const lines = text.split("\n");
    expect(lines[0]).toBe("# ursa test: the configuration in effect, with u.toml");
    expect(lines).toContainEqual(expect.stringMatching(/^port = 0 +# --port$/));
    expect(lines).toContainEqual(expect.stringMatching(/^sync = "normal" +# URSA_SYNC$/));
    expect(lines).toContainEqual(expect.stringMatching(/^data = "\/srv\/ursa" +# data in u\.toml$/));
    expect(lines).toContainEqual(expect.stringMatching(/^memory = false +# default$/));
    expect(lines).toContainEqual(expect.stringMatching(/^max-connections = "auto" +# default; auto is 921 here$/));
    // Read back as a config file, it gives the same configuration.
    const again = run(["--config", "p.toml"], {}, { "p.toml": lines.slice(1).join("\n") }, 1024);
    expect(again).toEqual(run(["--port", "0", "--config", "u.toml"], { URSA_SYNC: "normal" }, { "u.toml": 'data = "/srv/ursa"' }, 1024));
  });

  test("--print-config masks a secret option's value, wherever it came from", () => {
    const options: OptionSpec[] = [
      { flag: "port", env: "URSA_PORT", value: "N", default: "4437", help: "port" },
      { flag: "token", env: "URSA_TOKEN", value: "TOKEN", default: "", help: "a bearer token", secret: true },
    ];
    const input = (env: Record<string, string>, file?: string): ResolveInput => ({ argv: ["--print-config", ...(file ? ["--config", "s.toml"] : [])], env, fdLimit: FD_LIMIT, readFile: () => file ?? "" });
    for (const [env, file, source] of [[{ URSA_TOKEN: "hunter2" }, undefined, "URSA_TOKEN"], [{}, 'token = "hunter2"', "token in s.toml"]] as const) {
      const parsed = resolveOptions(options, input(env, file));
      if (parsed.kind !== "print-config") throw new Error(parsed.kind);
      const text = renderConfig(parsed.resolved, "test");
      expect(text).not.toContain("hunter2");
      expect(text).toContain(`token = "${MASK}"`);
      expect(text).toContain(`# ${source}`);
    }
    // Unset, it shows as unset.
    const unset = resolveOptions(options, input({}));
    if (unset.kind !== "print-config") throw new Error(unset.kind);
    expect(renderConfig(unset.resolved, "test")).toMatch(/token = "" +# default/);
  });
});

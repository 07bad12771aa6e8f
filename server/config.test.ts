import { describe, expect, test } from "bun:test";
import { ConfigError, helpText, parseConfig } from "./config";

const run = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseConfig(argv, env);
  if (parsed.kind !== "run") throw new Error(parsed.kind);
  return parsed.config;
};

describe("command line and environment", () => {
  test("defaults", () => {
    expect(run([])).toMatchObject({ host: "127.0.0.1", port: 4437, dataDir: "./ursa-data", memory: false, sync: "full", longPollTimeoutMs: 1000, sseMaxDurationMs: 60_000, maxBodyBytes: 32 * 1024 * 1024, maxSnapshotBytes: 128 * 1024 * 1024, maxInflightBodyBytes: 256 * 1024 * 1024, producerIdleTtlMs: 7 * 86_400_000, maxProducersPerStream: 4096 });
  });
  test("every option can come from the environment, and a flag beats it", () => {
    const env = {
      URSA_HOST: "0.0.0.0",
      URSA_PORT: "9000",
      URSA_DATA: "/d",
      URSA_MEMORY: "1",
      URSA_SYNC: "normal",
      URSA_LONG_POLL_TIMEOUT_MS: "250",
      URSA_SSE_MAX_DURATION: "2m",
      URSA_SSE_HEARTBEAT: "500ms",
      URSA_MAX_BODY_BYTES: "1024",
      URSA_MAX_SNAPSHOT_BYTES: "2048",
      URSA_MAX_INFLIGHT_BODY_BYTES: "4096",
      URSA_MAX_LIVE_READERS: "7",
      URSA_READ_CACHE_MB: "3",
      URSA_PRODUCER_IDLE_TTL: "36h",
      URSA_MAX_PRODUCERS_PER_STREAM: "10",
    };
    expect(run([], env)).toEqual({
      host: "0.0.0.0",
      port: 9000,
      dataDir: "/d",
      memory: true,
      sync: "normal",
      longPollTimeoutMs: 250,
      sseMaxDurationMs: 120_000,
      sseHeartbeatMs: 500,
      maxBodyBytes: 1024,
      maxSnapshotBytes: 2048,
      maxInflightBodyBytes: 4096,
      maxLiveReaders: 7,
      readCacheBytes: 3 * 1024 * 1024,
      producerIdleTtlMs: 36 * 3_600_000,
      maxProducersPerStream: 10,
    });
    expect(run(["--port", "1234", "--sync", "full"], env)).toMatchObject({ port: 1234, sync: "full" });
  });
  test("bad values are refused with the option's name", () => {
    expect(() => run(["--port", "http"])).toThrow(ConfigError);
    expect(() => run(["--sync", "sometimes"])).toThrow(/--sync/);
    expect(() => run(["--sse-max-duration", "1w"])).toThrow(/--sse-max-duration/);
    expect(() => run(["--producer-idle-ttl", "0"])).toThrow(/--producer-idle-ttl must be a duration of at least 1 ms/);
    expect(() => run(["--producer-idle-ttl", "99999999999d"])).toThrow(/--producer-idle-ttl/);
    expect(() => run(["--max-producers-per-stream", "0"])).toThrow(/--max-producers-per-stream/);
    expect(() => run(["--read-cache-mb", "-1"])).toThrow(/--read-cache-mb/);
    expect(() => run(["--max-snapshot-bytes", "128MiB"])).toThrow(/--max-snapshot-bytes/);
    expect(() => run(["--nope"])).toThrow();
    // A budget for bodies in memory smaller than one allowed body would refuse that body forever.
    expect(() => run(["--max-body-bytes", "2048", "--max-inflight-body-bytes", "2047"])).toThrow(/--max-inflight-body-bytes must be an integer >= 2048/);
    expect(run(["--max-body-bytes", "2048", "--max-inflight-body-bytes", "2048"]).maxInflightBodyBytes).toBe(2048);
  });
  test("--help lists every option with its environment variable", () => {
    expect(parseConfig(["--help"], {}).kind).toBe("help");
    const text = helpText("test");
    for (const flag of ["--host", "--port", "--data", "--memory", "--sync", "--long-poll-timeout-ms", "--sse-max-duration", "--max-body-bytes", "--max-snapshot-bytes", "--max-inflight-body-bytes", "--producer-idle-ttl", "--max-producers-per-stream"]) {
      expect(text).toContain(flag);
    }
    expect(text).toContain("URSA_LONG_POLL_TIMEOUT_MS");
  });
});

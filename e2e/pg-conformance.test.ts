// The official conformance suite against the PostgreSQL engine, twice on one cluster: one
// instance, then two instances on one database behind HAProxy's round-robin (docs/haproxy.cfg),
// so consecutive requests of every test reach different instances: a create on one and a read
// on the other, a long-poll parked on one woken by an append on the other. Subscriptions are on
// (--v1-bucket-paths, webhooks to the suite's receivers on 127.0.0.1 allowed): on the pair a
// subscription made through one instance is acked, claimed and released through the other.

const SUBSCRIPTIONS = { args: ["--v1-bucket-paths", "--webhook-allow-hosts", "127.0.0.1"] };
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runConformanceTests } from "@durable-streams/server-conformance-tests";
import { CLUSTER_HOOK_TIMEOUT_MS, startCluster, startPair, startPgUrsa, type Pair, type PgCluster } from "./pg-instances.ts";
import { LONG_POLL_TIMEOUT_MS, type UrsaProcess } from "./server-process.ts";

let cluster: PgCluster | undefined;

beforeAll(async () => {
  cluster = await startCluster();
}, CLUSTER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await cluster?.stop();
}, CLUSTER_HOOK_TIMEOUT_MS);

describe("ursa binary on PostgreSQL, one instance", () => {
  const config = { baseUrl: "", longPollTimeoutMs: LONG_POLL_TIMEOUT_MS, subscriptions: true };
  let ursa: UrsaProcess | undefined;

  beforeAll(async () => {
    ursa = await startPgUrsa(await cluster!.createDatabase("single"), SUBSCRIPTIONS);
    config.baseUrl = ursa.url;
  });

  afterAll(async () => {
    await ursa?.stop();
    ursa?.cleanup();
  });

  runConformanceTests(config);

  test("the instance survived the suite and exits 0 on SIGTERM", async () => {
    expect(ursa!.child.exitCode, ursa!.log()).toBeNull();
    expect(await ursa!.stop(), ursa!.log()).toBe(0);
  });
});

describe("two ursa instances on one PostgreSQL database behind HAProxy (round-robin)", () => {
  const config = { baseUrl: "", longPollTimeoutMs: LONG_POLL_TIMEOUT_MS, subscriptions: true };
  let pair: Pair | undefined;

  beforeAll(async () => {
    pair = await startPair(await cluster!.createDatabase("pair"), SUBSCRIPTIONS);
    config.baseUrl = pair.lb.url;
  });

  afterAll(async () => {
    await pair?.stop();
  });

  runConformanceTests(config);

  test("both instances served the suite, survived it and exit 0 on SIGTERM", async () => {
    const { a, b } = pair!;
    // Round-robin gave each instance requests: its metrics count them.
    for (const instance of [a, b]) {
      const metrics = await (await fetch(`${instance.url}/__ursula/metrics`)).text();
      expect(requestsServed(metrics), pair!.logs()).toBeGreaterThan(500);
    }
    expect([a.child.exitCode, b.child.exitCode], pair!.logs()).toEqual([null, null]);
    expect([await a.stop(), await b.stop()], pair!.logs()).toEqual([0, 0]);
  });
});

/** The sum of ursa's request counter over its labels. */
function requestsServed(metrics: string): number {
  let sum = 0;
  for (const m of metrics.matchAll(/^ursa_http_requests_total(?:\{[^}]*\})? (\d+(?:\.\d+)?)$/gm)) sum += Number(m[1]);
  return sum;
}

// Three ursa instances on one PostgreSQL database behind HAProxy (docs/haproxy.cfg with one
// `server` line per instance), every client request sent through the balancer. Round-robin: the
// races of Ursula v0.9.0, Conditional Writes (prefix-count, outbox takeover, incarnation) hold
// when consecutive requests of one client reach different instances. The documented file as it
// is: each stream's writes reach one instance, and SSE events are not held.
import { afterAll, beforeAll, expect, test } from "vitest";
import { startBalancer, type Balancer } from "./balancer.ts";
import { bodyText } from "./body-text.ts";
import { createJson, describeRace, inspect, outboxTakeover, post, prefixCountRace, racingRecreate } from "./cw-races.ts";
import { CLUSTER_HOOK_TIMEOUT_MS, startCluster, startPgUrsa, type PgCluster } from "./pg-instances.ts";
import type { UrsaProcess } from "./server-process.ts";

let cluster: PgCluster | undefined;
const instances: UrsaProcess[] = [];
let lb: Balancer | undefined;
let documented: Balancer | undefined;
let streams = 0;

beforeAll(async () => {
  cluster = await startCluster();
  for (let i = 0; i < 3; i++) instances.push(await startPgUrsa(cluster.url));
  lb = await startBalancer(instances.map((u) => u.url), "round-robin");
  documented = await startBalancer(instances.map((u) => u.url), "documented");
}, CLUSTER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await lb?.stop();
  await documented?.stop();
  for (const u of instances) {
    await u.stop();
    u.cleanup();
  }
  await cluster?.stop();
}, CLUSTER_HOOK_TIMEOUT_MS);

const fresh = (name: string, through = lb!) => `${through.url}/three-instances/${name}-${++streams}-${Date.now().toString(36)}`;

/** Messages each instance has acknowledged (its metrics), in instance order. */
async function appendedPerInstance(): Promise<number[]> {
  return Promise.all(
    instances.map(async (u) => {
      const text = await (await fetch(`${u.url}/__ursula/metrics`)).text();
      return Number(/^ursa_appended_messages_total (\d+)/m.exec(text)?.[1] ?? "NaN");
    }),
  );
}

test("[CW] prefix-count: 8 writers through the balancer; each accepted commit's Stream-Seq is the number of events before it, and every instance took commits", { timeout: 120_000 }, async () => {
  const url = fresh("prefix-count");
  await createJson(url);
  const before = await appendedPerInstance();
  const race = await prefixCountRace([url]);
  console.log(`[pg three instances] prefix-count contention: ${describeRace(race)}`);
  const after = await appendedPerInstance();
  for (let i = 0; i < 3; i++) expect(after[i]! - before[i]!, `instance ${i}: ${lb!.log()}`).toBeGreaterThan(0);
  expect((await inspect(instances[0]!.url + new URL(url).pathname)).last_stream_seq).toBe((await inspect(instances[2]!.url + new URL(url).pathname)).last_stream_seq);
});

test("[CW] outbox takeover through the balancer: the old owner is fenced, every fact once, in order", { timeout: 60_000 }, async () => {
  const url = fresh("outbox");
  await createJson(url);
  await outboxTakeover(url, url);
});

test("[CW] incarnation through the balancer: appenders with the old token never land in the recreated stream; they answer 412 with the new token", { timeout: 60_000 }, async () => {
  await racingRecreate([fresh("incarnation")]);
});

test("an SSE reader through the balancer gets each event as it is written: HAProxy does not hold a streamed answer's chunks (docs/haproxy.cfg, option http-no-delay)", { timeout: 30_000 }, async () => {
  const url = fresh("sse-through", documented!);
  await createJson(url);
  const abort = new AbortController();
  const res = await fetch(`${url}?offset=-1&live=sse`, { signal: abort.signal });
  expect(res.status).toBe(200);
  const body = bodyText(res);
  let ended = false;
  body.ended.catch(() => undefined).finally(() => (ended = true));
  const arrival = async (marker: string): Promise<number> => {
    while (!body.text.includes(marker)) {
      if (ended) throw new Error(`the SSE answer ended before ${marker}:\n${body.text}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    return performance.now();
  };
  // Events far apart, so a held chunk is not pushed out by the next one: without the option the
  // kernel keeps each for about 200 ms, waiting for more (MSG_MORE); with it, a few ms.
  const delays: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const sent = performance.now();
    expect((await post(url, { mark: `event-${i}-end` })).status).toBe(204);
    delays.push((await arrival(`event-${i}-end`)) - sent);
  }
  abort.abort();
  delays.sort((a, b) => a - b);
  expect(delays[2]!, `delivery delays, ms: ${delays.map((d) => d.toFixed(1)).join(", ")}`).toBeLessThan(100);
});

test("the documented balancing sends all of a stream's writes to one instance, and different streams' to different instances", { timeout: 60_000 }, async () => {
  const owners = new Set<number>();
  for (let s = 0; s < 12; s++) {
    const url = fresh("affinity", documented!);
    await createJson(url);
    const before = await appendedPerInstance();
    for (let i = 0; i < 6; i++) expect((await post(url, { i })).status).toBe(204);
    const after = await appendedPerInstance();
    const gained = after.map((n, i) => n - before[i]!);
    expect(gained.filter((n) => n !== 0), `appends per instance: ${gained.join(", ")}`).toEqual([6]);
    owners.add(gained.indexOf(6));
  }
  expect(owners.size).toBeGreaterThan(1);
});

// A failover loses nothing. A primary and a streaming-replication standby (pg_basebackup), with
// synchronous replication (synchronous_standby_names names the standby, synchronous_commit on):
// a commit returns only once the standby has flushed it. ursa is given both hosts in one URL.
// Writers append with Producer-Id/Epoch/Seq and retry until acknowledged; mid-stream the primary
// is killed (immediate shutdown, as a crash) and the standby promoted. Meanwhile writes answer
// 503 DATABASE_UNAVAILABLE with Retry-After; ursa finds the new primary by itself within 10 s;
// and every acknowledged append is on the new primary, exactly once.
import { afterAll, expect, test } from "vitest";
import { startPgCluster, startStandby, STANDBY_NAME, type PgCluster } from "../server/testing/pg-cluster.ts";
import { createJson, readAll, sleep } from "./cw-races.ts";
import { startPgUrsa } from "./pg-instances.ts";
import type { UrsaProcess } from "./server-process.ts";

const started: { stop(): Promise<unknown> }[] = [];

afterAll(async () => {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
}, 60_000);

/** Polls `check` every 100 ms until it holds, for up to `ms`. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
  }
}

test("the primary is killed under writes and the standby promoted: ursa follows it within 10 s, writes answer 503 with Retry-After meanwhile, and every acknowledged append is on the new primary exactly once", { timeout: 150_000 }, async () => {
  const primary: PgCluster = await startPgCluster();
  started.push(primary);
  const standby = await startStandby(primary);
  started.push(standby);
  // Synchronous from here on: set after the standby exists, or the primary's commits would wait for it.
  await primary.psql("ursa", `ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
  await primary.psql("ursa", "SELECT pg_reload_conf()");
  await until("the standby replicates synchronously", 60_000, async () => (await primary.psql("ursa", "SELECT sync_state FROM pg_stat_replication")) === "sync");
  await primary.createDatabase("failover");
  const url = `postgres://ursa@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/failover`;
  const u: UrsaProcess = await startPgUrsa(url);
  started.push({ stop: async () => (await u.stop(), u.cleanup()) });

  const path = "/failover/log";
  await createJson(u.url + path);
  const WRITERS = 4;
  const COUNT = 60;
  const statuses: Record<number, number> = {};
  let acked = 0;
  const ackTimes: number[] = [];
  const writing = Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < COUNT; i++) {
        for (let attempt = 0; ; attempt++) {
          let status = 0;
          try {
            const res = await fetch(u.url + path, {
              method: "POST",
              headers: { "Content-Type": "application/json", "Producer-Id": `w${w}`, "Producer-Epoch": "0", "Producer-Seq": String(i) },
              body: JSON.stringify([{ w, i }]),
            });
            await res.arrayBuffer();
            status = res.status;
          } catch {
            status = 0;
          }
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status === 200 || status === 204) break;
          expect([0, 503], `writer ${w} append ${i}: ${u.log()}`).toContain(status);
          if (attempt > 3_000) throw new Error(`writer ${w} append ${i} never acknowledged: ${JSON.stringify(statuses)}`);
          await sleep(20);
        }
        acked++;
        ackTimes.push(Date.now());
      }
    }),
  );

  while (acked < (WRITERS * COUNT) / 3) await sleep(5);
  await primary.crash();
  const ackedAtCrash = acked;
  // The standby is not promoted yet: nowhere to write. ursa says so.
  await until("a write answers 503", 10_000, async () => {
    const res = await fetch(u.url + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ refused: true }]) });
    const body = await res.text();
    if (res.status !== 503) return false;
    expect(res.headers.get("Retry-After")).toBe("1");
    expect((JSON.parse(body) as { error: { code: string } }).error.code).toBe("DATABASE_UNAVAILABLE");
    return true;
  });
  const ready = await fetch(`${u.url}/__ursula/ready`);
  await ready.arrayBuffer();
  expect(ready.status).toBe(503);
  await sleep(500);
  expect(acked, "nothing is acknowledged while there is no primary").toBe(ackedAtCrash);

  await standby.promote();
  const promotedAt = Date.now();
  await until("an append is acknowledged on the new primary", 10_000, async () => acked > ackedAtCrash);
  const followedIn = ackTimes.find((t) => t >= promotedAt)! - promotedAt;
  expect(followedIn).toBeLessThanOrEqual(10_000);
  await writing;

  expect(statuses[503], "no write met the failover").toBeGreaterThan(0);
  const log = (await readAll(u.url + path)) as { w: number; i: number }[];
  for (let w = 0; w < WRITERS; w++) expect(log.filter((e) => e.w === w).map((e) => e.i), `writer ${w}`).toEqual(Array.from({ length: COUNT }, (_, i) => i));
  expect(log).toHaveLength(WRITERS * COUNT);
  // Read on the new primary itself, not through ursa: every acknowledged append is there.
  expect(await standby.psql("failover", "SELECT count(*) FROM msgs")).toBe(String(WRITERS * COUNT));
  expect(await standby.psql("failover", "SELECT pg_is_in_recovery()")).toBe("f");
  await until("readiness is back", 10_000, async () => {
    const res = await fetch(`${u.url}/__ursula/ready`);
    await res.arrayBuffer();
    return res.status === 200;
  });
  console.log(`[pg failover] ${acked} appends acknowledged; ursa wrote again ${followedIn} ms after the promotion; statuses ${JSON.stringify(statuses)}`);
});

// No acknowledged write is lost, or applied twice, when an instance is killed (kill -9) under
// writes, or when the database restarts under writes. Writers append with Producer-Id/Epoch/Seq
// and retry an unanswered append with the same Producer-Seq (on the other instance, or on the
// same one once it answers again), so every append ends up acknowledged and the log must hold
// each exactly once, in each writer's order. While the database is down, writes, reads and
// readiness answer 503 DATABASE_UNAVAILABLE with Retry-After; the instance recovers by itself.
import { afterAll, beforeAll, expect, test } from "vitest";
import { CLUSTER_HOOK_TIMEOUT_MS, startCluster, startPgUrsa, type PgCluster } from "./pg-instances.ts";
import { createJson, readAll, sleep } from "./cw-races.ts";
import type { UrsaProcess } from "./server-process.ts";

let cluster: PgCluster | undefined;
const started: UrsaProcess[] = [];

beforeAll(async () => {
  cluster = await startCluster();
}, CLUSTER_HOOK_TIMEOUT_MS);

afterAll(async () => {
  for (const u of started) {
    await u.stop();
    u.cleanup();
  }
  await cluster?.stop();
}, CLUSTER_HOOK_TIMEOUT_MS);

async function start(database: string): Promise<UrsaProcess> {
  const u = await startPgUrsa(database);
  started.push(u);
  return u;
}

interface Outcome {
  acked: number;
  /** Appends that got no answer (a killed instance) or a 503 before they were acknowledged. */
  unanswered: number;
  statuses: Record<number, number>;
}

/**
 * Writer w appends {w, i} for i < count to `path`, on servers()[w % n], retrying each append
 * with the same Producer-Seq until it is acknowledged (200, or 204 for a duplicate).
 */
async function writer(w: number, count: number, path: string, servers: () => string[], out: Outcome): Promise<void> {
  for (let i = 0; i < count; i++) {
    for (let attempt = 0; ; attempt++) {
      const list = servers();
      const base = list[(w + attempt) % list.length]!;
      let status: number;
      try {
        const res = await fetch(base + path, {
          method: "POST",
          headers: { "Content-Type": "application/json", "Producer-Id": `w${w}`, "Producer-Epoch": "0", "Producer-Seq": String(i) },
          body: JSON.stringify([{ w, i }]),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 0;
      }
      out.statuses[status] = (out.statuses[status] ?? 0) + 1;
      if (status === 200 || status === 204) break;
      // Only "no answer" or a 503 may be retried; anything else is a bug this test reports.
      expect([0, 503], `writer ${w} append ${i}`).toContain(status);
      out.unanswered++;
      if (attempt > 2_000) throw new Error(`writer ${w} append ${i} never acknowledged: ${JSON.stringify(out.statuses)}`);
      await sleep(20);
    }
    out.acked++;
  }
}

/** Asks `url` until it answers 503 (readiness may take one probe to notice), for up to 10 s. */
async function until503(url: string): Promise<{ res: Response; body: string }> {
  for (const deadline = Date.now() + 10_000; ; await sleep(50)) {
    const res = await fetch(url);
    const body = await res.text();
    if (res.status === 503 || Date.now() > deadline) {
      expect(res.status).toBe(503);
      return { res, body };
    }
  }
}

const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

/** The log holds {w, i} for every writer and every i < count, once each, in each writer's order. */
function expectExactlyOnce(log: unknown[], writers: number, count: number): void {
  const byWriter = Array.from({ length: writers }, () => [] as number[]);
  for (const e of log as { w: number; i: number }[]) byWriter[e.w]!.push(e.i);
  for (let w = 0; w < writers; w++) expect(byWriter[w], `writer ${w}`).toEqual(Array.from({ length: count }, (_, i) => i));
  expect(log).toHaveLength(writers * count);
}

test("kill -9 of one of two instances under writes, then its restart: every acknowledged append is in the log exactly once", { timeout: 120_000 }, async () => {
  const database = await cluster!.createDatabase("kill9");
  const a = await start(database);
  const b = await start(database);
  const path = "/crash-tests/kill9";
  await createJson(a.url + path);
  let servers = [a.url, b.url];
  const out: Outcome = { acked: 0, unanswered: 0, statuses: {} };
  const WRITERS = 8;
  const COUNT = 60;
  const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w, COUNT, path, () => servers, out)));

  while (out.acked < (WRITERS * COUNT) / 4) await sleep(5);
  // Mid-stream: a has requests in flight, some committed and not yet answered.
  await a.kill();
  servers = [b.url];
  while (out.acked < (WRITERS * COUNT) / 2) await sleep(5);
  const again = await start(database);
  servers = [again.url, b.url];
  await writing;

  expect(out.unanswered, "the kill cut no append off: it hit an idle instance").toBeGreaterThan(0);
  expectExactlyOnce(await readAll(again.url + path), WRITERS, COUNT);
  expect(await readAll(b.url + path)).toEqual(await readAll(again.url + path));
  console.log(`[pg crash] kill -9: ${out.acked} appends acknowledged, ${out.unanswered} retried; statuses ${JSON.stringify(out.statuses)}`);
});

test("the database restarts under writes: writes, reads and readiness answer 503 with Retry-After meanwhile, the instance recovers by itself, and every acknowledged append is there exactly once", { timeout: 120_000 }, async () => {
  const database = await cluster!.createDatabase("restart");
  const u = await start(database);
  const path = "/crash-tests/db-restart";
  await createJson(u.url + path);
  const out: Outcome = { acked: 0, unanswered: 0, statuses: {} };
  const WRITERS = 4;
  const COUNT = 60;
  const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w, COUNT, path, () => [u.url], out)));

  while (out.acked < (WRITERS * COUNT) / 3) await sleep(5);
  await cluster!.halt();
  // While the database is down the instance says so: readiness 503 with Retry-After.
  const ready = await until503(`${u.url}/__ursula/ready`);
  expect(ready.res.headers.get("Retry-After"), u.log()).toMatch(/^\d+$/);
  expect((JSON.parse(ready.body) as { reason: string }).reason).toContain("database");
  const refused = await fetch(u.url + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ refused: true }]) });
  expect(refused.status).toBe(503);
  expect(refused.headers.get("Retry-After")).toBe("1");
  expect(await errorCode(refused)).toBe("DATABASE_UNAVAILABLE");
  const read = await fetch(`${u.url}${path}?offset=-1`);
  expect(read.status).toBe(503);
  expect(await errorCode(read)).toBe("DATABASE_UNAVAILABLE");
  // And acknowledges nothing.
  const ackedWhileDown = out.acked;
  await sleep(1_000);
  expect(out.acked).toBe(ackedWhileDown);
  await cluster!.resume();
  await writing;

  expect(out.statuses[503], "no write met the outage").toBeGreaterThan(0);
  expect(out.acked).toBe(WRITERS * COUNT);
  expectExactlyOnce(await readAll(u.url + path), WRITERS, COUNT);
  const readyAgain = await fetch(`${u.url}/__ursula/ready`);
  expect(readyAgain.status, u.log()).toBe(200);
  await readyAgain.arrayBuffer();
  console.log(`[pg crash] database restart: ${out.acked} appends acknowledged, ${out.unanswered} retried; statuses ${JSON.stringify(out.statuses)}`);
});

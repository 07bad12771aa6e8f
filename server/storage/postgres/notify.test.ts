// Wake-ups across instances, against a real cluster: a commit's streams go out in as few
// payloads as PostgreSQL's 8,000-byte limit allows, and another instance gets every stream back
// exactly, whatever its name holds; an instance ignores its own.

import { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { clusterPerFile } from "../../testing/pg-cluster";
import { Notifier } from "./notify";

const cluster = clusterPerFile({ beforeAll, afterAll });
const clients: SQL[] = [];
afterAll(async () => {
  for (const sql of clients) await sql.close().catch(() => undefined);
}, 30_000);

/** The longest key a stream can have (122 bytes), with quotes, a newline and multi-byte letters. */
const keyOf = (i: number) => `bucket-${String(i).padStart(4, "0")}/` + `é"\n\\`.repeat(16) + "x".repeat(30);

test("300 streams of one commit reach another instance in few payloads, each under the limit, every id and key whole; the sender hears none", async () => {
  const url = await cluster().createDatabase("notify_1");
  const heard: [string, number, string][] = [];
  const notifiers = ["a", "b"].map((name) => {
    const sql = new SQL(url, { max: 2 });
    clients.push(sql);
    return new Notifier(sql, (id, key) => heard.push([name, id, key]), () => undefined, () => undefined);
  });
  for (const n of notifiers) await n.start();
  const [a] = notifiers as [Notifier, Notifier];
  const streams = Array.from({ length: 300 }, (_, i) => ({ id: 1_000_000 + i, key: keyOf(i) }));
  expect(Buffer.byteLength(keyOf(0))).toBe(122);

  const { payloads } = a.wakeUps([...streams, ...streams.slice(0, 10)]);
  // Filled before the next is begun: every payload but the last has no room for another stream.
  expect(payloads.length).toBeGreaterThan(1);
  for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
  for (const p of payloads.slice(0, -1)) expect(Buffer.byteLength(p)).toBeGreaterThan(7900 - 200);

  await clients[0]!.begin((tx) => a.send(tx, streams.map(({ id, key }) => ({ kind: "gone", id, key }))));
  for (let waited = 0; heard.length < streams.length && waited < 5000; waited += 20) await Bun.sleep(20);
  await Bun.sleep(100);
  expect(heard).toEqual(streams.map(({ id, key }) => ["b", id, key]));
  for (const n of notifiers) await n.stop();
}, 60_000);

test("an instance has caught up with its own commit only after every notification committed before it, another instance's change of the subscriptions among them", async () => {
  const url = await cluster().createDatabase("notify_2");
  const changed = { a: 0, b: 0 };
  const sqls = [new SQL(url, { max: 2 }), new SQL(url, { max: 2 })] as const;
  clients.push(...sqls);
  const [a, b] = (["a", "b"] as const).map((name, i) => new Notifier(sqls[i]!, () => undefined, () => undefined, () => void changed[name]++)) as [Notifier, Notifier];
  expect(await a.caughtUp()).toBe(false);
  await a.start();
  await b.start();
  expect(await a.caughtUp()).toBe(true);
  for (let round = 1; round <= 20; round++) {
    await sqls[1]`SELECT pg_notify('ursa_streams', ${b.subscriptionsPayload()})`;
    const mark = await sqls[0].begin((tx) => a.send(tx, [{ kind: "gone", id: round, key: `b/s${round}` }]));
    a.committed(mark);
    expect(await a.caughtUp()).toBe(true);
    expect(changed.a).toBe(round);
  }
  for (const n of [a, b]) await n.stop();
}, 60_000);

// What grows with the number of streams, measured in process (issue 21, "A million streams"):
// the scale workload's HTTP figures on a shared machine move with its load far more than with the
// size, so this looks at the store itself, without a socket, on a database kept between runs.
//
//   bun bench/scale-inprocess.ts --db /tmp/x/ursa.sqlite --streams 1000000
//
// It creates the bucket `scale`'s streams up to --streams (the scale workload's names), printing
// creates/s per tenth (64 at a time, sync normal: the store's own cost, not the disk's); then the
// WAL bytes one create writes, alone and in commits of 16 (sync full, the checkpointer held off);
// then a listing page of 1,000 at random positions, store and JSON, median and p90 of 200. A
// database filled once (a million streams in about 30 s here) serves every later run.
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { streamSummaryJson } from "../server/http/listing-json";
import { createRequest } from "../server/protocol/testing-state";
import { SqliteStore } from "../server/storage/sqlite/sqlite-store";
import type { SyncMode } from "../server/storage/sqlite/sqlite-store-options";

const { values } = parseArgs({ options: { db: { type: "string" }, streams: { type: "string", default: "100000" } } });
if (!values.db) throw new Error("usage: bun bench/scale-inprocess.ts --db PATH [--streams N]");
const path = values.db;
const target = Number(values.streams);
const name = (i: number) => `s${String(i).padStart(8, "0")}`;
const create = (store: SqliteStore, stream: string, bucket = "scale") =>
  store.create(`${bucket}/${stream}`, createRequest({ bucket, name: stream, contentType: "application/octet-stream" }));
const inScale = async (store: SqliteStore) => (await store.getBucket("scale"))!.streams;
const open = (sync: SyncMode) => new SqliteStore({ path, sync, checkpointEveryMs: 3_600_000 });

let store = open("normal");
await store.putBucket("scale");
let next = await inScale(store);
const step = Math.max(1, Math.ceil((target - next) / 10));
while (next < target) {
  const end = Math.min(target, next + step);
  const from = next;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < end) await create(store, name(next++));
    }),
  );
  console.log(`streams ${end}: ${Math.round(((end - from) / (performance.now() - t0)) * 1000)} creates/s`);
}
await store.close();

store = open("full");
const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
let probe = 0;
for (const group of [1, 16]) {
  const before = walBytes();
  const creates = 400;
  for (let i = 0; i < creates; i += group) await Promise.all(Array.from({ length: group }, () => create(store, `p${Date.now()}-${probe++}`, "probes")));
  // The checkpointer is held off, so the WAL only grows meanwhile.
  console.log(`commits of ${group}: ${Math.round((walBytes() - before) / creates)} WAL bytes per create`);
}

const streams = await inScale(store);
const samples: { store: number; json: number }[] = [];
for (let r = 0; r < 220; r++) {
  const t0 = performance.now();
  const page = await store.listStreams("scale", { prefix: "", after: name(Math.floor(Math.random() * Math.max(1, target - 1001))), limit: 1000 });
  const t1 = performance.now();
  JSON.stringify({ streams: page.items.map(streamSummaryJson) });
  // The first 20 warm the JIT up.
  if (r >= 20) samples.push({ store: t1 - t0, json: performance.now() - t1 });
  if (page.items.length !== Math.min(1000, target)) throw new Error(`a page of ${page.items.length}`);
}
const at = (k: "store" | "json", q: number) => samples.map((s) => s[k]).sort((a, b) => a - b)[Math.floor(samples.length * q)]!.toFixed(2);
console.log(`listing page of 1,000 among ${streams} streams: store ${at("store", 0.5)} ms (p90 ${at("store", 0.9)}), JSON ${at("json", 0.5)} ms (p90 ${at("json", 0.9)})`);
await store.close();

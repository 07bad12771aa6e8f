// The HTTP ceiling: a trivial Bun.serve handler, run with the same client as the real servers,
// so every figure can also be read as a fraction of what this machine's HTTP path allows.
// Run with Bun: bun bench/lib/ceiling-server.mjs
//
// It does the least a workload needs and nothing a server must (no validation, no durability,
// no producer or Stream-Seq checks):
//   PUT            204
//   POST           count the bytes (nothing is kept), wake long-pollers, send one SSE frame to
//                  every subscriber of the path (the frame is built once), 204
//   GET            catch-up: (size - offset) bytes, at most 8 MiB to a response as ursa answers
//                  (its read limit), offsets being decimal byte counts (-1 = 0); the bytes are
//                  zeros (a full response's from one buffer, sent as it is), since the workload checks only the count
//   GET long-poll  answer at once if there are bytes past `offset`, else park until the next POST
//   GET sse        an initial control event, then one data+control pair per POST
// So it is a ceiling for append, catchup, longpoll and sse, not for cas or churn.
//
// With `--sync-dir DIR` a POST also appends its body to DIR/records, and answers once an
// fdatasync that began after the append is done: the least a durable append over HTTP costs here,
// so the few-writer figures can be set against the disk and the round trip together, not only the
// disk. The syncs are shared as ursa shares them (server/storage/sqlite/group-commit.ts), without SQLite
// or any rule: the bodies received in one turn of the loop are appended together; one alone, with
// no sync running, is synced on the loop; any other waits for a sync on Bun's pool, two at most
// in flight.
import { fdatasync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

const streams = new Map(); // path -> { size, waiters: Set<fn>, subs: Set<ctrl> }
const RESPONSE_MAX_BYTES = 8 * 1024 * 1024;
const enc = new TextEncoder();
const syncDirAt = process.argv.indexOf("--sync-dir");
const syncDir = syncDirAt > 0 ? process.argv[syncDirAt + 1] : null;
const records = syncDir ? openSync(join(syncDir, "records"), "a") : null;
let received = []; // { body, done } appended at the next flush
let flushScheduled = false;
let unsynced = []; // appended, waiting for a sync to begin
let syncsInFlight = 0;

function durably(body) {
  return new Promise((done) => {
    received.push({ body, done });
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  });
}

function flush() {
  flushScheduled = false;
  const batch = received;
  received = [];
  for (const r of batch) writeSync(records, r.body);
  if (batch.length === 1 && syncsInFlight === 0 && unsynced.length === 0) {
    fdatasyncSync(records);
    batch[0].done();
    return;
  }
  unsynced.push(...batch);
  startSync();
}

function startSync() {
  if (syncsInFlight >= 2 || unsynced.length === 0) return;
  const covered = unsynced;
  unsynced = [];
  syncsInFlight++;
  fdatasync(records, (error) => {
    if (error) throw error;
    syncsInFlight--;
    for (const r of covered) r.done();
    startSync();
  });
}

function stream(path) {
  let s = streams.get(path);
  if (!s) streams.set(path, (s = { size: 0, waiters: new Set(), subs: new Set() }));
  return s;
}

// A full response's body is built once and sent as it is by every full response: built per
// response, it cost the ceiling 8 MiB of fresh memory and its page faults each time, and those made
// its best catch-up swing from 1.4 to 4.9 GB/s between runs of one day. Sent as it is, it measures
// the HTTP path alone. A stream's shorter tail is built when asked for.
const FULL_BODY = new Uint8Array(RESPONSE_MAX_BYTES);
const zeros = (n) => (n === RESPONSE_MAX_BYTES ? FULL_BODY : new Uint8Array(n));

const tailHeaders = (s) => ({ "Stream-Next-Offset": String(s.size), "Stream-Up-To-Date": "true" });

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req, srv) {
    const url = new URL(req.url);
    const s = stream(url.pathname);
    if (req.method === "PUT") return new Response(null, { status: 204 });
    if (req.method === "POST") {
      const body = new Uint8Array(await req.arrayBuffer());
      s.size += body.length;
      if (records !== null) await durably(body);
      for (const wake of s.waiters) wake(body);
      s.waiters.clear();
      if (s.subs.size) {
        const text = new TextDecoder().decode(body);
        const arr = text.startsWith("[") ? text : `[${text}]`;
        const frame = enc.encode(`event: data\ndata: ${arr}\n\nevent: control\ndata:{"streamNextOffset":"${s.size}","upToDate":true}\n\n`);
        for (const ctrl of s.subs) {
          ctrl.write(frame);
          ctrl.flush();
        }
      }
      return new Response(null, { status: 204, headers: { "Stream-Next-Offset": String(s.size) } });
    }
    if (req.method === "DELETE") {
      streams.delete(url.pathname);
      return new Response(null, { status: 204 });
    }
    const live = url.searchParams.get("live");
    const raw = url.searchParams.get("offset") ?? "-1";
    const offset = raw === "-1" ? 0 : raw === "now" ? s.size : Number(raw);
    if (live === "sse") {
      srv.timeout(req, 0);
      return new Response(
        new ReadableStream({
          type: "direct",
          async pull(ctrl) {
            ctrl.write(`event: control\ndata:{"streamNextOffset":"${s.size}","upToDate":true}\n\n`);
            ctrl.flush();
            s.subs.add(ctrl);
            await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
            s.subs.delete(ctrl);
          },
        }),
        { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } },
      );
    }
    if (live === "long-poll" && offset >= s.size) {
      srv.timeout(req, 0);
      const body = await new Promise((resolve) => {
        s.waiters.add(resolve);
        req.signal.addEventListener("abort", () => s.waiters.delete(resolve));
      });
      return new Response(body, { headers: tailHeaders(s) });
    }
    const n = Math.min(RESPONSE_MAX_BYTES, Math.max(0, s.size - offset));
    const headers = offset + n >= s.size ? tailHeaders(s) : { "Stream-Next-Offset": String(offset + n) };
    return new Response(zeros(n), { headers });
  },
});
console.log(`listening http://127.0.0.1:${server.port} data=${syncDir ?? "memory"}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});

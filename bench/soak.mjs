// Soak: many live readers for a while, and nothing lost or grown. Against dist/ursa (or
// $URSA_BINARY): --streams streams, half application/json and half text/plain, one writer each
// appending --rate times a second; --sse SSE readers and --long-poll long-poll readers spread over
// the streams, every one reading its stream from the start, for --duration-s seconds. SSE responses
// end every --sse-max-duration (the server's option), so every SSE reader also resumes from its
// last control event several times. Then the writers stop, the readers catch up, and each must
// hold exactly its stream's acknowledged appends: every message in order, once, byte for byte (a
// JSON reader checks each message's stream and number; a text reader its stream's exact bytes).
// The server's RSS is sampled every second: start (all readers connected), middle and end.
//
// Not part of CI or `npm run bench`: a minute of 2,000 connections. Exit status 1 if any reader
// got a wrong byte or did not catch up, or the server failed.
//
//   node bench/soak.mjs [--duration-s 60] [--sse 1000] [--long-poll 1000] [--streams 20] [--rate 2]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Conn } from "./lib/http.mjs";
import { rssKiB } from "./lib/proc.mjs";
import { sseParser } from "./lib/sse-parser.mjs";
import { sleep } from "./lib/stats.mjs";

const { values: o } = parseArgs({
  options: {
    "duration-s": { type: "string", default: "60" },
    sse: { type: "string", default: "1000" },
    "long-poll": { type: "string", default: "1000" },
    streams: { type: "string", default: "20" },
    rate: { type: "string", default: "2" },
    "sse-max-duration": { type: "string", default: "15s" },
  },
});
const DURATION_MS = Number(o["duration-s"]) * 1000;
const SSE = Number(o.sse);
const LONG_POLL = Number(o["long-poll"]);
const STREAMS = Number(o.streams);
const RATE = Number(o.rate);
const readers = SSE + LONG_POLL;

const softLimit = Number(/Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"))?.[1] ?? 0);
if (softLimit < readers + STREAMS + 100) {
  console.error(`soak: ${readers} readers need ${readers + STREAMS + 100} open files; this shell allows ${softLimit} (ulimit -n)`);
  process.exit(2);
}

const binary = resolve(import.meta.dirname, "..", process.env.URSA_BINARY ?? "dist/ursa");
const dir = mkdtempSync(join(tmpdir(), "ursa-soak-"));
const cap = String(readers + STREAMS + 1000);
const child = spawn(
  binary,
  ["--port", "0", "--data", dir, "--sse-max-duration", o["sse-max-duration"], "--long-poll-timeout-ms", "5000", "--max-connections", cap, "--max-live-readers", cap, "--max-live-readers-per-client", cap],
  { stdio: ["ignore", "pipe", "pipe"] },
);
let serverLog = "";
child.stderr.on("data", (d) => (serverLog = (serverLog + d).slice(-20_000)));
const url = await new Promise((res, rej) => {
  child.stdout.on("data", (d) => {
    const m = /listening (http:\/\/\S+)/.exec(String(d));
    if (m) res(m[1]);
  });
  child.once("exit", (c) => rej(new Error(`ursa exited (${c}):\n${serverLog}`)));
});
const MiB = (kib) => +(kib / 1024).toFixed(1);

/** One stream: what its writer had acknowledged, and its tail. */
const streams = Array.from({ length: STREAMS }, (_, i) => ({
  i,
  path: `/bench-soak/s${i}`,
  json: i % 2 === 0,
  acked: 0,
  /** Text streams: every byte appended, in order. */
  text: "",
  tail: "-1",
}));
const textOf = (s, n) => `s${s.i}n${n};`.padEnd(40 + (n % 17), ".");
const jsonOf = (s, n) => JSON.stringify({ s: s.i, n, p: "x".repeat(n % 23) });

/** A reader's checks: what it got must be its stream's next message (JSON) or next bytes (text). */
function checker(s, r) {
  return (payload) => {
    if (s.json) {
      for (const m of JSON.parse(payload)) {
        if (m.s !== s.i || m.n !== r.count) r.wrong++;
        r.count++;
      }
    } else {
      if (s.text.slice(r.bytes, r.bytes + payload.length) !== payload) r.wrong++;
      r.bytes += payload.length;
    }
  };
}

let stop = false;
const state = [];

async function sseReader(s, r) {
  const check = checker(s, r);
  const conn = new Conn(url, { idleReconnectMs: 3_600_000 });
  r.conn = conn;
  while (!(stop && r.offset === s.tail)) {
    let lastControl = null;
    const parse = sseParser((type, data) => {
      if (type === "data") check(data);
      else if (type === "control") {
        lastControl = JSON.parse(data);
        r.offset = lastControl.streamNextOffset;
        if (!r.ready) (r.ready = true), readyCount++;
        if (stop && r.offset === s.tail) conn.close();
      }
    });
    try {
      await conn.request("GET", `${s.path}?offset=${encodeURIComponent(r.offset)}&live=sse`, "", null, { onData: parse });
      r.sessions++;
    } catch (e) {
      if (stop && r.offset === s.tail) break;
      r.errors++;
      r.lastError = e.message;
      await sleep(100);
    }
  }
  conn.close();
}

async function longPollReader(s, r) {
  const check = checker(s, r);
  const conn = new Conn(url, { idleReconnectMs: 3_600_000 });
  while (!(stop && r.offset === s.tail)) {
    try {
      const res = await conn.request("GET", `${s.path}?offset=${encodeURIComponent(r.offset)}&live=long-poll`, "", null);
      if (res.status === 200) check(res.body.toString("utf8"));
      else if (res.status !== 204) throw new Error(`HTTP ${res.status}`);
      r.offset = res.headers["stream-next-offset"];
      r.polls++;
      if (!r.ready) (r.ready = true), readyCount++;
    } catch (e) {
      r.errors++;
      r.lastError = e.message;
      await sleep(100);
    }
  }
  conn.close();
}

async function writer(s) {
  const conn = new Conn(url, { idleReconnectMs: 3_600_000 });
  const type = s.json ? "application/json" : "text/plain";
  const start = performance.now();
  for (let n = 0; !stop; n++) {
    const due = start + (n * 1000) / RATE;
    if (due > performance.now()) await sleep(due - performance.now());
    if (stop) break;
    const body = s.json ? jsonOf(s, n) : textOf(s, n);
    const res = await conn.request("POST", s.path, `Content-Type: ${type}\r\n`, body, { discardBody: true });
    if (res.status !== 204) throw new Error(`append to ${s.path}: HTTP ${res.status}`);
    if (!s.json) s.text += body;
    s.acked++;
    s.tail = res.headers["stream-next-offset"];
  }
  conn.close();
}

let readyCount = 0;
const setup = new Conn(url);
let failed = false;
try {
  for (const s of streams) {
    const res = await setup.request("PUT", s.path, `Content-Type: ${s.json ? "application/json" : "text/plain"}\r\n`, null);
    if (res.status !== 201) throw new Error(`PUT ${s.path}: ${res.status}`);
    const head = await setup.request("HEAD", s.path, "", null);
    s.tail = head.headers["stream-next-offset"];
  }
  setup.close();
  const runs = [];
  for (let k = 0; k < readers; k++) {
    const s = streams[k % STREAMS];
    const r = { kind: k < SSE ? "sse" : "long-poll", s, offset: "-1", count: 0, bytes: 0, wrong: 0, errors: 0, sessions: 0, polls: 0, ready: false, lastError: null };
    state.push(r);
    runs.push(k < SSE ? sseReader(s, r) : longPollReader(s, r));
    // Connect in waves, not 2,000 at once.
    if (k % 100 === 99) await sleep(20);
  }
  for (let t = 0; readyCount < readers && t < 600; t++) await sleep(50);
  if (readyCount < readers) throw new Error(`only ${readyCount} of ${readers} readers connected`);
  console.log(`soak: ${SSE} SSE and ${LONG_POLL} long-poll readers on ${STREAMS} streams (half JSON, half text), ${STREAMS} writers at ${RATE}/s, ${o["duration-s"]} s, SSE responses end every ${o["sse-max-duration"]}`);
  const rss = [];
  const started = performance.now();
  const writers = streams.map((s) => writer(s));
  while (performance.now() - started < DURATION_MS) {
    await sleep(1000);
    rss.push(rssKiB(child.pid));
  }
  stop = true;
  await Promise.all(writers);
  const caughtUp = Promise.all(runs);
  const drained = await Promise.race([caughtUp.then(() => true), sleep(15_000).then(() => false)]);
  if (!drained) for (const r of state) r.conn?.close();
  const appended = streams.reduce((n, s) => n + s.acked, 0);
  let wrong = 0, short = 0, errors = 0, sessions = 0, polls = 0;
  for (const r of state) {
    wrong += r.wrong;
    errors += r.errors;
    sessions += r.sessions;
    polls += r.polls;
    const complete = r.s.json ? r.count === r.s.acked : r.bytes === r.s.text.length;
    if (!complete || r.offset !== r.s.tail) short++;
  }
  const start = rss[0], middle = rss[Math.floor(rss.length / 2)], end = rss.at(-1);
  const delivered = state.reduce((n, r) => n + (r.s.json ? r.count : 0), 0);
  const result = {
    appended,
    readers,
    jsonMessagesDelivered: delivered,
    textBytesDelivered: state.reduce((n, r) => n + r.bytes, 0),
    wrong,
    incomplete: short,
    readerErrors: errors,
    sseSessions: sessions,
    longPolls: polls,
    rssMiB: { start: MiB(start), middle: MiB(middle), end: MiB(end), max: MiB(Math.max(...rss)) },
    rssGrowthMiddleToEndPct: +(((end - middle) / middle) * 100).toFixed(1),
  };
  console.log(JSON.stringify(result));
  failed = wrong > 0 || short > 0 || !drained;
  console.log(failed ? `soak: FAILED (${wrong} wrong deliveries, ${short} readers incomplete${drained ? "" : ", not drained in 15 s"})` : `soak: every reader got every byte in order; server RSS ${result.rssMiB.start} -> ${result.rssMiB.middle} -> ${result.rssMiB.end} MiB`);
  const sample = state.find((r) => r.lastError);
  if (sample) console.log(`soak: ${errors} reader errors (reconnected), e.g. ${sample.lastError}`);
} catch (e) {
  failed = true;
  console.error(`soak: ${e.message}\n${serverLog}`);
} finally {
  child.kill("SIGTERM");
  await new Promise((res) => child.once("exit", res));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

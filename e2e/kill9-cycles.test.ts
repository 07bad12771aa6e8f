// Crash cycles: one data directory, CYCLES times over: start the binary, check everything it ever
// acknowledged, run a mixed write load, kill -9 it mid-flight. The load covers plain JSON appends
// on both URL surfaces, idempotent-producer appends, Stream-Seq commits, batched appends, and one
// stream's resources: snapshots, retention, forks and fork deletes. Each actor owns its stream and
// has at most one request in flight, so after a restart each stream must hold exactly its
// acknowledged commits, whole and in order, plus at most the one in flight, whole or not at all.
//
// After each restart, before any new write: every stream's messages are compared with the model
// (nothing acknowledged lost, nothing twice, no commit split); a producer's retry of its write in
// flight is answered as a duplicate exactly when that write is in the stream, and the producer then
// expects exactly the next sequence number; the last Stream-Seq is exactly the last commit's in the
// stream; the snapshot and the floor are the acknowledged ones or the ones in flight; every fork
// holds exactly its source's messages at the fork, or (in flight) does not exist.
//
// Which request is in flight at the kill is steered: each cycle names a kind (fork, retention,
// snapshot, fork delete, producer, Stream-Seq, batch) and the kill lands 0-2 ms after the next
// such request is sent. The summary line counts how often each kind was cut off.
import { expect, test } from "vitest";
import { scratchSpace } from "./scratch.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const CYCLES = Number(process.env.URSA_KILL9_CYCLES ?? 100);
// Two stream states in memory: every stream is evicted and read back from the database all the
// time, under the load and across each crash, which must change nothing of what is checked.
const SMALL_CACHE = ["--stream-cache", "2"];
const JSON_TYPE = { "Content-Type": "application/json" };
const ZERO = "0000000000000000_0000000000000000";

interface Msg {
  a: string; // actor
  c: number; // commit number within the actor
  i: number; // index within the commit
  k: number; // messages in the commit
  p: string;
}

const id = (m: Msg) => `${m.a}:${m.c}:${m.i}/${m.k}`;
const pad20 = (n: number) => String(n).padStart(20, "0");

function commitOf(actor: string, c: number, k: number, size = 48): Msg[] {
  return Array.from({ length: k }, (_, i) => ({ a: actor, c, i, k, p: `${actor}${c}.${i}`.padEnd(size, "~") }));
}

/** A stream's acknowledged commits, its floor, and what was in flight when the server died. */
class Model {
  commits: { msgs: Msg[]; end: string }[] = [];
  /** Index of the first commit at or above the floor. */
  from = 0;
  floor = ZERO;
  pending: Msg[] | null = null;
  next = 0;
  constructor(
    readonly actor: string,
    readonly path: string,
  ) {}
  get tail(): string {
    return this.commits.at(-1)?.end ?? ZERO;
  }
  expected(): string[] {
    return this.commits.slice(this.from).flatMap((c) => c.msgs.map(id));
  }
}

/** Every message of a JSON stream from `offset`, following Stream-Next-Offset until up to date. */
async function readAll(url: string, offset: string): Promise<{ msgs: Msg[]; tail: string }> {
  const msgs: Msg[] = [];
  for (let page = 0; page < 1000; page++) {
    const res = await fetch(`${url}?offset=${offset}`);
    if (res.status !== 200) throw new Error(`GET ${url}?offset=${offset}: ${res.status} ${await res.text()}`);
    msgs.push(...((await res.json()) as Msg[]));
    const next = res.headers.get("Stream-Next-Offset")!;
    if (res.headers.get("Stream-Up-To-Date") === "true") return { msgs, tail: next };
    offset = next;
  }
  throw new Error(`${url}: not up to date after 1000 pages`);
}

/** Length-framed frames for append-batch: a 4-byte big-endian length, then the bytes. */
function frames(parts: string[]): Uint8Array<ArrayBuffer> {
  const bodies = parts.map((p) => new TextEncoder().encode(p));
  const out = new Uint8Array(bodies.reduce((n, b) => n + 4 + b.length, 0));
  let at = 0;
  for (const b of bodies) {
    new DataView(out.buffer).setUint32(at, b.length);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

type Kind = "fork" | "retention" | "snapshot" | "fork-delete" | "producer" | "stream-seq" | "batch";
const KINDS: Kind[] = ["fork", "retention", "snapshot", "fork-delete", "producer", "stream-seq", "batch"];

interface Fork {
  name: string;
  /** The source's messages at the fork (from its floor), and the floor it inherited. */
  msgs: string[];
  floor: string;
}

const space = scratchSpace("ursa-kill9-cycles-");

test(`kill -9 at ${CYCLES} moments of a mixed load loses no acknowledged write, applies none twice, and splits none`, { timeout: 170_000 }, async () => {
  const dataDir = space.dir();
  const tag = Date.now().toString(36);
  const plain = new Model("j", `/e2e-k9/plain-${tag}`);
  const compat = new Model("v", `/v1/stream/k9-compat-${tag}`);
  const producer = new Model("p", `/e2e-k9/producer-${tag}`);
  const seq = new Model("s", `/e2e-k9/seq-${tag}`);
  const batch = new Model("b", `/e2e-k9/batch-${tag}`);
  const res = new Model("r", `/e2e-k9/res-${tag}`);
  const models = [plain, compat, producer, seq, batch, res];
  let snapshot: { offset: string; body: string } | null = null;
  let pendingSnapshot: { offset: string; body: string } | null = null;
  let pendingFloor: { floor: string; from: number } | null = null;
  let forks: Fork[] = [];
  let pendingFork: Fork | null = null;
  let pendingDelete: Fork | null = null;
  let forkCount = 0;
  const cutOff = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  let acked = 0;
  const started = performance.now();
  let ursa: UrsaProcess | undefined;

  /** Sends one request; null if the server died before answering. */
  const send = async (path: string, init: RequestInit): Promise<Response | null> => {
    try {
      const r = await fetch(`${ursa!.url}${path}`, init);
      await r.clone().arrayBuffer();
      return r;
    } catch {
      return null;
    }
  };

  // ---- after a restart: resolve what was in flight, then check everything -----------------

  async function check(cycle: number): Promise<string[]> {
    const problems: string[] = [];
    const at = (s: string) => problems.push(`cycle ${cycle}: ${s}`);
    const url = (p: string) => `${ursa!.url}${p}`;

    // The producer's write in flight, retried as a client would: a duplicate exactly when it landed.
    if (producer.pending) {
      const before = (await readAll(url(producer.path), ZERO)).msgs.map(id);
      const landed = before.length === producer.expected().length + producer.pending.length;
      const retry = await fetch(url(producer.path), { method: "POST", headers: { ...JSON_TYPE, "Producer-Id": "k9", "Producer-Epoch": "1", "Producer-Seq": String(producer.next) }, body: JSON.stringify(producer.pending) });
      if (retry.status !== (landed ? 204 : 200)) at(`producer retry of seq ${producer.next} answered ${retry.status}, the write had ${landed ? "" : "not "}landed`);
      producer.commits.push({ msgs: producer.pending, end: retry.headers.get("Stream-Next-Offset")! });
      producer.pending = null;
      producer.next++;
    }
    // The floor: the acknowledged one, or the one in flight; below it, 410.
    const floor = (await fetch(url(res.path), { method: "HEAD" })).headers.get("Stream-Retained-Offset");
    if (pendingFloor && floor === pendingFloor.floor) {
      res.floor = pendingFloor.floor;
      res.from = pendingFloor.from;
    } else if (floor !== res.floor) at(`floor ${floor}, expected ${res.floor}${pendingFloor ? ` or ${pendingFloor.floor}` : ""}`);
    pendingFloor = null;
    if (res.floor !== ZERO && (await fetch(url(`${res.path}?offset=-1`))).status !== 410) at("a read below the floor is not 410");
    for (const m of models) {
      const { msgs, tail } = await readAll(url(m.path), m.floor);
      const got = msgs.map(id);
      const want = m.expected();
      const withPending = m.pending ? [...want, ...m.pending.map(id)] : null;
      if (withPending && JSON.stringify(got) === JSON.stringify(withPending)) {
        m.commits.push({ msgs: m.pending!, end: tail });
        m.next++;
      } else if (JSON.stringify(got) !== JSON.stringify(want)) {
        const differs = got.findIndex((g, n) => g !== want[n]);
        const first = differs < 0 ? Math.min(got.length, want.length) : differs;
        at(`${m.path}: ${got.length} messages, expected ${want.length}${m.pending ? ` (or ${withPending!.length} with the one in flight)` : ""}; first difference at #${first}: ${got[first] ?? "(none)"} vs ${want[first] ?? "(none)"}`);
      }
      m.pending = null;
      if (tail !== m.tail) at(`${m.path}: tail ${tail}, expected ${m.tail}`);
    }
    // Producer state: the next write must be exactly the next sequence number.
    const gap = await fetch(url(producer.path), { method: "POST", headers: { ...JSON_TYPE, "Producer-Id": "k9", "Producer-Epoch": "1", "Producer-Seq": String(producer.next + 1) }, body: '{"gap":true}' });
    if (gap.status !== 409 || gap.headers.get("Producer-Expected-Seq") !== String(producer.next)) at(`producer expects ${gap.headers.get("Producer-Expected-Seq")} (${gap.status}), should expect ${producer.next}`);
    // Stream-Seq: exactly the last commit's, found by a compare-and-set that cannot win.
    const cas = await fetch(url(seq.path), { method: "POST", headers: { ...JSON_TYPE, "Stream-Seq": pad20(0) }, body: '{"stale":true}' });
    if (cas.status !== 409 || cas.headers.get("Stream-Last-Seq") !== pad20(seq.next - 1)) at(`Stream-Last-Seq ${cas.headers.get("Stream-Last-Seq")} (${cas.status}), expected ${pad20(seq.next - 1)}`);
    // The snapshot: the acknowledged one, or the one in flight.
    if (snapshot || pendingSnapshot) {
      const r = await fetch(url(`${res.path}/snapshot`));
      const body = r.status === 200 ? await r.text() : r.status === 404 ? null : `HTTP ${r.status}`;
      if (pendingSnapshot && body === pendingSnapshot.body) snapshot = pendingSnapshot;
      else if (body !== (snapshot?.body ?? null)) at(`snapshot ${body}, expected ${snapshot?.body ?? "none"}${pendingSnapshot ? ` or ${pendingSnapshot.body}` : ""}`);
    }
    pendingSnapshot = null;
    // Forks: each exactly its source at the fork; the one in flight exists whole or not at all;
    // the one being deleted is gone or whole.
    if (pendingFork) {
      const head = await fetch(url(`/e2e-k9/${pendingFork.name}`), { method: "HEAD" });
      if (head.status === 200) forks.push(pendingFork);
      else if (head.status !== 404) at(`fork in flight ${pendingFork.name}: HEAD ${head.status}`);
      pendingFork = null;
    }
    if (pendingDelete) {
      const head = await fetch(url(`/e2e-k9/${pendingDelete.name}`), { method: "HEAD" });
      if (head.status === 404) forks = forks.filter((f) => f !== pendingDelete);
      else if (head.status !== 200) at(`fork being deleted ${pendingDelete.name}: HEAD ${head.status}`);
      pendingDelete = null;
    }
    for (const f of forks) {
      const got = (await readAll(url(`/e2e-k9/${f.name}`), f.floor)).msgs.map(id);
      if (JSON.stringify(got) !== JSON.stringify(f.msgs)) at(`fork ${f.name}: ${got.length} messages, expected ${f.msgs.length}`);
    }
    return problems;
  }

  // ---- the load ----------------------------------------------------------------------------

  let stopping = false;
  let armed: Kind | null = null;
  let fire: (() => void) | null = null;
  /** Before each request: if it is the kind this cycle aims at, the kill goes out 0-3 ms later. */
  const sending = (kind: Kind) => {
    if (armed === kind && fire) {
      const f = fire;
      fire = null;
      // At once (the request may not even have reached the server), or 1-2 ms later (it is being
      // decided, committed or synced).
      if (Math.random() < 0.4) setImmediate(f);
      else setTimeout(f, 1 + Math.random());
    }
  };

  async function appender(m: Model, kind: Kind | null, request: (msgs: Msg[]) => { path: string; init: RequestInit }, ok: number[]) {
    while (!stopping) {
      const msgs = commitOf(m.actor, m.next, 1 + ((m.next * 7) % 3));
      const { path, init } = request(msgs);
      m.pending = msgs;
      if (kind) sending(kind);
      const r = await send(path, init);
      if (!r) return;
      if (!ok.includes(r.status)) throw new Error(`${m.path}: HTTP ${r.status} ${await r.text()}`);
      m.commits.push({ msgs, end: r.headers.get("Stream-Next-Offset")! });
      m.pending = null;
      m.next++;
      acked++;
    }
  }

  const append = (m: Model) => (msgs: Msg[]) => ({ path: m.path, init: { method: "POST", headers: JSON_TYPE, body: JSON.stringify(msgs) } });

  // The resource actor's program goes on from cycle to cycle.
  let op = 0;
  async function resources() {
    for (; !stopping; op++) {
      const step = op % 8;
      let r: Response | null;
      if (step === 4 || step === 6) {
        // A snapshot at the tail (4), or retention up to the snapshot (6), which may not pass it.
        if (step === 6) {
          if (!snapshot || snapshot.offset === res.floor) continue;
          const from = res.commits.findIndex((c) => c.end === snapshot!.offset) + 1;
          pendingFloor = { floor: snapshot.offset, from };
          sending("retention");
          r = await send(`${res.path}/retention/${snapshot.offset}`, { method: "PUT" });
          if (!r) return;
          if (r.status !== 204) throw new Error(`retention: HTTP ${r.status} ${await r.text()}`);
          res.floor = pendingFloor.floor;
          res.from = pendingFloor.from;
          pendingFloor = null;
        } else {
          if (res.tail === ZERO || res.tail === snapshot?.offset) continue;
          pendingSnapshot = { offset: res.tail, body: JSON.stringify({ upTo: res.next, at: res.tail }) };
          sending("snapshot");
          r = await send(`${res.path}/snapshot/${res.tail}`, { method: "PUT", headers: JSON_TYPE, body: pendingSnapshot.body });
          if (!r) return;
          if (r.status !== 204) throw new Error(`snapshot: HTTP ${r.status} ${await r.text()}`);
          snapshot = pendingSnapshot;
          pendingSnapshot = null;
        }
      } else if (step === 5) {
        pendingFork = { name: `fork-${tag}-${forkCount++}`, msgs: res.expected(), floor: res.floor };
        sending("fork");
        r = await send(`/e2e-k9/${pendingFork.name}`, { method: "PUT", headers: { "Stream-Forked-From": res.path } });
        if (!r) return;
        if (r.status !== 201) throw new Error(`fork: HTTP ${r.status} ${await r.text()}`);
        forks.push(pendingFork);
        pendingFork = null;
      } else if (step === 7 && forks.length > 3) {
        pendingDelete = forks[0]!;
        sending("fork-delete");
        r = await send(`/e2e-k9/${pendingDelete.name}`, { method: "DELETE" });
        if (!r) return;
        if (r.status !== 204) throw new Error(`fork delete: HTTP ${r.status} ${await r.text()}`);
        forks = forks.filter((f) => f !== pendingDelete);
        pendingDelete = null;
      } else {
        const msgs = commitOf(res.actor, res.next, 1 + (res.next % 3), 200);
        res.pending = msgs;
        r = await send(res.path, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(msgs) });
        if (!r) return;
        if (r.status !== 204) throw new Error(`append: HTTP ${r.status} ${await r.text()}`);
        res.commits.push({ msgs, end: r.headers.get("Stream-Next-Offset")! });
        res.pending = null;
        res.next++;
      }
      acked++;
    }
  }

  // ---- the cycles --------------------------------------------------------------------------

  ursa = space.keep(await startUrsa({ dataDir, args: SMALL_CACHE }));
  for (const m of models) expect((await fetch(`${ursa.url}${m.path}`, { method: "PUT", headers: JSON_TYPE })).status).toBe(201);
  // A first Stream-Seq commit, so that the check's stale compare-and-set can never win.
  const first = commitOf(seq.actor, 0, 1);
  const r0 = await fetch(`${ursa.url}${seq.path}`, { method: "POST", headers: { ...JSON_TYPE, "Stream-Seq": pad20(0) }, body: JSON.stringify(first) });
  expect(r0.status).toBe(204);
  seq.commits.push({ msgs: first, end: r0.headers.get("Stream-Next-Offset")! });
  seq.next = 1;
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    stopping = false;
    armed = null;
    const killed = new Promise<void>((resolve) => {
      fire = resolve;
      // Some load first, then aim at the next request of this cycle's kind; should none come, a
      // timer kills.
      setTimeout(() => (armed = KINDS[cycle % KINDS.length]!), 5 + Math.random() * 35);
      setTimeout(resolve, 120 + Math.random() * 40);
    });
    const current = ursa;
    const load = Promise.all([
      appender(plain, null, append(plain), [204]),
      appender(compat, null, append(compat), [204]),
      appender(producer, "producer", (msgs) => ({ path: producer.path, init: { method: "POST", headers: { ...JSON_TYPE, "Producer-Id": "k9", "Producer-Epoch": "1", "Producer-Seq": String(producer.next) }, body: JSON.stringify(msgs) } }), [200]),
      appender(seq, "stream-seq", (msgs) => ({ path: seq.path, init: { method: "POST", headers: { ...JSON_TYPE, "Stream-Seq": pad20(seq.next) }, body: JSON.stringify(msgs) } }), [204]),
      appender(batch, "batch", (msgs) => ({ path: `${batch.path}/append-batch`, init: { method: "POST", headers: { ...JSON_TYPE, Prefer: "return=minimal" }, body: frames(msgs.map((m) => JSON.stringify(m))) } }), [204]),
      resources(),
    ]);
    await killed;
    fire = null;
    stopping = true;
    await current.kill();
    await load;
    // What was cut off: the aimed-at kind's request, if it was in flight.
    const inFlight: Record<Kind, boolean> = {
      fork: pendingFork !== null,
      retention: pendingFloor !== null,
      snapshot: pendingSnapshot !== null,
      "fork-delete": pendingDelete !== null,
      producer: producer.pending !== null,
      "stream-seq": seq.pending !== null,
      batch: batch.pending !== null,
    };
    for (const k of KINDS) if (inFlight[k]) cutOff[k]++;

    ursa = space.keep(await startUrsa({ dataDir, args: SMALL_CACHE }));
    expect(await check(cycle)).toEqual([]);
  }
  const seconds = (performance.now() - started) / 1000;
  const streams = models.map((m) => m.commits.length);
  console.log(`kill9 cycles: ${CYCLES} in ${seconds.toFixed(1)} s, ${acked} requests acknowledged, commits per stream ${streams.join("/")}, ${forkCount} forks; in flight at the kill: ${KINDS.map((k) => `${k} ${cutOff[k]}`).join(", ")}`);
  // The aim works: each resource kind was caught in flight at least once.
  for (const k of ["fork", "retention", "snapshot", "fork-delete"] as const) expect(cutOff[k], k).toBeGreaterThan(0);
});

// The ursa-client suite a user's runtime runs: Node from the packed tarball
// (e2e/client-package.test.ts), Deno from the same install, and a browser
// (e2e/client-package.spec.ts). It imports "ursa-client" as a user would, and needs nothing but
// fetch, so the same compiled file runs in each. Every scenario throws on the first broken rule
// and returns a line of figures; the checks read the stream with plain fetch, not the package.
import { compact, IncarnationMismatch, OutboxPublisher, padSeq, PrefixCountWriter, ProducerFenced, readFromSnapshot, resumeFromSnapshot, StreamGone, UrsaStream } from "ursa-client";

export const WRITERS = 8;
export const COMMITS_PER_WRITER = 50;

function check(ok: boolean, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A stream URL no run has used. */
const fresh = (base: string, name: string) => `${base}/client-suite/${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** The whole log in one plain GET, independently of the package's reader. */
async function wholeLog(url: string): Promise<unknown[]> {
  const res = await fetch(`${url}?offset=-1`);
  check(res.status === 200, `GET ${url}: ${res.status}`);
  check(res.headers.get("Stream-Up-To-Date") === "true", "one response should hold the whole log");
  return (await res.json()) as unknown[];
}

/** The stream's last accepted Stream-Seq, from a probe that must lose: a 409 commits nothing and names it. */
async function storedSeq(url: string): Promise<string | null> {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "Stream-Seq": padSeq(0) }, body: '[{"probe":true}]' });
  await res.arrayBuffer();
  check(res.status === 409, `the probe with Stream-Seq 0 should lose, got ${res.status}`);
  return res.headers.get("Stream-Last-Seq");
}

interface Event {
  w: number;
  op: string;
  i: number;
  /** The count this commit was decided against. */
  seen: number;
}

/**
 * [CW] Prefix-count compare-and-set: WRITERS writers commit COMMITS_PER_WRITER commits of 1–3
 * events each on one stream. Each event records the count its commit was decided against, so the
 * log itself shows that every commit was validated against everything before it.
 */
async function prefixCount(base: string): Promise<string> {
  const url = fresh(base, "prefix-count");
  const created = await new UrsaStream(url).create({ contentType: "application/json" });
  check(created.created, "the stream should be new");
  const committed: { op: string; n: number; size: number; conflicts: number }[] = [];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const writer = new PrefixCountWriter(url, { maxAttempts: 100_000, operationIdOf: (e) => (e as Event).op });
      for (let c = 0; c < COMMITS_PER_WRITER; c++) {
        const size = 1 + ((w * 7 + c * 5) % 3);
        const done = await writer.commit((log) => Array.from({ length: size }, (_, i): Event => ({ w, op: log.operationId, i, seen: log.n })));
        committed.push({ op: done.operationId, n: done.n, size: done.size, conflicts: done.attempts.filter((a) => a.outcome === "conflict").length });
      }
    }),
  );
  const log = (await wholeLog(url)) as Event[];
  const runs = new Map<string, { position: number; size: number }>();
  for (let i = 0; i < log.length; ) {
    const op = log[i]!.op;
    check(!runs.has(op), `commit ${op} appears twice, or split`);
    let size = 0;
    while (i + size < log.length && log[i + size]!.op === op) {
      const e = log[i + size]!;
      check(e.i === size, `commit ${op}: event ${e.i} at index ${size}: not committed together`);
      check(e.seen === i, `commit ${op} was decided on ${e.seen} events but sits after ${i}`);
      size++;
    }
    runs.set(op, { position: i, size });
    i += size;
  }
  check(committed.length === WRITERS * COMMITS_PER_WRITER, `${committed.length} commits acknowledged`);
  check(runs.size === committed.length, `${runs.size} commits in the log, ${committed.length} acknowledged`);
  for (const c of committed) {
    const run = runs.get(c.op);
    check(run !== undefined, `acknowledged commit ${c.op} is missing`);
    check(run.position === c.n && run.size === c.size, `commit ${c.op}: acknowledged at ${c.n} (${c.size}), in the log at ${run.position} (${run.size})`);
  }
  const last = [...runs.values()].at(-1)!;
  check((await storedSeq(url)) === padSeq(last.position), "the stored value should be the count before the latest commit");
  const conflicts = committed.reduce((s, c) => s + c.conflicts, 0);
  check(conflicts > 0, "eight writers racing should collide at least once");
  return `${committed.length} commits, ${log.length} events, ${conflicts} Stream-Seq 409s retried`;
}

/**
 * [CW] Publishing committed facts (outbox): owner A (epoch 1) publishes facts 0..59; owner B
 * takes over at epoch 2 from an older checkpoint (40), overlapping A; A, not yet fenced, still
 * publishes 60; B's first accepted append fences A (403); B publishes the rest.
 */
async function outbox(base: string): Promise<string> {
  const url = fresh(base, "outbox");
  await new UrsaStream(url).create({ contentType: "application/json" });
  const fact = (n: number) => ({ fact: n });
  const a = new OutboxPublisher(url, { producerId: "orders-outbox", epoch: 1 });
  for (let n = 0; n < 60; n++) check((await a.publish(n, fact(n))) === "published", `A: fact ${n}`);
  const b = new OutboxPublisher(url, { producerId: "orders-outbox", epoch: 2 });
  let skipped = 0;
  let n = 40;
  // Republishing 40 answers 409 with Stream-Last-Seq 59: "already published"; go on after it.
  check((await b.publish(n, fact(n))) === "already-published", "B: fact 40 is already published");
  skipped++;
  check(b.lastPublished === 59 && b.nextProducerSeq === 0, `B learned ${b.lastPublished}, seq ${b.nextProducerSeq}`);
  // Before B's first accepted append, A can still publish.
  check((await a.publish(60, fact(60))) === "published", "A: fact 60 before the takeover lands");
  for (n = b.lastPublished + 1; n < 100; n++) {
    const outcome = await b.publish(n, fact(n));
    if (outcome === "already-published") {
      skipped++;
      n = b.lastPublished!;
    }
  }
  check(skipped === 2, `B skipped ${skipped} facts (40, then 60)`);
  const fenced = await a.publish(61, fact(61)).catch((e: unknown) => e);
  check(fenced instanceof ProducerFenced && fenced.currentEpoch === 2, `A after the takeover: ${String(fenced)}`);
  const log = await wholeLog(url);
  check(same(log, Array.from({ length: 100 }, (_, i) => fact(i))), `the stream should hold facts 0..99 once, in order: ${JSON.stringify(log).slice(0, 200)}`);
  return `100 facts once and in order; B skipped ${skipped}, A fenced at epoch ${fenced.currentEpoch}`;
}

/**
 * [CW] Guarding against a recreated stream: a long-poll reader, an SSE subscriber and a writer
 * all know its incarnation; the stream is deleted and created again (longer, so the reader's offset is still
 * a valid position); both throw IncarnationMismatch with the new token, and nothing is applied.
 */
async function incarnation(base: string): Promise<string> {
  const url = fresh(base, "incarnation");
  const ev = (tag: string) => ({ v: tag });
  const other = new UrsaStream(url);
  await other.create({ contentType: "application/json" });
  await other.append(["a1", "a2", "a3"].map(ev));
  const reader = new UrsaStream(url);
  const follow = reader.read({ offset: "-1", live: "long-poll", timeoutMs: 200 });
  const first = await follow.next();
  check(!first.done && same(first.value.messages, ["a1", "a2", "a3"].map(ev)) && first.value.upToDate, "the reader catches up on the old stream");
  const subscriber = new UrsaStream(url);
  const subscription = subscriber.read({ offset: "-1", live: "sse" });
  const pushed = await subscription.next();
  check(!pushed.done && same(pushed.value.messages, ["a1", "a2", "a3"].map(ev)) && pushed.value.upToDate, "the SSE subscriber catches up on the old stream");
  const writer = new UrsaStream(url);
  await writer.append([ev("a4")]);
  check(writer.incarnation !== null && writer.incarnation === reader.incarnation, "reader and writer know the same incarnation");
  const old = writer.incarnation;

  const recreator = new UrsaStream(url);
  await recreator.delete();
  await recreator.create({ contentType: "application/json" });
  await recreator.append(["b1", "b2", "b3", "b4", "b5", "b6"].map(ev));
  const current = recreator.incarnation;
  check(current !== null && current !== old, "the recreated stream has a new incarnation");

  const writeError = await writer.append([ev("stale")]).catch((e: unknown) => e);
  check(writeError instanceof IncarnationMismatch && writeError.incarnation === current, `the writer: ${String(writeError)}`);
  const readError = await follow.next().catch((e: unknown) => e);
  check(readError instanceof IncarnationMismatch && readError.incarnation === current, `the reader: ${String(readError)}`);
  // The subscription ended with event: error when the stream was deleted; the client asks, with
  // its token, what happened, and the answer is the new incarnation.
  // It had pushed a4 before that; nothing of the new stream ever arrives.
  const pushedAfter: unknown[] = [];
  let pushError: unknown = null;
  try {
    for (let next = await subscription.next(); !next.done; next = await subscription.next()) pushedAfter.push(...(next.value.messages ?? []));
  } catch (error) {
    pushError = error;
  }
  check(pushError instanceof IncarnationMismatch && pushError.incarnation === current, `the SSE subscriber: ${String(pushError)}`);
  check(same(pushedAfter, [ev("a4")]), `the SSE subscriber got ${JSON.stringify(pushedAfter)} after catching up`);
  check(same(await wholeLog(url), ["b1", "b2", "b3", "b4", "b5", "b6"].map(ev)), "nothing of the old stream or the refused write is in the new one");
  // Start over: the new token, read from the start.
  reader.startOver(readError.incarnation);
  const again = await reader.readToTail("-1");
  check(again.messages.length === 6, "after startOver the reader reads the new stream from its start");
  return `writer, long-poll reader and SSE subscriber refused with 412 (incarnation ${old} -> ${current})`;
}

interface Add {
  add: number;
}
const sum = (base: number, events: readonly unknown[]) => events.reduce<number>((t, e) => t + (e as Add).add, base);

/**
 * [CW] Prefix-count step 3: a writer compacts (a snapshot keeping the event count, then
 * retention); offset=-1 answers 410; a new writer counts on from the snapshot and commits with
 * the right Stream-Seq, and the first writer counts on after it.
 */
async function compaction(base: string): Promise<string> {
  const url = fresh(base, "compaction");
  await new UrsaStream(url).create({ contentType: "application/json" });
  const a = new PrefixCountWriter(url);
  for (let i = 1; i <= 3; i++) await a.commit(() => Array.from({ length: i }, (): Add => ({ add: i })));
  const c = await compact(a, (events) => sum(0, events));
  check(c.count === 6, `the snapshot keeps count ${c.count}`);
  const head = await fetch(url, { method: "HEAD" });
  check(head.headers.get("Stream-Retained-Offset") === c.offset && head.headers.get("Stream-Snapshot-Offset") === c.offset, "retained from the snapshot");
  const gone = await new UrsaStream(url).readToTail("-1").catch((e: unknown) => e);
  check(gone instanceof StreamGone, `offset=-1 after retention: ${String(gone)}`);

  const resumed = await resumeFromSnapshot<number>(url);
  check(resumed.state === 14 && resumed.writer.n === 6, `resumed at n ${resumed.writer.n}, state ${resumed.state}`);
  const b = await resumed.writer.commit((log) => [{ add: 100, seen: log.n }]);
  check(b.n === 6, `the new writer committed with Stream-Seq ${b.n}`);
  const next = await a.commit((log) => [{ add: 1000, seen: log.n }]);
  check(next.n === 7, `the first writer counted on to ${next.n}`);
  check((await storedSeq(url)) === padSeq(7), "the stored value is the count before the latest commit");
  const all = await readFromSnapshot<number>(url);
  check(all.from === "snapshot" && all.state === 14 && all.count === 6 && sum(all.state, all.events) === 1114, `read from the snapshot: ${JSON.stringify(all)}`);
  return `compacted at count ${c.count}; new writer committed at ${b.n}, first writer at ${next.n}`;
}

export const scenarios = { prefixCount, outbox, incarnation, compaction } as const;
export type ScenarioName = keyof typeof scenarios;

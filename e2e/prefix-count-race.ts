// The seed's prefix-count race, shared by e2e/recipes.test.ts (one server) and
// e2e/pg-recipes.test.ts (two instances on one database, the writers split between them):
// 8 writers of the recipe commit 1–3 events each, 25 times, on one stream, and the log is then
// checked against every acknowledged commit.
import { expect } from "vitest";
import { padSeq, PrefixCountWriter, type CommitEvent, type CommitReceipt } from "./recipes/index.ts";

type Data = { seen: number; n: number };

export interface RaceReaders {
  /** The whole log in one GET, independently of the recipe's own reader. */
  readAll(url: string): Promise<unknown[]>;
  /** The stored Stream-Seq, from the console API. */
  lastStreamSeq(url: string): Promise<string | null>;
}

export interface RaceResult {
  commits: number;
  events: number;
  attempts: number;
  conflicts: number;
  seconds: number;
}

/**
 * `urls` name one stream, each through a different server; writer w writes through
 * urls[w % urls.length]. The log and the stored value are read through urls[0].
 */
export async function prefixCountRace(urls: string[], readers: RaceReaders, writers = 8, commits = 25): Promise<RaceResult> {
  const url = urls[0]!;
  const receipts: CommitReceipt[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const writer = new PrefixCountWriter<Data>({ url: urls[w % urls.length]!, writerId: `w${w}`, maxAttempts: 10_000 });
      for (let c = 0; c < commits; c++) {
        const size = 1 + ((w * 7 + c * 5) % 3); // 1–3 events
        // Each event records the count it was validated against, so the log itself shows
        // whether every commit was decided on the whole log before it.
        const receipt = await writer.commit((log) => Array.from({ length: size }, (_, n) => ({ seen: log.count, n })));
        receipts.push(receipt);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;

  const log = (await readers.readAll(url)) as CommitEvent<Data>[];
  // Group the log into runs of one commit each.
  const runs = new Map<string, { position: number; size: number; attempt: number }>();
  for (let i = 0; i < log.length; ) {
    const first = log[i]!;
    expect(runs.has(first.commit), `commit ${first.commit} appears twice (or split) in the log`).toBe(false);
    let size = 0;
    while (i + size < log.length && log[i + size]!.commit === first.commit) {
      const e = log[i + size]!;
      // "the elements are committed together": indexes 0..k-1, in order, from one attempt.
      expect(e.index).toBe(size);
      expect(e.attempt).toBe(first.attempt);
      // Validated against the whole log before it: the count it saw is its position.
      expect(e.data.seen, `commit ${first.commit} was decided on ${e.data.seen} events, but sits after ${i}`).toBe(i);
      size++;
    }
    runs.set(first.commit, { position: i, size, attempt: first.attempt });
    i += size;
  }

  expect(receipts).toHaveLength(writers * commits);
  // No event from anything but an acknowledged commit, and all of each one's events.
  expect(runs.size).toBe(receipts.length);
  expect(log.length).toBe(receipts.reduce((s, r) => s + r.size, 0));
  const commitStarts = new Set([...runs.values()].map((r) => r.position));
  let attempts = 0;
  let conflicts = 0;
  for (const r of receipts) {
    const run = runs.get(r.commitId);
    expect(run, `acknowledged commit ${r.commitId} is missing`).toBeDefined();
    // "a writer whose append is accepted has seen the whole log": the acknowledged request's
    // Stream-Seq equals the number of events before the commit.
    expect(Number(r.streamSeq)).toBe(run!.position);
    expect(r.position).toBe(run!.position);
    expect(run!.size).toBe(r.size);
    // The attempt in the log is the acknowledged one; every 409 attempt is absent
    // ("nothing from the request is committed").
    expect(run!.attempt).toBe(r.attempt);
    for (const a of r.attempts) {
      attempts++;
      if (a.outcome === "conflict") {
        conflicts++;
        expect(log.some((e) => e.commit === r.commitId && e.attempt === a.attempt)).toBe(false);
        // "Stream-Last-Seq is the count before that writer's commit": a commit boundary,
        // and never below what the loser sent.
        expect(commitStarts.has(Number(a.lastSeq))).toBe(true);
        expect(a.lastSeq! >= a.streamSeq).toBe(true);
      }
    }
    expect(r.attempts.filter((a) => a.outcome === "accepted")).toHaveLength(1);
    expect(r.attempts.some((a) => a.outcome === "lost")).toBe(false);
  }
  // "the stored value is always the event count before the latest commit".
  const lastRun = [...runs.values()].at(-1)!;
  expect(await readers.lastStreamSeq(url)).toBe(padSeq(lastRun.position));
  // Eight writers racing must collide; with no 409 at all the race was never exercised.
  expect(conflicts).toBeGreaterThan(0);
  return { commits: receipts.length, events: log.length, attempts, conflicts, seconds };
}

/** The figures a race prints, so a slow or conflict-free run shows in the log. */
export function describeRace(r: RaceResult, writers = 8, commits = 25): string {
  return (
    `${writers} writers x ${commits} commits, ${r.events} events in ${r.seconds.toFixed(2)} s: ` +
    `${(r.commits / r.seconds).toFixed(1)} commits/s, 409 rate ${((100 * r.conflicts) / r.attempts).toFixed(1)}% (${r.conflicts}/${r.attempts} POSTs), ` +
    `${((r.attempts - r.commits) / r.commits).toFixed(2)} retries per commit`
  );
}

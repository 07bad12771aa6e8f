import { expect, test } from "bun:test";
import { BatchQueue } from "./batch-queue";

interface Job {
  alone: boolean;
  id: number;
  done: () => void;
}

/** A queue whose transactions the test ends by hand; it logs what was sent and acknowledged. */
class Recorded extends BatchQueue<Job> {
  readonly log: string[] = [];
  readonly inFlight: (() => void)[] = [];

  submit(id: number): Promise<void> {
    return new Promise((done) => this.enqueue({ alone: false, id, done }));
  }

  protected async runBatch(jobs: Job[]): Promise<() => void> {
    this.log.push(`sent ${jobs.map((j) => j.id).join(",")}`);
    await new Promise<void>((end) => this.inFlight.push(end));
    return () => {
      this.log.push(`acknowledged ${jobs.map((j) => j.id).join(",")}`);
      for (const job of jobs) job.done();
    };
  }
}

const turn = () => new Promise((r) => setImmediate(r));

test("a group is acknowledged only after the next group's statement was called, on a later turn, and groups in order", async () => {
  const q = new Recorded();
  const first = q.submit(1);
  await turn();
  const rest = [q.submit(2), q.submit(3)];
  q.inFlight.shift()!();
  // Bun's client sends a statement when the turn that called it ends: the answers wait for that.
  for (let i = 0; i < 20; i++) await Promise.resolve();
  expect(q.log).toEqual(["sent 1", "sent 2,3"]);
  await turn();
  expect(q.log).toEqual(["sent 1", "sent 2,3", "acknowledged 1"]);
  await first;
  q.inFlight.shift()!();
  await Promise.all(rest);
  expect(q.log).toEqual(["sent 1", "sent 2,3", "acknowledged 1", "acknowledged 2,3"]);
  await q.drain();
});

test("a group with none behind it is acknowledged as soon as it ends", async () => {
  const q = new Recorded();
  const one = q.submit(1);
  await turn();
  q.inFlight.shift()!();
  // No turn of the event loop: a lone write (1 × 1) waits for nothing more than before.
  for (let i = 0; i < 20; i++) await Promise.resolve();
  expect(q.log).toEqual(["sent 1", "acknowledged 1"]);
  await one;
});

test("a write submitted in any microtask after a group ends is run, not left behind a queue that stopped", async () => {
  for (let depth = 0; depth < 12; depth++) {
    const q = new Recorded();
    const first = q.submit(1);
    await turn();
    let second: Promise<void> | undefined;
    const submitAfter = (n: number): void => queueMicrotask(() => (n === 0 ? void (second = q.submit(2)) : submitAfter(n - 1)));
    q.inFlight.shift()!();
    submitAfter(depth);
    await first;
    for (let i = 0; i < 5 && !second; i++) await turn();
    for (let i = 0; i < 20 && q.inFlight.length === 0; i++) await turn();
    expect(q.inFlight.length).toBe(1);
    q.inFlight.shift()!();
    await second;
    expect(q.log.filter((l) => l.startsWith("sent"))).toEqual(["sent 1", "sent 2"]);
  }
});

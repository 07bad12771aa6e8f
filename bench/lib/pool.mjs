// Run a workload's load-generating part in worker threads, so the main thread stays free to
// drive phases and sample CPU. Phases are shared through a SharedArrayBuffer:
//   -1 hold (connect, then report ready), 0 warm-up (run, do not record), 1 measure, 2 stop.
import { Worker } from "node:worker_threads";
import { cpuMeter } from "./proc.mjs";
import { sleep } from "./stats.mjs";

export const PHASE = { HOLD: -1, WARMUP: 0, MEASURE: 1, STOP: 2 };

export class Phases {
  // Slot 0 is the phase; slots 1.. are counters a workload may use (Atomics.add).
  constructor(sab = new SharedArrayBuffer(16)) {
    this.sab = sab;
    this.i32 = new Int32Array(sab);
  }
  get() {
    return Atomics.load(this.i32, 0);
  }
  set(v) {
    Atomics.store(this.i32, 0, v);
  }
  add(slot, n) {
    Atomics.add(this.i32, slot, n);
  }
  counter(slot) {
    return Atomics.load(this.i32, slot);
  }
  async atLeast(v) {
    while (this.get() < v) await sleep(1);
  }
}

/**
 * Start `parts` workers running `fn` from `modulePath` with (params, ctx), where
 * ctx = { index, parts, phases: Phases, ready() }.
 * Returns { phases, ready: Promise<void> (all workers connected), done: Promise<results[]> }.
 */
export function startParts(modulePath, fn, paramsFor, parts) {
  const phases = new Phases();
  phases.set(PHASE.HOLD);
  const workers = [];
  const readies = [];
  const results = [];
  for (let index = 0; index < parts; index++) {
    const w = new Worker(new URL("./worker.mjs", import.meta.url), {
      workerData: { module: modulePath, fn, params: paramsFor(index), index, parts, sab: phases.sab },
    });
    workers.push(w);
    let readyResolve;
    readies.push(new Promise((r) => (readyResolve = r)));
    results.push(
      new Promise((resolve, reject) => {
        w.on("message", (m) => {
          if (m.type === "ready") readyResolve();
          else if (m.type === "result") resolve(m.result);
          else if (m.type === "error") reject(new Error(`worker ${index}: ${m.error}`));
        });
        w.on("error", reject);
        w.on("exit", (code) => reject(new Error(`worker ${index} exited with ${code} before a result`)));
      }),
    );
  }
  const done = Promise.all(results).finally(() => Promise.all(workers.map((w) => w.terminate())));
  // If a worker fails before it is ready, surface that instead of waiting forever.
  const ready = Promise.race([Promise.all(readies), done.then(() => {})]);
  return { phases, ready, done };
}

/**
 * The timed window of a closed-loop workload whose parts `startParts` started: once every part is
 * connected, `p.warmupMs` unmeasured, then up to `p.durationMs` measured (a part also stops at its
 * request cap). Returns the server's CPU over the window, its RSS before and after, and the parts' results.
 */
export async function measureWindow(server, p, { phases, ready, done }) {
  await ready;
  phases.set(PHASE.WARMUP);
  await sleep(p.warmupMs);
  const meter = cpuMeter(server.cpuPids());
  const rss0 = server.rssKiB();
  phases.set(PHASE.MEASURE);
  await Promise.race([sleep(p.durationMs), done]);
  phases.set(PHASE.STOP);
  const cpu = meter();
  const rss1 = server.rssKiB();
  return { cpu, rss0, rss1, parts: await done };
}

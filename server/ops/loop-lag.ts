// Event-loop lag: a timer asks to run every `intervalMs`, and how late it runs is how long the
// loop was busy with something else. A request that blocks the loop (a huge listing, a slow
// synchronous write) shows up here before it shows up anywhere else.

import { Histogram } from "./metrics";

/** Seconds: from a healthy loop's sub-millisecond lag to one that stalls every request. */
export const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class LoopLagMonitor {
  readonly histogram = new Histogram(LAG_BUCKETS);
  /** The latest sample, in seconds. */
  last = 0;
  /** The most recent samples, newest last, for the worst lag of the last few seconds. */
  private readonly recent: number[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly intervalMs = 100,
    private readonly window = 100,
  ) {}

  start(): this {
    this.schedule();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The worst lag in the window (the last `window` samples: 10 s at the default interval), in seconds. */
  get max(): number {
    return this.recent.reduce((a, b) => Math.max(a, b), 0);
  }

  private schedule(): void {
    const due = performance.now() + this.intervalMs;
    this.timer = setTimeout(() => {
      this.record(Math.max(0, performance.now() - due) / 1000);
      this.schedule();
    }, this.intervalMs);
    // It must never be what keeps the process alive.
    this.timer.unref();
  }

  private record(seconds: number): void {
    this.last = seconds;
    this.histogram.observe(seconds);
    this.recent.push(seconds);
    if (this.recent.length > this.window) this.recent.shift();
  }
}

// Latency samples (milliseconds) kept exactly in a growable Float64Array; percentiles by sort.
// Cases are bounded in time and requests, so the sample count is bounded too.
export class Samples {
  constructor(initial = 4096) {
    this.a = new Float64Array(initial);
    this.n = 0;
  }
  add(v) {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  /** A compact copy suitable for postMessage. */
  export() {
    return this.a.slice(0, this.n);
  }
  static merge(arrays) {
    const s = new Samples(Math.max(16, arrays.reduce((t, a) => t + a.length, 0)));
    for (const a of arrays) {
      s.a.set(a, s.n);
      s.n += a.length;
    }
    return s;
  }
  summary() {
    const v = this.a.slice(0, this.n).sort();
    const q = (p) => (v.length ? v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)] : NaN);
    let sum = 0;
    for (const x of v) sum += x;
    return { n: v.length, mean: v.length ? sum / v.length : NaN, p50: q(0.5), p90: q(0.9), p99: q(0.99), p999: q(0.999), max: v.length ? v[v.length - 1] : NaN };
  }
}

/** The named counters summed over the workers' results, with `capped` and the error samples pooled. */
export function totals(parts, counters) {
  const sum = Object.fromEntries(counters.map((k) => [k, 0]));
  const errorSamples = [];
  for (const r of parts) {
    for (const k of counters) sum[k] += r[k];
    errorSamples.push(...r.errorSamples);
  }
  return { ...sum, capped: parts.some((r) => r.capped), errorSamples };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Microseconds since the epoch, comparable across the threads of this process (checked to
 * about 1 µs under Node and Bun). process.hrtime is not: under Bun each thread has its own base.
 */
export const nowUs = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

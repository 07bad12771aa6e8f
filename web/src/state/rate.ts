// Append rate from successive samples of (time, message count, tail bytes). The stream page
// polls the introspection API and feeds it; the sparkline draws `points`.

export interface RateSample {
  t: number;
  count: number;
  bytes: number;
}

export interface RatePoint {
  t: number;
  perSec: number;
  bytesPerSec: number;
}

export function ratesFrom(samples: RateSample[]): RatePoint[] {
  const out: RatePoint[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    const dt = (b.t - a.t) / 1000;
    if (dt <= 0) continue;
    out.push({ t: b.t, perSec: Math.max(0, b.count - a.count) / dt, bytesPerSec: Math.max(0, b.bytes - a.bytes) / dt });
  }
  return out;
}

export class RateWindow {
  private samples: RateSample[] = [];
  constructor(private readonly capacity = 61) {}

  /** A count that went down means a new incarnation: the history no longer applies. */
  add(s: RateSample): RatePoint[] {
    const last = this.samples[this.samples.length - 1];
    if (last && (s.count < last.count || s.bytes < last.bytes)) this.samples = [];
    this.samples.push(s);
    if (this.samples.length > this.capacity) this.samples.shift();
    return ratesFrom(this.samples);
  }
}

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

export interface RateSummary {
  average: number;
  now: number;
  peak: number;
  peakAgoS: number;
  spanS: number;
  bytesPerSec: number;
}

/** The headline of the rate panel: the window's average (what the sparkline shows), now and the peak. */
export function summarizeRates(points: RatePoint[], now = Date.now()): RateSummary | null {
  if (points.length === 0) return null;
  const span = (points[points.length - 1]!.t - (points[0]!.t - 1000)) / 1000;
  const sum = points.reduce((s, p) => s + p.perSec, 0);
  const peak = points.reduce((best, p) => (p.perSec > best.perSec ? p : best), points[0]!);
  return {
    average: sum / points.length,
    now: points[points.length - 1]!.perSec,
    peak: peak.perSec,
    peakAgoS: Math.max(0, Math.round((now - peak.t) / 1000)),
    spanS: Math.round(span),
    bytesPerSec: points.reduce((s, p) => s + p.bytesPerSec, 0) / points.length,
  };
}

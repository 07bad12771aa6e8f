// The Prometheus text exposition format (version 0.0.4), by hand: a counter is a number, a
// histogram a fixed array of bucket counts, so what the hot path pays is an addition or two.
// No library: prom-client's label lookups cost a Map and a string join per observation.

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export class Histogram {
  /** Per bucket, not cumulative: observe() adds to one slot; render() sums. */
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }

  /** Cumulative counts per upper bound, then +Inf, as the format has them. */
  snapshot(): { buckets: [string, number][]; sum: number; count: number } {
    let running = 0;
    const buckets: [string, number][] = this.bounds.map((bound, i) => [String(bound), (running += this.counts[i]!)]);
    buckets.push(["+Inf", this.count]);
    return { buckets, sum: this.sum, count: this.count };
  }
}

export type Labels = Record<string, string>;

/** Writes metric families one after the other, each with its HELP and TYPE lines. */
export class Exposition {
  private readonly lines: string[] = [];

  gauge(name: string, help: string, samples: [Labels, number][] | number): this {
    return this.family(name, help, "gauge", samples);
  }

  counter(name: string, help: string, samples: [Labels, number][] | number): this {
    return this.family(name, help, "counter", samples);
  }

  histogram(name: string, help: string, h: Histogram): this {
    const { buckets, sum, count } = h.snapshot();
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
    for (const [le, n] of buckets) this.lines.push(`${name}_bucket{le="${le}"} ${n}`);
    this.lines.push(`${name}_sum ${num(sum)}`, `${name}_count ${count}`);
    return this;
  }

  text(): string {
    return `${this.lines.join("\n")}\n`;
  }

  private family(name: string, help: string, type: string, samples: [Labels, number][] | number): this {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    if (typeof samples === "number") this.lines.push(`${name} ${num(samples)}`);
    else for (const [labels, value] of samples) this.lines.push(`${name}${labelText(labels)} ${num(value)}`);
    return this;
  }
}

const num = (v: number) => (Number.isFinite(v) ? String(v) : v > 0 ? "+Inf" : v < 0 ? "-Inf" : "NaN");

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

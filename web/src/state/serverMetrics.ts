// The server page's metrics: /__ursula/metrics scraped every few seconds; the append rate is a
// counter's increase between two scrapes over the time between them, commit latency the
// quantiles of the histogram buckets that filled in that time. A server without the endpoint
// answers 404, and the page says so.
import { batch, signal } from "@preact/signals";
import { appendCounter, bucketDelta, buckets, commitLatency, histogramQuantile, parsePrometheus, summaryQuantile, total, type Family } from "../api/metrics";

export interface Derived {
  /** Appends per second between the last two scrapes. */
  appendRate: number | null;
  /** Commit latency quantiles in seconds, over the same window (or since start for a summary). */
  p50: number | null;
  p99: number | null;
  windowMs: number;
  appendName?: string;
  latencyName?: string;
}

interface Scrape {
  at: number;
  families: Map<string, Family>;
}

export function derive(prev: Scrape | null, cur: Scrape): Derived {
  const counter = appendCounter(cur.families);
  const latency = commitLatency(cur.families);
  const windowMs = prev ? cur.at - prev.at : 0;
  let appendRate: number | null = null;
  if (counter && prev && windowMs > 0) {
    const before = prev.families.get(counter.name);
    const delta = total(counter) - (before ? total(before) : 0);
    appendRate = delta >= 0 ? (delta * 1000) / windowMs : null;
  }
  let p50: number | null = null;
  let p99: number | null = null;
  if (latency?.type === "histogram") {
    const before = prev?.families.get(latency.name);
    const b = before ? bucketDelta(buckets(before), buckets(latency)) : buckets(latency);
    p50 = histogramQuantile(0.5, b) ?? null;
    p99 = histogramQuantile(0.99, b) ?? null;
  } else if (latency?.type === "summary") {
    p50 = summaryQuantile(latency, 0.5) ?? null;
    p99 = summaryQuantile(latency, 0.99) ?? null;
  }
  return { appendRate, p50, p99, windowMs, appendName: counter?.name, latencyName: latency?.name };
}

type Fetch = () => Promise<{ ok: true; text: string; at: number } | { ok: false; status: number; message: string }>;

export class MetricsModel {
  readonly families = signal<Family[]>([]);
  readonly derived = signal<Derived | null>(null);
  /** null until the first scrape; false when the server has no metrics endpoint. */
  readonly available = signal<boolean | null>(null);
  readonly error = signal<string | null>(null);
  private last: Scrape | null = null;

  constructor(private readonly fetch: Fetch) {}

  async scrape(): Promise<void> {
    const r = await this.fetch();
    batch(() => {
      if (!r.ok) {
        this.available.value = r.status === 404 ? false : this.available.value;
        this.error.value = r.status === 404 ? null : `${r.status} ${r.message}`;
        return;
      }
      const cur = { at: r.at, families: parsePrometheus(r.text) };
      this.available.value = true;
      this.error.value = null;
      this.derived.value = derive(this.last, cur);
      this.families.value = [...cur.families.values()];
      this.last = cur;
    });
  }
}

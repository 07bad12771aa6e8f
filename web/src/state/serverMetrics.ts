// The server page's metrics: /__ursula/metrics scraped every few seconds. A rate is a counter's
// increase between two scrapes over the time between them; a latency is the quantiles of the
// histogram buckets that filled in that time (or, when nothing was committed in it, since the
// server started, and the page says so). Readiness comes from /__ursula/ready, which says why.
import { batch, signal } from "@preact/signals";
import { bucketDelta, buckets, histogramQuantile, labelled, METRIC, parsePrometheus, total, value, type Family } from "../api/metrics";
import type { MetricsResult, Readiness } from "../api/introspection";

export interface Latency {
  p50: number | null;
  p99: number | null;
  /** Observations the quantiles come from. */
  count: number;
  /** "window": between the last two scrapes; "start": since the server started (an idle window). */
  over: "window" | "start";
}

export interface Derived {
  windowMs: number;
  /** Null on the first scrape (a rate needs two) or when the counter is not exported. */
  messagesPerSec: number | null;
  bytesPerSec: number | null;
  /** Requests to streams and buckets (not the console's own), and those answered 4xx or 5xx. */
  requestsPerSec: number | null;
  errorRequestsPerSec: number | null;
  commit: Latency | null;
  sync: Latency | null;
  loopLag: Latency | null;
  loopLagMax: number | null;
  /** Writes per group-commit transaction, mean over the window (or since start). */
  writesPerCommit: number | null;
  sseReaders: number | null;
  longPollReaders: number | null;
  databaseBytes: number | null;
  walBytes: number | null;
  /** ursa_ready: 1 while /__ursula/ready answers 200. */
  ready: boolean | null;
  /** The families the page reads that this server does not export. */
  missing: string[];
}

export interface Scrape {
  at: number;
  families: Map<string, Family>;
}

function counterRate(prev: Scrape | null, cur: Scrape, name: string, windowMs: number, pick: (f: Family) => number = (f) => total(f)): number | null {
  const now = cur.families.get(name);
  if (!now || !prev || windowMs <= 0) return null;
  const before = prev.families.get(name);
  const delta = pick(now) - (before ? pick(before) : 0);
  // A decrease is a restarted server: no rate for this window.
  return delta >= 0 ? (delta * 1000) / windowMs : null;
}

function sampleOf(f: Family, suffix: "_sum" | "_count"): number {
  return total(f, f.name + suffix);
}

function latency(prev: Scrape | null, cur: Scrape, name: string): Latency | null {
  const f = cur.families.get(name);
  if (!f || f.type !== "histogram") return null;
  const now = buckets(f);
  const before = prev?.families.get(name);
  const window = before ? bucketDelta(buckets(before), now) : null;
  const windowCount = window?.[window.length - 1]?.[1] ?? 0;
  const use = window && windowCount > 0 ? window : now;
  return {
    p50: histogramQuantile(0.5, use) ?? null,
    p99: histogramQuantile(0.99, use) ?? null,
    count: use[use.length - 1]?.[1] ?? 0,
    over: window && windowCount > 0 ? "window" : "start",
  };
}

function meanPerObservation(prev: Scrape | null, cur: Scrape, name: string): number | null {
  const f = cur.families.get(name);
  if (!f) return null;
  const before = prev?.families.get(name);
  const dSum = sampleOf(f, "_sum") - (before ? sampleOf(before, "_sum") : 0);
  const dCount = sampleOf(f, "_count") - (before ? sampleOf(before, "_count") : 0);
  if (dCount > 0 && dSum >= 0) return dSum / dCount;
  const count = sampleOf(f, "_count");
  return count > 0 ? sampleOf(f, "_sum") / count : null;
}

/** Requests to streams and buckets: the console's own polling (/__ursula/…, /ui/) is left out. */
const dataPlane = (f: Family) => f.samples.filter((s) => s.labels.family !== "admin" && s.labels.family !== "console");
const dataRequests = (f: Family) => dataPlane(f).reduce((n, s) => n + s.value, 0);
const errorRequests = (f: Family) => dataPlane(f).filter((s) => Number(s.labels.status) >= 400).reduce((n, s) => n + s.value, 0);

export function derive(prev: Scrape | null, cur: Scrape): Derived {
  const windowMs = prev ? cur.at - prev.at : 0;
  const f = cur.families;
  const ready = value(f, METRIC.ready);
  return {
    windowMs,
    messagesPerSec: counterRate(prev, cur, METRIC.appendedMessages, windowMs),
    bytesPerSec: counterRate(prev, cur, METRIC.appendedBytes, windowMs),
    requestsPerSec: counterRate(prev, cur, METRIC.requests, windowMs, dataRequests),
    errorRequestsPerSec: counterRate(prev, cur, METRIC.requests, windowMs, errorRequests),
    commit: latency(prev, cur, METRIC.commitSeconds),
    sync: latency(prev, cur, METRIC.syncSeconds),
    loopLag: latency(prev, cur, METRIC.loopLag),
    loopLagMax: value(f, METRIC.loopLagMax),
    writesPerCommit: meanPerObservation(prev, cur, METRIC.batchWrites),
    sseReaders: labelled(f, METRIC.liveReaders, { kind: "sse" }),
    longPollReaders: labelled(f, METRIC.liveReaders, { kind: "long_poll" }),
    databaseBytes: value(f, METRIC.databaseBytes),
    walBytes: value(f, METRIC.walBytes),
    ready: ready === null ? null : ready === 1,
    missing: Object.values(METRIC).filter((name) => !f.has(name)),
  };
}

type Fetch = () => Promise<MetricsResult>;

export class MetricsModel {
  readonly families = signal<Family[]>([]);
  readonly derived = signal<Derived | null>(null);
  /** null until the first scrape; false when the server has no metrics endpoint. */
  readonly available = signal<boolean | null>(null);
  /** Why the last scrape failed (a 403 for a token limited to buckets, a network error…). */
  readonly error = signal<{ status: number; code?: string; message: string } | null>(null);
  readonly readiness = signal<Readiness | null>(null);
  private last: Scrape | null = null;

  constructor(
    private readonly fetch: Fetch,
    private readonly fetchReadiness: () => Promise<Readiness>,
  ) {}

  async scrape(): Promise<void> {
    const [r, ready] = await Promise.all([this.fetch(), this.fetchReadiness()]);
    batch(() => {
      this.readiness.value = ready;
      if (!r.ok) {
        this.available.value = r.status === 404 ? false : this.available.value;
        this.error.value = r.status === 404 ? null : { status: r.status, code: r.code, message: r.message };
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

// The server's metrics in the Prometheus text format (/__ursula/metrics), parsed for the server
// page: rates from a counter's increase between two scrapes, latencies from the histogram buckets
// that filled in that time. The names are ursa's own (server/ops/server-metrics.ts).

/** The families the server page reads, by what they measure. */
export const METRIC = {
  appendedMessages: "ursa_appended_messages_total",
  appendedBytes: "ursa_appended_bytes_total",
  commitSeconds: "ursa_group_commit_commit_seconds",
  syncSeconds: "ursa_group_commit_sync_seconds",
  batchWrites: "ursa_group_commit_batch_writes",
  requests: "ursa_http_requests_total",
  liveReaders: "ursa_live_readers",
  loopLag: "ursa_event_loop_lag_seconds",
  loopLagMax: "ursa_event_loop_lag_max_seconds",
  databaseBytes: "ursa_database_bytes",
  walBytes: "ursa_wal_bytes",
  ready: "ursa_ready",
} as const;

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseValue(raw: string): number {
  if (raw === "+Inf") return Infinity;
  if (raw === "-Inf") return -Infinity;
  return Number(raw);
}

/** Families by name. A histogram's _bucket, _sum and _count samples belong to its family. */
export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: "untyped", help: "", samples: [] }));
    return f;
  };
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "") continue;
    if (t.startsWith("#")) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)\s*(.*)$/.exec(t);
      if (!m) continue;
      const f = family(m[2]!);
      if (m[1] === "HELP") f.help = m[3]!.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      else if (["counter", "gauge", "histogram", "summary", "untyped"].includes(m[3]!)) f.type = m[3] as Family["type"];
      continue;
    }
    const m = SAMPLE.exec(t);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
    const name = m[1]!;
    const base = name.replace(/_(bucket|sum|count)$/, "");
    const owner = base !== name && families.get(base) && ["histogram", "summary"].includes(families.get(base)!.type) ? base : name;
    family(owner).samples.push({ name, labels, value: parseValue(m[3]!) });
  }
  return families;
}

/** The sum of a family's samples named `name` (all label sets). */
export function total(f: Family, name = f.name): number {
  return f.samples.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
}

/** The value of a gauge or counter family (all label sets summed), or null when it is not exported. */
export function value(families: Map<string, Family>, name: string): number | null {
  const f = families.get(name);
  return f && f.samples.length ? total(f) : null;
}

/** One sample's value by its labels, e.g. the SSE readers of ursa_live_readers{kind="sse"}. */
export function labelled(families: Map<string, Family>, name: string, labels: Record<string, string>): number | null {
  const s = families.get(name)?.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s ? s.value : null;
}

/** Cumulative bucket counts by upper bound, summed over label sets other than `le`. */
export function buckets(f: Family): [le: number, count: number][] {
  const byLe = new Map<number, number>();
  for (const s of f.samples) {
    if (!s.name.endsWith("_bucket") || s.labels.le === undefined) continue;
    const le = parseValue(s.labels.le);
    byLe.set(le, (byLe.get(le) ?? 0) + s.value);
  }
  return [...byLe].sort((a, b) => a[0] - b[0]);
}

/** Bucket counts that accrued between two scrapes (a counter reset starts over from `now`). */
export function bucketDelta(before: [number, number][], now: [number, number][]): [number, number][] {
  const prev = new Map(before);
  const delta = now.map(([le, c]) => [le, c - (prev.get(le) ?? 0)] as [number, number]);
  return delta.some(([, c]) => c < 0) ? now : delta;
}

/** Prometheus's histogram_quantile: linear within the bucket that holds the rank. */
export function histogramQuantile(q: number, cumulative: [number, number][]): number | undefined {
  const count = cumulative[cumulative.length - 1]?.[1] ?? 0;
  if (count === 0) return undefined;
  const rank = q * count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, c] of cumulative) {
    if (c >= rank) {
      if (le === Infinity) return lowerBound;
      return lowerBound + (le - lowerBound) * ((rank - lowerCount) / Math.max(1, c - lowerCount));
    }
    lowerBound = le;
    lowerCount = c;
  }
  return lowerBound;
}

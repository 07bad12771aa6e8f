// The server's metrics in the Prometheus text format (/__ursula/metrics), parsed for the server
// page: the append rate from a counter's increase between two scrapes, commit latency from a
// histogram's buckets (or a summary's quantiles). Names are looked up by what they measure, so
// the page keeps working if the exporter adds or renames a prefix.

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

function find(families: Map<string, Family>, preferred: string, matches: (f: Family) => boolean): Family | undefined {
  return families.get(preferred) ?? [...families.values()].find(matches);
}

export function appendCounter(families: Map<string, Family>): Family | undefined {
  return find(families, "ursa_appends_total", (f) => f.type === "counter" && /append/i.test(f.name) && !/byte/i.test(f.name));
}

export function commitLatency(families: Map<string, Family>): Family | undefined {
  return find(families, "ursa_commit_duration_seconds", (f) => (f.type === "histogram" || f.type === "summary") && /commit/i.test(f.name));
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

/** A summary's quantile sample (e.g. 0.99), summed over label sets; undefined if it has none. */
export function summaryQuantile(f: Family, q: number): number | undefined {
  const s = f.samples.filter((x) => x.name === f.name && x.labels.quantile !== undefined && Number(x.labels.quantile) === q);
  return s.length ? Math.max(...s.map((x) => x.value)) : undefined;
}

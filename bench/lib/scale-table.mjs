// Issue 21's scale table: one row per figure the issue bounds, one column per size, so the 10k,
// 100k and 1M runs read side by side (the wide scale table above has one row per size).

const f = (d) => (x) => (x == null || !Number.isFinite(x) ? "-" : x.toFixed(d));
const int = (x) => (x == null || !Number.isFinite(x) ? "-" : Math.round(x).toLocaleString("en-US"));

const ROWS = [
  ["restart to the first 200, ms", "≤ 1,000", (m) => f(0)(m.restartMs)],
  ["idle RSS after restart, MiB", "≤ 300", (m) => f(0)(m.rssIdleMiB)],
  ["listing page of 1,000, first position, ms (min)", "≤ 5", (m) => `${f(2)(m.firstPageMs)} (${f(2)(m.firstPageMinMs)})`],
  ["listing page of 1,000, last position, ms (min)", "≤ 5", (m) => `${f(2)(m.lastPageMs)} (${f(2)(m.lastPageMinMs)})`],
  ["  CPU per timed page, ms: server / client", "", (m) => `${f(2)(m.pageServerCpuMs)} / ${f(2)(m.pageClientCpuMs)}`],
  ["creates/s, last tenth of the fill (whole fill)", "≥ 5,000", (m) => `${int(m.createPerSAtSize)} (${int(m.createPerS)})`],
  ["catch-up MB/s, cold, 64 KiB messages", "report", (m) => f(0)(m.catchupMBps)],
  ["HEAD p99 ms under forks, listings, JSON pages, catch-ups", "≤ 20", (m) => f(2)(m.headP99)],
  ["  HEAD max ms / server's loop lag max ms", "", (m) => `${f(1)(m.headMax)} / ${f(1)(m.loopLagMaxMs)}`],
  ["HEAD p99 ms under 8 parallel listings", "", (m) => f(2)(m.headWhileListingP99)],
  ["other processes' CPU during the load, % of a core", "", (m) => `${f(0)(m.otherCpuPct)}%`],
];

/** Columns are the scale cases in `bests` (ursa only), smallest first; null when there are none. */
export function scaleTable(bests, renderTable, md) {
  const cases = bests.filter((b) => b.workload === "scale" && b.metrics).sort((a, b) => a.metrics.streams - b.metrics.streams);
  if (cases.length === 0) return null;
  const headers = ["figure", ...cases.map((b) => `${b.case.split("/")[1]} streams${cases.some((c) => c.server !== b.server) ? ` (${b.server})` : ""}`), "target"];
  return renderTable(headers, ROWS.map(([name, target, fn]) => [name, ...cases.map((b) => fn(b.metrics)), target]), md);
}

// Tables for the terminal and for RESULTS.md, from best-of-rounds results.
import { BUSY_PCT, STALL_PCT, STEAL_PCT } from "./bench.mjs";
import { scaleTable } from "./scale-table.mjs";
import { SERVER_KINDS } from "./servers.mjs";

const f = (d) => (x) => (x == null || !Number.isFinite(x) ? "-" : x.toFixed(d));
const int = (x) => (x == null || !Number.isFinite(x) ? "-" : Math.round(x).toLocaleString("en-US"));
const pct = (x) => (x == null || !Number.isFinite(x) ? "-" : `${(100 * x).toFixed(1)}%`);
const times = (x) => (x == null || !Number.isFinite(x) ? "-" : `${x.toFixed(2)}×`);
const label = (kind) => SERVER_KINDS[kind]?.label ?? kind;
/** A CPU share column: server, client, other processes, or the host's steal. */
const cpuColumn = (name, metric) => [name, (b, m) => `${f(0)(m[metric])}%`];

function relTo(bests, b, server, metric) {
  const o = bests.find((x) => x.case === b.case && x.server === server && x.metrics);
  return o && b.metrics ? b.metrics[metric] / o.metrics[metric] : null;
}

const COLUMNS = {
  append: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["appends/s", (b, m) => int(m.appendsPerS)],
    ["p50 ms", (b, m) => f(2)(m.p50)],
    ["p99 ms", (b, m) => f(2)(m.p99)],
    ["p999 ms", (b, m) => f(2)(m.p999)],
    ["non-2xx", (b, m) => String(m.non2xx + m.errors)],
    ["srv µs/append", (b, m) => f(1)(m.serverCpuUsPerAppend)],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("client CPU", "clientCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
    ["vs ref mem", (b, m, all) => times(relTo(all, b, "ref-mem", "appendsPerS"))],
    ["vs ref file", (b, m, all) => times(relTo(all, b, "ref-file", "appendsPerS"))],
    ["of ceiling", (b, m, all) => pct(relTo(all, b, "ceiling", "appendsPerS"))],
  ],
  cas: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["commits/s", (b, m) => int(m.commitsPerS)],
    ["409 rate", (b, m) => pct(m.conflictRate)],
    ["p50 ms", (b, m) => f(2)(m.p50)],
    ["p99 ms", (b, m) => f(2)(m.p99)],
    ["log verified", (b, m) => (m.verified ? `yes (${int(m.verify.commits)} commits)` : `NO: ${m.verify.problems[0]}`)],
    ["errors", (b, m) => String(m.errors)],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
    ["vs ref mem", (b, m, all) => times(relTo(all, b, "ref-mem", "commitsPerS"))],
  ],
  sse: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["p50 ms", (b, m) => f(2)(m.p50)],
    ["p99 ms", (b, m) => f(2)(m.p99)],
    ["p999 ms", (b, m) => f(2)(m.p999)],
    ["max ms", (b, m) => f(1)(m.max)],
    ["writer ev/s", (b, m) => f(1)(m.writerRate)],
    ["held", (b, m) => (m.writerHeld ? "yes" : "NO")],
    ["missing", (b, m) => String(m.missing)],
    ["errors", (b, m) => String(m.errors + m.endedEarly)],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("client CPU", "clientCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
    ["p99 vs ceiling", (b, m, all) => times(relTo(all, b, "ceiling", "p99"))],
  ],
  catchup: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["MB/s", (b, m) => f(0)(m.MBps)],
    ["responses", (b, m) => String(m.responses)],
    ["largest response", (b, m) => `${f(1)(m.maxResponseBytes / 2 ** 20)} MiB`],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
    ["fill MB/s", (b, m) => f(0)(m.fillMBps)],
    ["vs ref mem", (b, m, all) => times(relTo(all, b, "ref-mem", "MBps"))],
    ["of ceiling", (b, m, all) => pct(relTo(all, b, "ceiling", "MBps"))],
  ],
  longpoll: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["p50 ms", (b, m) => f(2)(m.p50)],
    ["p99 ms", (b, m) => f(2)(m.p99)],
    ["p999 ms", (b, m) => f(2)(m.p999)],
    ["max ms", (b, m) => f(2)(m.max)],
    ["wake-ups", (b, m) => int(m.wakeups)],
    ["timeouts", (b, m) => String(m.timeouts)],
    ["errors", (b, m) => String(m.errors + m.wrongOffset)],
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
    ["p99 vs ceiling", (b, m, all) => times(relTo(all, b, "ceiling", "p99"))],
  ],
  "append-batch": [
    ["case", (b) => b.case],
    ["server", (b) => `${label(b.server)}${b.metrics?.framed ? ", append-batch" : b.metrics?.perRequest > 1 ? ", JSON arrays" : ""}`],
    ["messages/s", (b, m) => int(m.messagesPerS)],
    ["requests/s", (b, m) => int(m.requestsPerS)],
    ["p50 ms", (b, m) => f(2)(m.p50)],
    ["p99 ms", (b, m) => f(2)(m.p99)],
    ["srv µs/msg", (b, m) => f(2)(m.serverCpuUsPerMessage)],
    ["verified", (b, m) => (m.verified ? "yes" : `NO: ${m.verify.problems[0]}`)],
    ["errors", (b, m) => String(m.non2xx + m.errors + m.badAcks)],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("client CPU", "clientCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
    ["vs ref mem", (b, m, all) => times(relTo(all, b, "ref-mem", "messagesPerS"))],
  ],
  bootstrap: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["MB/s", (b, m) => f(0)(m.MBps)],
    ["reads MB/s", (b, m) => m.allMBps.map(f(0)).join(", ")],
    ["answer MiB", (b, m) => f(1)(m.bytes / 2 ** 20)],
    ["RSS growth MiB (each read)", (b, m) => m.allRssGrowthMiB.map(f(1)).join(", ")],
    ["verified", (b, m) => (m.verified ? "yes" : `NO: ${m.verify.problems[0]}`)],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("client CPU", "clientCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
  ],
  scale: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["creates/s (last tenth)", (b, m) => int(m.createPerSAtSize)],
    ["restart ms", (b, m) => f(0)(m.restartMs)],
    ["idle RSS MiB", (b, m) => f(0)(m.rssIdleMiB)],
    ["first page ms (min)", (b, m) => `${f(2)(m.firstPageMs)} (${f(2)(m.firstPageMinMs)})`],
    ["last page ms (min)", (b, m) => `${f(2)(m.lastPageMs)} (${f(2)(m.lastPageMinMs)})`],
    ["page CPU ms srv/client", (b, m) => `${f(2)(m.pageServerCpuMs)}/${f(2)(m.pageClientCpuMs)}`],
    ["HEAD p99 ms, 8 listings", (b, m) => f(2)(m.headWhileListingP99)],
    ["catch-up MB/s", (b, m) => f(0)(m.catchupMBps)],
    ["HEAD p99 ms under load", (b, m) => f(2)(m.headP99)],
    ["HEAD max ms", (b, m) => f(1)(m.headMax)],
    ["loop lag max ms", (b, m) => f(1)(m.loopLagMaxMs)],
    ["forks/lists/JSON pages/catch-ups", (b, m) => `${m.forks}/${m.listings}/${m.jsonPages}/${m.catchups}`],
    ["errors", (b, m) => String(m.errors)],
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
  ],
  fork: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["slowest fork ms", (b, m) => f(1)(m.forkMs)],
    ["median fork ms", (b, m) => f(1)(m.forkMedianMs)],
    ["plain create ms", (b, m) => f(1)(m.createMs)],
    ["slowest HEAD meanwhile ms", (b, m) => f(1)(m.headMaxMs)],
    ["disk growth MiB", (b, m) => f(1)(m.forkGrowthMiB)],
    ["slowest fork DELETE ms", (b, m) => f(1)(m.deleteMs)],
  ],
  abuse: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["write p50 ms", (b, m) => f(2)(m.p50)],
    ["write p99 ms", (b, m) => f(2)(m.p99)],
    ["write max ms", (b, m) => f(1)(m.max)],
    ["writes", (b, m) => int(m.writes)],
    ["write errors", (b, m) => String(m.errors)],
    ["attack answers", (b, m) => Object.entries(m.attackAnswers).map(([k, v]) => `${k}×${v}`).join(" ") || "—"],
    cpuColumn("srv CPU", "serverCpuPct"),
    cpuColumn("other CPU", "otherCpuPct"),
    cpuColumn("steal", "stealPct"),
  ],
  churn: [
    ["case", (b) => b.case],
    ["server", (b) => label(b.server)],
    ["cycles", (b, m) => int(m.cycles)],
    ["cycles/s", (b, m) => int(m.cyclesPerS)],
    ["RSS MiB (baseline → each quarter)", (b, m) => m.rssSeriesMiB.join(" → ")],
    ["growth MiB", (b, m) => f(1)(m.rssGrowthMiB)],
    ["flat", (b, m) => (m.flat ? "yes" : "NO")],
    ["errors", (b, m) => String(m.errors)],
  ],
};

const TITLES = {
  append: "append (closed-loop writers; best of rounds by appends/s)",
  cas: "cas (prefix-count Stream-Seq recipe; best of rounds by commits/s)",
  sse: "sse (one writer at 50 events/s; delivery latency; best of rounds by p99)",
  catchup: "catchup (read from -1 following Stream-Next-Offset; best read)",
  longpoll: "longpoll (wake-up latency from append send to response; best of rounds by p99)",
  churn: "churn (delete + recreate streams in a loop; server RSS)",
  scale: "scale (N streams in one bucket: create rate, listing pages, restart, idle RSS, catch-up, HEAD p99 while forks, listings, JSON pages and catch-ups run)",
  "append-batch": "append-batch (100 B JSON messages, closed-loop writers; best of rounds by messages/s)",
  bootstrap: "bootstrap (one multipart answer: snapshot + messages; best read, peak server RSS growth)",
  abuse: "abuse (one client attacks from 127.0.0.2 while another appends every 20 ms from 127.0.0.1; best of rounds by the writer's p99)",
  fork: "fork (forks at the tail and the middle of a filled stream, HEADs on another stream meanwhile; best of rounds by the slowest fork)",
};

export function renderTable(headers, rows, md) {
  if (md) {
    const esc = (s) => String(s).replace(/\|/g, "\\|");
    return [`| ${headers.map(esc).join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`)].join("\n");
  }
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(w[i])).join("  ").trimEnd();
  return [line(headers), w.map((n) => "-".repeat(n)).join("  "), ...rows.map(line)].join("\n");
}

/** All result tables plus the targets table, as text or markdown. */
export function renderReport({ bests, targets, skippedServers, runs }, { md = false } = {}) {
  const out = [];
  const h = (t) => out.push(md ? `### ${t}\n` : `\n== ${t}`);
  for (const wl of Object.keys(COLUMNS)) {
    const rows = bests.filter((b) => b.workload === wl);
    if (!rows.length) continue;
    h(TITLES[wl]);
    const cols = COLUMNS[wl];
    const body = rows.map((b) =>
      b.metrics ? cols.map(([, fn]) => fn(b, b.metrics, bests)) : [b.case, label(b.server), `FAILED: ${String(b.error).split("\n")[0].slice(0, 100)}`, ...cols.slice(3).map(() => "")],
    );
    out.push(renderTable(cols.map(([n]) => n), body, md));
    if (md) out.push("");
  }
  const scale = scaleTable(bests, renderTable, md);
  if (scale) {
    h("issue 21's scale table (one column per size)");
    out.push(scale);
    if (md) out.push("");
  }
  if (targets.length) {
    h("targets (ursa durable --sync full vs reference in memory, best of rounds)");
    const fmt = (v) => (v == null ? "-" : typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : String(v));
    out.push(
      renderTable(
        ["case", "target", "value", "threshold", "result"],
        targets.map((t) => [t.case, t.target, fmt(t.value) + (t.note ? ` (${t.note})` : ""), fmt(t.threshold), t.pass == null ? "n/a" : t.pass ? "PASS" : "FAIL"]),
        md,
      ),
    );
  }
  const busy = (runs ?? []).filter((r) => r.disturbance);
  if (busy.length) {
    const dirty = bests.filter((b) => b.onlyDisturbed);
    // Counted, not assumed: a re-rendered run (--from-jsonl) may call runs disturbed that were not rerun then.
    const reruns = runs.filter((r) => r.attempt > 0).length;
    out.push(
      `\n${busy.length} run(s) were disturbed (other processes over ${BUSY_PCT}% of a core, the host taking over ${STEAL_PCT}% of a core, or an append run that kept neither server nor client over ${STALL_PCT}%); ${reruns} rerun(s) were made, and best-of prefers clean runs.` +
        (dirty.length
          ? ` Only disturbed runs exist for: ${dirty.map((b) => `${b.case} ${b.server} (${b.disturbance})`).join("; ")}. Treat those figures as suspect.`
          : " Every figure above comes from an undisturbed run."),
    );
  }
  if (skippedServers?.length) out.push(`${md ? "\n" : "\n"}Skipped (not available): ${skippedServers.join(", ")}`);
  return out.join("\n");
}

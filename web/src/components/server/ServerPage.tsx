// This server: what it runs, how durable its writes are, how long it has been up, what it
// holds, who is reading live, whether it takes writes (/__ursula/ready); and, from
// /__ursula/metrics, the append rate, commit and sync latency, and the rest of its metrics.
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { fetchMetrics, fetchReadiness, introspection, type Readiness as ReadinessResult, type ServerInfo } from "../../api/introspection";
import { METRIC, total } from "../../api/metrics";
import { formatBytes } from "../../api/offsets";
import { Resource } from "../../state/resource";
import { whileVisible } from "../../state/poll";
import { MetricsModel, type Latency } from "../../state/serverMetrics";
import { count, dateTime, duration, rate } from "../../format";
import { Panel } from "../common/Panel";

const POLL_MS = 2000;

function Fact({ label, field, children, sub, wide }: { label: string; field: string; children: ComponentChildren; sub?: string; wide?: boolean }) {
  return (
    <div class={`fact ${wide ? "wide" : ""}`}>
      <dt>{label}</dt>
      <dd>
        <span data-field={field}>{children}</span>
        {sub && <span class="sub">{sub}</span>}
      </dd>
    </div>
  );
}

function seconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return "—";
  return s < 0.001 ? `${(s * 1e6).toFixed(0)} µs` : s < 1 ? `${(s * 1000).toFixed(s < 0.01 ? 2 : 1)} ms` : `${s.toFixed(2)} s`;
}

function latencySub(name: string, l: Latency | null, what: string, none: string): string {
  if (!l) return `${name}: not exported`;
  if (l.count === 0) return `${name}: ${none}`;
  return `${name}: ${what}; ${l.count.toLocaleString("en-US")} ${l.over === "window" ? "in the last scrape window" : "since start (none in the last window)"}`;
}

const measuring = "— (measuring: a rate needs two scrapes)";

/** What each durability mode the server reports promises (README, Durability). */
const SYNC_MEANING: Record<string, string> = {
  full: "a write is acknowledged once it is on disk",
  normal: "survives a crash of ursa; may lose the last writes on power loss",
  memory: "nothing survives a restart",
  postgres: "a write is acknowledged once PostgreSQL has committed it",
};

function Metrics({ model, sync }: { model: MetricsModel; sync: string | undefined }) {
  const available = model.available.value;
  const err = model.error.value;
  const d = model.derived.value;
  if (err && !d) return <MetricsRefused status={err.status} code={err.code} message={err.message} />;
  if (available === null) return <p class="muted">Reading /__ursula/metrics…</p>;
  if (!available)
    return (
      <p class="muted" data-testid="no-metrics">
        This server exports no metrics (GET /__ursula/metrics answers 404).
      </p>
    );
  const window = `over the last ${((d?.windowMs || POLL_MS) / 1000).toFixed(0)} s`;
  return (
    <div class="stack">
      {d && d.missing.length > 0 && <div class="note warn small-line">Not exported by this server: {d.missing.join(", ")}.</div>}
      <dl class="facts metric-facts">
        <Fact label="Append rate" field="append_rate" sub={`${METRIC.appendedMessages} and ${METRIC.appendedBytes}, ${window}`}>
          {d?.messagesPerSec == null ? measuring : `${rate(d.messagesPerSec)} messages/s · ${formatBytes(Math.round(d.bytesPerSec ?? 0))}/s`}
        </Fact>
        <Fact label="Requests to streams and buckets" field="request_rate" sub={`${METRIC.requests}, without this console's own polling, ${window}`}>
          {d?.requestsPerSec == null ? measuring : `${rate(d.requestsPerSec)}/s · ${rate(d.errorRequestsPerSec ?? 0)}/s answered 4xx or 5xx`}
        </Fact>
        <Fact label="Commit latency p50 · p99" field="commit_latency" sub={latencySub(METRIC.commitSeconds, d?.commit ?? null, "BEGIN to COMMIT of each group commit", "no commit yet")}>
          {seconds(d?.commit?.p50)} · {seconds(d?.commit?.p99)}
        </Fact>
        <Fact
          label="Sync latency p50 · p99"
          field="sync_latency"
          sub={latencySub(METRIC.syncSeconds, d?.sync ?? null, "each sync of the write-ahead log", sync === "full" ? "no sync yet" : `none: sync mode ${sync ?? "?"} does not sync each commit`)}
        >
          {seconds(d?.sync?.p50)} · {seconds(d?.sync?.p99)}
        </Fact>
        <Fact label="Writes per commit" field="writes_per_commit" sub={`${METRIC.batchWrites}: writes group commit shared one transaction and one sync`}>
          {d?.writesPerCommit == null ? "—" : d.writesPerCommit.toFixed(1)}
        </Fact>
        <Fact label="Event-loop lag p99 · worst of 10 s" field="loop_lag" sub={`${METRIC.loopLag}: how late a 100 ms timer runs`}>
          {seconds(d?.loopLag?.p99)} · {seconds(d?.loopLagMax)}
        </Fact>
        <Fact label="Live readers (SSE · long-poll)" field="live_readers_metric" sub={METRIC.liveReaders}>
          {d?.sseReaders ?? "—"} · {d?.longPollReaders ?? "—"}
        </Fact>
        <Fact label="Database · WAL" field="database_bytes" sub={`${METRIC.databaseBytes} and ${METRIC.walBytes}`}>
          {d?.databaseBytes == null ? "—" : formatBytes(d.databaseBytes)} · {d?.walBytes == null ? "—" : formatBytes(d.walBytes)}
        </Fact>
      </dl>
      <details>
        <summary>Every metric ({model.families.value.length})</summary>
        <table aria-label="Metrics" class="card-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th class="right">Value</th>
              <th>What it measures</th>
            </tr>
          </thead>
          <tbody>
            {model.families.value.map((f) => (
              <tr key={f.name}>
                <td class="mono" data-label="Name">
                  {f.name}
                </td>
                <td data-label="Type">{f.type}</td>
                <td class="num mono right" data-label="Value">{f.type === "histogram" || f.type === "summary" ? `${total(f, `${f.name}_count`).toLocaleString("en-US")} observed` : total(f).toLocaleString("en-US")}</td>
                <td class="muted" data-label="What it measures">
                  {f.help}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

/** Metrics are server-wide: a token limited to buckets, or anonymous public reads, may not see them. */
function MetricsRefused({ status, code, message }: { status: number; code?: string; message: string }) {
  const text =
    status === 403
      ? "Metrics describe the whole server, so they need a token with the read scope on every bucket; this one is limited to some buckets or lacks read."
      : status === 401
        ? "Metrics need a token with the read scope: public reads cover buckets, not server-wide figures."
        : `Could not read metrics: ${status} ${message}`;
  return (
    <p class="muted" data-testid="metrics-refused" data-status={status}>
      {text} {code && <code>{code}</code>}
    </p>
  );
}

function Readiness({ r }: { r: ReadinessResult | null }) {
  if (!r) return <>…</>;
  if (r.ready === null) return <span class="error-text">unreachable: {r.message}</span>;
  return (
    <span class={r.ready ? "ok-text" : "error-text"} data-ready={r.ready}>
      {r.ready ? "ready" : `unready (${r.status})`}
    </span>
  );
}

export function ServerPage() {
  const info = useMemo(() => new Resource<ServerInfo, null>((_q, s) => introspection.info(s)), []);
  const metrics = useMemo(() => new MetricsModel(() => fetchMetrics(), () => fetchReadiness()), []);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = () => {
      void info.load(null);
      void metrics.scrape();
      setNow(Date.now());
    };
    tick();
    const stop = whileVisible(POLL_MS, tick);
    return () => {
      stop();
      info.dispose();
    };
  }, []);
  const d = info.data.value;
  const ready = metrics.readiness.value;
  const readySub = ready && ready.ready === false ? (ready.reason ?? "writes fail") : "the store is open and takes writes";
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Server</h1>
          <div class="sub">Refreshed every {POLL_MS / 1000} s.</div>
        </div>
      </div>
      <div class="stack">
        {info.error.value && <div class="note bad">Unreachable: {info.error.value.message}</div>}
        {d && (
          <Panel title="This server" flush>
            <dl class="facts server-facts">
              <Fact label="Version" field="version">
                {d.version}
              </Fact>
              <Fact label="Sync mode" field="sync" sub={SYNC_MEANING[d.sync] ?? SYNC_MEANING.normal}>
                {d.sync}
              </Fact>
              <Fact label="Up" field="uptime" sub={`since ${dateTime(d.started_at_ms)}`}>
                {duration(Math.max(0, Math.round((now - d.started_at_ms) / 1000)))}
              </Fact>
              <Fact label="Streams" field="streams">
                {count(d.streams)}
              </Fact>
              <Fact label="Buckets" field="buckets">
                {count(d.buckets)}
              </Fact>
              <Fact label="Live readers" field="live_readers" sub="long-poll and SSE connections now">
                {count(d.live_readers)}
              </Fact>
              <Fact label="Readiness (/__ursula/ready)" field="readiness" sub={readySub}>
                <Readiness r={ready} />
              </Fact>
              <Fact label="Data" field="data_path" wide sub={d.data_path === null ? "shown to a token with the admin scope on every bucket" : undefined}>
                {d.data_path ?? "hidden"}
              </Fact>
            </dl>
          </Panel>
        )}
        <Panel title="Metrics">
          <Metrics model={metrics} sync={d?.sync} />
        </Panel>
      </div>
    </>
  );
}

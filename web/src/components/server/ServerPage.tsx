// This server: what it runs, how durable its writes are, how long it has been up, what it
// holds, who is reading live; and, from /__ursula/metrics when the server exports it, the
// append rate and commit latency.
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { fetchMetrics, introspection, type ServerInfo } from "../../api/introspection";
import { Resource } from "../../state/resource";
import { MetricsModel } from "../../state/serverMetrics";
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

function latency(s: number | null): string {
  if (s === null) return "—";
  return s < 0.001 ? `${(s * 1e6).toFixed(0)} µs` : s < 1 ? `${(s * 1000).toFixed(s < 0.01 ? 2 : 1)} ms` : `${s.toFixed(2)} s`;
}

function Metrics({ model }: { model: MetricsModel }) {
  const available = model.available.value;
  const d = model.derived.value;
  if (available === null) return <p class="muted">{model.error.value ? `Could not read metrics: ${model.error.value}` : "Reading /__ursula/metrics…"}</p>;
  if (!available)
    return (
      <p class="muted" data-testid="no-metrics">
        This server exports no metrics (GET /__ursula/metrics answers 404). A server that does gets its append rate and commit latency shown here, read from its
        Prometheus text.
      </p>
    );
  return (
    <div class="stack">
      <dl class="facts metric-facts">
        <Fact label="Append rate" field="append_rate" sub={d?.appendName ? `${d.appendName}, over the last ${((d.windowMs || POLL_MS) / 1000).toFixed(0)} s` : "no append counter exported"}>
          {d?.appendRate === null || d === null ? "—" : `${rate(d.appendRate)} appends/s`}
        </Fact>
        <Fact label="Commit latency p50 · p99" field="commit_latency" sub={d?.latencyName ?? "no commit latency exported"}>
          {latency(d?.p50 ?? null)} · {latency(d?.p99 ?? null)}
        </Fact>
      </dl>
      <details>
        <summary>Every metric ({model.families.value.length})</summary>
        <table aria-label="Metrics">
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
                <td class="mono">{f.name}</td>
                <td>{f.type}</td>
                <td class="num mono right">{f.type === "histogram" || f.type === "summary" ? `${f.samples.length} samples` : f.samples.reduce((s, x) => s + x.value, 0).toLocaleString("en-US")}</td>
                <td class="muted">{f.help}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}

export function ServerPage() {
  const info = useMemo(() => new Resource<ServerInfo, null>((_q, s) => introspection.info(s)), []);
  const metrics = useMemo(() => new MetricsModel(() => fetchMetrics()), []);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const tick = () => {
      void info.load(null);
      void metrics.scrape();
      setNow(Date.now());
    };
    tick();
    const t = setInterval(() => document.visibilityState === "visible" && tick(), POLL_MS);
    return () => {
      clearInterval(t);
      info.dispose();
    };
  }, []);
  const d = info.data.value;
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
              <Fact label="Sync mode" field="sync" sub={d.sync === "full" ? "a write is acknowledged once it is on disk" : "survives a crash of ursa; may lose the last writes on power loss"}>
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
              <Fact label="Data" field="data_path" wide>
                {d.data_path}
              </Fact>
            </dl>
          </Panel>
        )}
        <Panel title="Metrics">
          <Metrics model={metrics} />
        </Panel>
      </div>
    </>
  );
}

// One stream: its state, byte range, append rate, producers, and its messages (paged viewer
// or live tail). Re-reads itself every second and right after any write this console sends.
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { StreamDetail } from "../../api/introspection";
import { contentKind } from "../../api/contentKind";
import { count } from "../../format";
import { offsetPosition } from "../../api/offsets";
import { readSse } from "../../api/sse";
import { StreamPageModel } from "../../state/streamPage";
import { ViewerModel } from "../../state/viewer";
import { browserTailDeps, TailModel } from "../../state/tail";
import { links, setQuery } from "../../state/router";
import { onStreamChanged, recorded } from "../../state/transport";
import { Link } from "../common/Link";
import { Panel } from "../common/Panel";
import { StreamFacts } from "./StreamFacts";
import { OffsetBar } from "./OffsetBar";
import { Sparkline } from "./Sparkline";
import { ProducersTable } from "./ProducersTable";
import { MessageViewer } from "./MessageViewer";
import { LiveTail } from "./LiveTail";

const viewerTransport = recorded("viewer");

export function StreamPage({ bucket, stream, query }: { bucket: string; stream: string; query: URLSearchParams }) {
  const model = useMemo(() => new StreamPageModel(bucket, stream), [bucket, stream]);
  useEffect(() => {
    model.start();
    return () => model.stop();
  }, [model]);
  const d = model.detail.data.value;
  const err = model.detail.error.value;
  const firstIncarnation = useRef<string | undefined>(undefined);
  if (d && !firstIncarnation.current) firstIncarnation.current = d.incarnation;
  const recreated = d && firstIncarnation.current && d.incarnation !== firstIncarnation.current;
  return (
    <>
      <div class="page-head">
        <div style={{ minWidth: 0 }}>
          <div class="crumbs">
            <Link href={links.buckets()}>Buckets</Link>
            <span class="sep">/</span>
            <Link href={links.bucket(bucket)}>{bucket}</Link>
            <span class="sep">/</span>
          </div>
          <h1 class="mono" style={{ overflowWrap: "anywhere" }}>
            {stream}
          </h1>
          <div class="sub mono">{model.path}</div>
        </div>
        <div class="actions">
          {d && <span class={`chip ${d.closed ? "plain" : "ok"}`}>{d.closed ? "closed" : "open"}</span>}
          <Link href={links.compose(model.path)} class="button-link">
            Compose a request →
          </Link>
        </div>
      </div>
      {err && (
        <div class="note bad" role="alert" style={{ marginBottom: "12px" }}>
          {err.status === 404 ? `This stream does not exist (404 ${err.code ?? ""}). It may have been deleted or expired${d ? "; the values below are the last ones seen." : "."}` : `Could not load the stream: ${err.message}`}
        </div>
      )}
      {recreated && (
        <div class="note warn" role="alert" style={{ marginBottom: "12px" }}>
          This stream was deleted and recreated while you watched: incarnation {firstIncarnation.current} → {d!.incarnation}. Offsets and producer state from before do not apply.
        </div>
      )}
      {d && <StreamBody d={d} model={model} query={query} />}
    </>
  );
}

function StreamBody({ d, model, query }: { d: StreamDetail; model: StreamPageModel; query: URLSearchParams }) {
  const kind = contentKind(d.content_type);
  const viewer = useMemo(() => new ViewerModel(viewerTransport, d.path, kind), [d.path, kind, d.incarnation]);
  const tail = useMemo(() => new TailModel(kind, browserTailDeps(d.path, readSse)), [d.path, kind]);
  useEffect(() => () => tail.stop(), [tail]);
  // Data arriving on the tail means the stream changed: re-read its state now.
  useEffect(() => tail.received.subscribe((n) => n > 0 && model.nudge()), [tail, model]);
  // A write from this console to this stream: if the viewer shows the tail, show the new data.
  useEffect(() => onStreamChanged((path) => path === d.path && viewer.page.value?.upToDate && void viewer.reload()), [viewer, d.path]);
  const tab = query.get("tab") === "tail" ? "tail" : "messages";
  const page = viewer.page.value;
  const win = page && page.fromPosition !== undefined ? { from: page.fromPosition, to: offsetPosition(page.to) ?? page.fromPosition } : undefined;
  const readerPos = tail.running ? offsetPosition(tail.nextOffset.value) : undefined;
  return (
    <div class="stack">
      <Panel title="State" flush>
        <StreamFacts d={d} />
      </Panel>
      <div class="stream-mid">
        <Panel title="Offsets">
          <OffsetBar tail={d.tail_offset} retained={offsetPosition(d.retained_offset) ?? 0} window={win} reader={readerPos} />
        </Panel>
        <Panel title="Append rate">
          <Sparkline points={model.rate.value} />
        </Panel>
      </div>
      <Panel title={`Producers (${count(d.producers.length)} of at most ${count(d.producer_limits.max_per_stream)})`} flush>
        <ProducersTable d={d} />
      </Panel>
      <section class="panel" aria-label="Messages">
        <header>
          <div
            class="tabs"
            role="tablist"
            aria-label="Message views"
            onKeyDown={(e) => {
              // Arrow keys move between the two tabs (WAI-ARIA tabs pattern).
              if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
              const next = tab === "tail" ? "messages" : "tail";
              setQuery({ tab: next === "tail" ? "tail" : undefined });
              document.getElementById(`tab-${next}`)?.focus();
            }}
          >
            <button type="button" role="tab" id="tab-messages" aria-controls="panel-messages" aria-selected={tab === "messages"} tabIndex={tab === "messages" ? 0 : -1} onClick={() => setQuery({ tab: undefined })}>
              Messages
            </button>
            <button type="button" role="tab" id="tab-tail" aria-controls="panel-tail" aria-selected={tab === "tail"} tabIndex={tab === "tail" ? 0 : -1} onClick={() => setQuery({ tab: "tail" })}>
              Live tail {tail.running && tail.status.value === "live" ? "●" : ""}
            </button>
          </div>
        </header>
        <div class="body" id="panel-messages" role="tabpanel" aria-labelledby="tab-messages" hidden={tab !== "messages"}>
          <MessageViewer
            viewer={viewer}
            from={query.get("from") ?? "oldest"}
            as={query.get("as")}
            linkFor={(token) => links.stream(d.bucket_id, d.stream_id, { from: token, as: query.get("as") ?? undefined })}
          />
        </div>
        <div class="body" id="panel-tail" role="tabpanel" aria-labelledby="tab-tail" hidden={tab !== "tail"}>
          <LiveTail tail={tail} kind={kind} />
        </div>
      </section>
    </div>
  );
}

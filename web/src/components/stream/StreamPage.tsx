// One stream: its guards and state, its byte range with its forks, append rate, fork family,
// producers, its live readers, and its messages (viewer with search, seek and export, or the
// live tail); append, close and delete from the header. Re-reads itself every second and right after any write this
// console sends to it, so no panel shows what was true before a write.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { introspection, type ForkNode, type ForkTree as Tree, type StreamDetail, type VisibleForkNode } from "../../api/introspection";
import { contentKind } from "../../api/contentKind";
import { count } from "../../format";
import { offsetPosition } from "../../api/offsets";
import { readSse } from "../../api/sse";
import { StreamPageModel } from "../../state/streamPage";
import { MessageWindow } from "../../state/messageWindow";
import { SearchModel } from "../../state/search";
import { streamReader } from "../../state/streamReader";
import { Resource } from "../../state/resource";
import { browserTailDeps, TailModel } from "../../state/tail";
import { links, navigate, setQuery } from "../../state/router";
import { onStreamChanged } from "../../state/transport";
import { Link } from "../common/Link";
import { Panel } from "../common/Panel";
import { ResourceDialogs, StreamActions, type ActionTarget } from "../operate/StreamActions";
import { CompactionPanel } from "./CompactionPanel";
import { AttrsPanel } from "./AttrsPanel";
import { ConcealedNote } from "../access/Concealed";
import { StreamFacts } from "./StreamFacts";
import { OffsetBar, type ForkMark } from "./OffsetBar";
import { Sparkline } from "./Sparkline";
import { ProducersTable } from "./ProducersTable";
import { MessageBrowser } from "./MessageBrowser";
import { LiveTail } from "./LiveTail";
import { ForkTree } from "./ForkTree";
import { ReadersPanel } from "./ReadersPanel";
import { whileVisible } from "../../state/poll";

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
            {stream} {d && <span class={`chip ${d.closed ? "plain" : "ok"}`}>{d.closed ? "closed" : "open"}</span>}
          </h1>
          <div class="sub">
            <span class="mono">{model.path}</span>
            {typeof d?.attrs?.title === "string" && (
              <span class="stream-title" data-testid="stream-title">
                {" "}
                · {d.attrs.title}
              </span>
            )}
          </div>
        </div>
        <div class="actions">
          {d && (
            <StreamActions
              t={targetOf(d)}
              gone={err?.status === 404}
              onDeleted={() => void model.refresh()}
            />
          )}
          <Link href={links.compose(model.path)} class="button-link">
            Composer →
          </Link>
        </div>
      </div>
      {err && (
        <div class="note bad" role="alert" style={{ marginBottom: "12px" }}>
          {err.status === 404 ? `This stream does not exist (404 ${err.code ?? ""}). It may have been deleted or expired${d ? "; the values below are the last ones seen." : "."}` : `Could not load the stream: ${err.message}`}{" "}
          {err.status === 404 && (
            <button type="button" class="link" onClick={() => navigate(links.bucket(bucket))}>
              Back to {bucket}
            </button>
          )}
          {err.status === 404 && <ConcealedNote bucket={bucket} />}
        </div>
      )}
      {recreated && (
        <div class="note warn" role="alert" style={{ marginBottom: "12px" }}>
          This stream was deleted and recreated while you watched: incarnation {firstIncarnation.current} → {d!.incarnation}. Offsets and producer state from before do not apply.
        </div>
      )}
      {d && <StreamBody key={d.incarnation} d={d} model={model} query={query} />}
    </>
  );
}

function targetOf(d: StreamDetail): ActionTarget {
  return {
    bucket: d.bucket_id,
    stream: d.stream_id,
    path: d.path,
    contentType: d.content_type,
    incarnation: d.incarnation,
    closed: d.closed,
    messageCount: d.message_count,
    lastSeq: d.last_stream_seq,
  };
}

function findNode(n: ForkNode, path: string): VisibleForkNode | undefined {
  if (!n.hidden && n.path === path) return n;
  for (const c of n.children) {
    const f = findNode(c, path);
    if (f) return f;
  }
  return undefined;
}

function StreamBody({ d, model, query }: { d: StreamDetail; model: StreamPageModel; query: URLSearchParams }) {
  const kind = contentKind(d.content_type);
  const read = useMemo(() => streamReader(d.path, kind, d.incarnation), [d.path, kind, d.incarnation]);
  const w = useMemo(
    () => new MessageWindow({ index: (at, limit, signal) => introspection.messages(d.bucket_id, d.stream_id, at, limit, signal), read }, kind),
    [d.path, kind, d.incarnation],
  );
  const search = useMemo(() => new SearchModel((q, signal) => introspection.search(d.bucket_id, d.stream_id, q, signal)), [d.path, d.incarnation]);
  const forks = useMemo(() => new Resource<Tree, null>((_q, s) => introspection.forks(d.bucket_id, d.stream_id, s)), [d.path, d.incarnation]);
  const tail = useMemo(() => new TailModel(kind, browserTailDeps(d.path, readSse)), [d.path, kind]);
  useEffect(() => () => (tail.stop(), w.dispose(), search.stop(), forks.dispose()), [tail, w, search, forks]);
  // Data arriving on the tail means the stream changed: re-read its state now.
  useEffect(() => tail.received.subscribe((n) => n > 0 && model.nudge()), [tail, model]);
  // A write from this console: to this stream, the viewer shows what was appended; to any
  // stream, the fork family may have changed (a fork is a PUT to another path).
  useEffect(
    () =>
      onStreamChanged((path) => {
        if (path === d.path) void w.refreshEnd();
        void forks.reload();
      }),
    [w, forks, d.path],
  );
  useEffect(() => {
    void forks.load(null);
    return whileVisible(5000, () => void forks.reload());
  }, [forks]);
  // The viewer follows the tail when it shows the end and the stream grew, and lets go of what
  // retention trimmed.
  useEffect(() => void w.refreshEnd(), [d.tail_offset]);
  useEffect(() => void w.dropBelow(offsetPosition(d.retained_offset) ?? 0), [d.retained_offset]);
  const tab = query.get("tab") === "tail" ? "tail" : "messages";
  const rows = w.rows.value;
  const win = rows.length ? { from: rows[0]!.offset, to: rows[rows.length - 1]!.offset + rows[rows.length - 1]!.size } : undefined;
  const readerPos = tail.running ? offsetPosition(tail.nextOffset.value) : undefined;
  const tree = forks.data.value;
  const self = tree ? findNode(tree.root, d.path) : undefined;
  const marks: ForkMark[] = (self?.children ?? []).flatMap((c) => (c.hidden ? [] : [{ position: c.fork_position ?? 0, label: c.stream_id }]));
  const [dialog, setDialog] = useState<"attrs" | "snapshot" | "retention" | null>(null);
  return (
    <div class="stack">
      <Panel title="State and guards" id="state" flush>
        <StreamFacts d={d} />
      </Panel>
      <div class="stream-mid">
        <Panel title="Offsets">
          <OffsetBar
            tail={d.tail_offset}
            retained={offsetPosition(d.retained_offset) ?? 0}
            snapshot={d.snapshot ? offsetPosition(d.snapshot.offset) : undefined}
            window={win}
            reader={readerPos}
            inherited={d.fork ? (offsetPosition(d.fork.offset) ?? 0) : undefined}
            forks={marks}
          />
        </Panel>
        <Panel title="Append rate">
          <Sparkline points={model.rate.value} />
        </Panel>
      </div>
      <div class="stream-resources">
        <CompactionPanel d={d} onAction={setDialog} />
        <AttrsPanel d={d} onEdit={() => setDialog("attrs")} />
      </div>
      <ResourceDialogs t={targetOf(d)} open={dialog} onClose={() => setDialog(null)} />
      <div class="stream-lower">
        <Panel title={`Forks${tree && tree.nodes > 1 ? ` (${tree.nodes - 1} in the family)` : ""}`} id="forks">
          {tree ? <ForkTree tree={tree} self={d.path} bucket={d.bucket_id} /> : forks.error.value ? <p class="error-text">{forks.error.value.message}</p> : <p class="muted">…</p>}
        </Panel>
        <Panel title={`Producers (${count(d.producers.length)} of at most ${count(d.producer_limits.max_per_stream)})`} flush>
          <ProducersTable d={d} />
        </Panel>
      </div>
      <ReadersPanel bucket={d.bucket_id} stream={d.stream_id} />
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
          {tab === "messages" && (
            <MessageBrowser w={w} search={search} d={d} query={query} read={read} linkFor={(token) => links.stream(d.bucket_id, d.stream_id, { from: token, as: query.get("as") ?? undefined })} />
          )}
        </div>
        <div class="body" id="panel-tail" role="tabpanel" aria-labelledby="tab-tail" hidden={tab !== "tail"}>
          <LiveTail tail={tail} kind={kind} path={d.path} />
        </div>
      </section>
    </div>
  );
}

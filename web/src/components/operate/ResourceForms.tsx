// Edit a stream's attributes, publish a snapshot of it, and advance its retention floor: the
// forms inside the stream page's and the bucket list's dialogs. Each reads the stream afresh
// when it opens, previews the exact request (with the stream's Stream-Incarnation, so it can only
// reach the stream on screen), sends it through the exchange client and shows the answer.
import { useEffect, useState } from "preact/hooks";
import type { Exchange, ProtocolRequest } from "../../api/types";
import { introspection, type StreamDetail } from "../../api/introspection";
import { attrsRequest, publishSnapshotRequest, retentionRequest, type Attrs } from "../../api/resourceRequests";
import { formatBytes, offsetPosition } from "../../api/offsets";
import { contentKind } from "../../api/contentKind";
import { browseTransport } from "../../state/app";
import { auth } from "../../state/auth";
import { RequestPreview } from "../common/RequestPreview";
import { NeedNote } from "../access/NeedNote";
import { CwRule } from "../explainers/CwRule";
import { ActionResult } from "./ActionResult";

/** The stream as it is now, read when the dialog opens. */
export function useFreshDetail(bucket: string, stream: string): { d: StreamDetail | null; error: string | null } {
  const [state, setState] = useState<{ d: StreamDetail | null; error: string | null }>({ d: null, error: null });
  useEffect(() => {
    const ctrl = new AbortController();
    void introspection.stream(bucket, stream, ctrl.signal).then((r) => !ctrl.signal.aborted && setState(r.ok ? { d: r.data, error: null } : { d: null, error: `${r.status} ${r.code ?? ""} ${r.message}` }));
    return () => ctrl.abort();
  }, [bucket, stream]);
  return state;
}

function useSend(): [Exchange | null, boolean, (req: ProtocolRequest) => Promise<Exchange>] {
  const [result, setResult] = useState<Exchange | null>(null);
  const [sending, setSending] = useState(false);
  const send = async (req: ProtocolRequest) => {
    setSending(true);
    const ex = await browseTransport(req);
    setSending(false);
    setResult(ex);
    return ex;
  };
  return [result, sending, send];
}

function Loading({ error }: { error: string | null }) {
  return error ? <div class="note bad">Could not read the stream: {error}</div> : <p class="muted">Reading the stream…</p>;
}

/** The attributes as a metadata text area holds them. */
function metadataText(attrs: Record<string, unknown> | null): string {
  const m = attrs?.metadata;
  return m && typeof m === "object" ? JSON.stringify(m, null, 2) : "";
}

export function AttrsForm({ bucket, stream }: { bucket: string; stream: string }) {
  const { d, error } = useFreshDetail(bucket, stream);
  return d ? <AttrsEditor key={d.incarnation} d={d} /> : <Loading error={error} />;
}

function AttrsEditor({ d }: { d: StreamDetail }) {
  const [title, setTitle] = useState(typeof d.attrs?.title === "string" ? d.attrs.title : "");
  const [metadata, setMetadata] = useState(metadataText(d.attrs));
  const [result, sending, send] = useSend();
  let parsed: Record<string, unknown> | undefined;
  let problem: string | null = null;
  if (metadata.trim() !== "") {
    try {
      const v = JSON.parse(metadata) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v)) parsed = v as Record<string, unknown>;
      else problem = "Metadata must be a JSON object.";
    } catch (e) {
      problem = `Metadata is not JSON: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  const attrs: Attrs = {};
  if (title !== "") attrs.title = title;
  if (parsed) attrs.metadata = parsed;
  const req = attrsRequest(d.path, attrs, d.incarnation);
  const need = auth.need("write", d.bucket_id);
  return (
    <form
      class="stack"
      style={{ gap: "10px" }}
      aria-label="Attributes"
      onSubmit={(e) => {
        e.preventDefault();
        if (!problem && !need) void send(req);
      }}
    >
      <p>
        A title and a metadata object, kept beside the stream. Changing them moves no offset, ETag or read result, and works on a closed stream too. The body replaces
        them whole: leave both empty to clear them.
      </p>
      <label class="field">
        <span>Title</span>
        <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} autofocus />
      </label>
      <label class="field">
        <span>Metadata (a JSON object; keys are stored sorted)</span>
        <textarea class="mono" rows={5} value={metadata} onInput={(e) => setMetadata(e.currentTarget.value)} spellcheck={false} placeholder='{"owner": "ana"}' />
      </label>
      {problem && <div class="warn-text small-line">{problem}</div>}
      <RequestPreview req={req} />
      <div class="row">
        <button type="submit" class="primary" disabled={sending || !!problem || !!need} aria-describedby={need ? "attrs-need" : undefined}>
          {sending ? "Saving…" : "Save attributes"}
        </button>
        <span class="muted">{new TextEncoder().encode(req.body ?? "").length.toLocaleString("en-US")} of at most 16,384 bytes</span>
      </div>
      <NeedNote id="attrs-need" items={[{ what: "Saving attributes", need }]} />
      {result && <ActionResult ex={result} />}
    </form>
  );
}

export function SnapshotForm({ bucket, stream }: { bucket: string; stream: string }) {
  const { d, error } = useFreshDetail(bucket, stream);
  return d ? <SnapshotEditor key={d.incarnation} d={d} /> : <Loading error={error} />;
}

/** What a snapshot of the stream at its tail starts as: the event count a prefix-count writer needs. */
export function snapshotDraft(d: StreamDetail): { contentType: string; body: string } {
  if (contentKind(d.content_type) !== "json") return { contentType: "application/octet-stream", body: "" };
  return { contentType: "application/json", body: JSON.stringify({ count: d.message_count, state: {} }, null, 2) };
}

function SnapshotEditor({ d }: { d: StreamDetail }) {
  const draft = snapshotDraft(d);
  const [offset, setOffset] = useState(d.next_offset);
  const [contentType, setContentType] = useState(draft.contentType);
  const [body, setBody] = useState(draft.body);
  const [matchOn, setMatchOn] = useState(d.snapshot !== null);
  const [match, setMatch] = useState(d.snapshot?.digest ?? "");
  const [result, sending, send] = useSend();
  const req = publishSnapshotRequest(d.path, { offset, contentType, body, match: matchOn ? match : "", incarnation: d.incarnation });
  const need = auth.need("write", d.bucket_id);
  return (
    <form
      class="stack"
      style={{ gap: "10px" }}
      aria-label="Snapshot"
      onSubmit={(e) => {
        e.preventDefault();
        if (!need) void send(req);
      }}
    >
      <p>
        A snapshot is your application's summary of the stream up to an offset where a message starts (or the tail). Bootstrap hands it out instead of the messages
        before it, and retention may then trim them. One snapshot is kept: a newer one replaces it.
      </p>
      <label class="field">
        <span>Offset (the tail now: {d.message_count.toLocaleString("en-US")} messages before it)</span>
        <input class="mono" value={offset} onInput={(e) => setOffset(e.currentTarget.value)} spellcheck={false} />
      </label>
      <label class="field">
        <span>The snapshot's own Content-Type</span>
        <input class="mono" value={contentType} onInput={(e) => setContentType(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>Body</span>
        <textarea class="mono" rows={6} value={body} onInput={(e) => setBody(e.currentTarget.value)} spellcheck={false} />
      </label>
      {contentKind(d.content_type) === "json" && (
        <div class="note info small-line">
          Prefilled with <code>count</code>: the {d.message_count.toLocaleString("en-US")} messages before the tail. A prefix-count writer that bootstraps from this
          snapshot counts on from it; without it, once retention trims the start, its count is too small and every retry answers 409. Put your own state in{" "}
          <code>state</code>.
          <CwRule ids={["prefix-3"]} />
        </div>
      )}
      <div class={`guard ${matchOn ? "on" : ""}`} style={{ border: "1px solid var(--border)", borderRadius: "var(--radius)" }}>
        <label class="toggle-row guard-label">
          <input type="checkbox" checked={matchOn} onChange={(e) => setMatchOn(e.currentTarget.checked)} />
          <span class="mono">Stream-Snapshot-Match</span>
          <span class="muted guard-hint">publish only if the visible snapshot is still this one (409 otherwise)</span>
        </label>
        {matchOn && (
          <div class="guard-body">
            <input class="mono" aria-label="Stream-Snapshot-Match digest" value={match} onInput={(e) => setMatch(e.currentTarget.value)} spellcheck={false} style={{ width: "100%" }} />
          </div>
        )}
      </div>
      <RequestPreview req={req} />
      <div class="row">
        <button type="submit" class="primary" disabled={sending || !!need} aria-describedby={need ? "snapshot-need" : undefined}>
          {sending ? "Publishing…" : "Publish snapshot"}
        </button>
      </div>
      <NeedNote id="snapshot-need" items={[{ what: "Publishing a snapshot", need }]} />
      {result && <ActionResult ex={result} />}
    </form>
  );
}

export function RetentionForm({ bucket, stream }: { bucket: string; stream: string }) {
  const { d, error } = useFreshDetail(bucket, stream);
  return d ? <RetentionConfirm key={d.incarnation} d={d} /> : <Loading error={error} />;
}

function RetentionConfirm({ d }: { d: StreamDetail }) {
  const [offset, setOffset] = useState(d.snapshot?.offset ?? d.retained_offset);
  const [result, sending, send] = useSend();
  const req = retentionRequest(d.path, offset, d.incarnation);
  const need = auth.need("admin", d.bucket_id);
  const floor = offsetPosition(d.retained_offset) ?? 0;
  const to = offsetPosition(offset);
  const dropped = to !== undefined ? to - floor : undefined;
  if (!d.snapshot)
    return (
      <div class="note warn" data-testid="retention-no-snapshot">
        This stream has no snapshot. The floor never passes the visible snapshot, so that bootstrap always works: publish a snapshot first, then advance retention to
        it.
      </div>
    );
  return (
    <div class="stack" style={{ gap: "10px" }}>
      <p>
        Raise the floor from <code class="nowrap">{d.retained_offset}</code> to at most the snapshot's offset <code class="nowrap">{d.snapshot.offset}</code>. From then on
        every read below it, <code>offset=-1</code> included, answers <strong>410 STREAM_GONE</strong>, and those bytes are deleted for good: a new client starts from
        the snapshot through bootstrap.
      </p>
      <label class="field">
        <span>New floor (a message boundary, no higher than the snapshot)</span>
        <input class="mono" value={offset} onInput={(e) => setOffset(e.currentTarget.value)} spellcheck={false} />
      </label>
      {dropped !== undefined && dropped > 0 && (
        <div class="note warn small-line" data-testid="retention-drop">
          {formatBytes(dropped)} ({dropped.toLocaleString("en-US")} bytes) become unreadable. This cannot be undone.
        </div>
      )}
      <div class="note small-line">
        Prefix-count streams: once the start is trimmed, the events before the floor cannot be counted from <code>offset=-1</code>. Advance retention only if the snapshot
        keeps the event count.
        <CwRule ids={["prefix-3"]} />
      </div>
      <RequestPreview req={req} />
      {result ? (
        <ActionResult ex={result} />
      ) : (
        <div class="row">
          <button type="button" class="danger-solid" disabled={sending || !!need} aria-describedby={need ? "retention-need" : undefined} onClick={() => void send(req)}>
            {sending ? "Advancing…" : "Advance retention"}
          </button>
          <span class="muted">Escape to cancel.</span>
        </div>
      )}
      <NeedNote id="retention-need" items={[{ what: "Advancing retention", need }]} />
    </div>
  );
}

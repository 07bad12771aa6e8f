// Append, close and delete (and, in a list's row menu, attributes, snapshot and retention), for
// one stream, from its page or its row in a list. Each request carries the Stream-Incarnation of
// the stream on screen, so it can only ever reach that stream: if it was deleted and recreated
// meanwhile, the answer is a 412, not a write to a stranger. Close, delete and retention cannot
// be undone, so they ask first, showing the exact request. A token without the scope an action
// needs leaves its button disabled, with the scope it would take beside it.
import { useRef, useState } from "preact/hooks";
import type { Exchange } from "../../api/types";
import { appendRequest, closeRequest, deleteRequest } from "../../api/requests";
import { contentKind } from "../../api/contentKind";
import { padSeq } from "../../api/streamSeq";
import { browseTransport } from "../../state/app";
import { Dialog } from "../common/Dialog";
import { RequestPreview } from "../common/RequestPreview";
import { ActionResult } from "./ActionResult";
import { CwRule } from "../explainers/CwRule";
import { auth } from "../../state/auth";
import { NeedNote } from "../access/NeedNote";
import { AttrsForm, RetentionForm, SnapshotForm } from "./ResourceForms";

export interface ActionTarget {
  bucket: string;
  stream: string;
  path: string;
  contentType: string;
  incarnation: string;
  closed: boolean;
  messageCount: number;
  lastSeq: string | null;
}

export type ActionKind = "append" | "close" | "delete" | "attrs" | "snapshot" | "retention";

/**
 * The buttons; in a list, folded into one small menu per row whose name says which stream, with
 * the attribute, snapshot and retention actions too (a stream page has those in their panels).
 */
export function ActionButtons({ t, compact, gone, onChoose }: { t: ActionTarget; compact?: boolean; gone?: boolean; onChoose: (kind: ActionKind) => void }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const choose = (kind: ActionKind) => {
    if (menu.current) menu.current.open = false;
    onChoose(kind);
  };
  const write = auth.need("write", t.bucket);
  const admin = auth.need("admin", t.bucket);
  const noteId = `need-${compact ? "row-" : ""}${t.bucket}-${t.stream}`.replace(/[^\w-]/g, "_");
  const described = write || admin ? noteId : undefined;
  const buttons = (
    <>
      <button type="button" disabled={t.closed || gone || !!write} onClick={() => choose("append")} title={t.closed ? "Closed streams accept no appends" : undefined} aria-describedby={described}>
        Append…
      </button>
      <button type="button" disabled={t.closed || gone || !!write} onClick={() => choose("close")} aria-describedby={described}>
        Close…
      </button>
      <button type="button" class="danger" disabled={gone || !!admin} onClick={() => choose("delete")} aria-describedby={described}>
        Delete…
      </button>
      {compact && (
        <>
          <button type="button" disabled={gone} onClick={() => choose("attrs")}>
            Attributes…
          </button>
          <button type="button" disabled={gone} onClick={() => choose("snapshot")}>
            Publish snapshot…
          </button>
          <button type="button" disabled={gone} onClick={() => choose("retention")}>
            Advance retention…
          </button>
        </>
      )}
    </>
  );
  const note = (
    <NeedNote
      id={noteId}
      items={[
        { what: "Append, close", need: write },
        { what: "Delete", need: admin },
      ]}
    />
  );
  if (!compact)
    return (
      <div class="stack stream-actions-wrap" style={{ gap: "4px" }}>
        <div class="row stream-actions">{buttons}</div>
        {note}
      </div>
    );
  return (
    <details class="row-menu" ref={menu}>
      <summary aria-label={`Actions for ${t.stream}`}>Actions</summary>
      <div class="row-menu-items">
        {buttons}
        {note}
      </div>
    </details>
  );
}

/**
 * The dialogs, kept by the page rather than the row, so the answer stays on screen after a
 * delete or close has changed (or removed) the row it came from.
 */
export function ActionDialogs({ t, open, onClose, onDeleted }: { t: ActionTarget | null; open: ActionKind | null; onClose: () => void; onDeleted?: () => void }) {
  if (!t) return null;
  const key = `${t.path}@${t.incarnation}`;
  return (
    <>
      <Dialog open={open === "append"} title={`Append to ${t.stream}`} onClose={onClose} wide testId="append-dialog">
        <AppendForm key={key} t={t} />
      </Dialog>
      <Dialog open={open === "close"} title={`Close ${t.stream}?`} onClose={onClose} testId="close-dialog">
        <Confirm
          key={key}
          verb="Close stream"
          request={closeRequest(t.path, t.incarnation)}
          text="A closed stream accepts no more appends, ever: every append answers 409 with Stream-Closed: true. Readers at the tail are told the stream ended. The data stays."
        />
      </Dialog>
      <Dialog open={open === "delete"} title={`Delete ${t.stream}?`} onClose={onClose} testId="delete-dialog">
        <Confirm
          key={key}
          verb="Delete stream"
          danger
          request={deleteRequest(t.path, t.incarnation)}
          text={`This deletes ${t.messageCount.toLocaleString("en-US")} message${t.messageCount === 1 ? "" : "s"}, the stored Stream-Seq and every producer's state. A PUT at the same path later creates a new incarnation with a new token; clients holding this one get 412.`}
          onDone={(ex) => ex.response?.status === 204 && onDeleted?.()}
        />
      </Dialog>
    </>
  );
}

/** Attributes, snapshot and retention, for a stream page's panels or a list's row menu. */
export function ResourceDialogs({ t, open, onClose }: { t: ActionTarget; open: ActionKind | null; onClose: () => void }) {
  const key = `${t.path}@${t.incarnation}`;
  return (
    <>
      <Dialog open={open === "attrs"} title={`Attributes of ${t.stream}`} onClose={onClose} wide testId="attrs-dialog">
        <AttrsForm key={key} bucket={t.bucket} stream={t.stream} />
      </Dialog>
      <Dialog open={open === "snapshot"} title={`Publish a snapshot of ${t.stream}`} onClose={onClose} wide testId="snapshot-dialog">
        <SnapshotForm key={key} bucket={t.bucket} stream={t.stream} />
      </Dialog>
      <Dialog open={open === "retention"} title={`Advance retention of ${t.stream}?`} onClose={onClose} wide testId="retention-dialog">
        <RetentionForm key={key} bucket={t.bucket} stream={t.stream} />
      </Dialog>
    </>
  );
}

/** Buttons and dialogs together, for a page about one stream; `gone` once it no longer exists. */
export function StreamActions({ t, gone, onDeleted }: { t: ActionTarget; gone?: boolean; onDeleted?: () => void }) {
  const [open, setOpen] = useState<ActionKind | null>(null);
  return (
    <>
      <ActionButtons t={t} gone={gone} onChoose={setOpen} />
      <ActionDialogs t={t} open={open} onClose={() => setOpen(null)} onDeleted={onDeleted} />
    </>
  );
}

function Confirm({ verb, text, request, danger, onDone }: { verb: string; text: string; request: ReturnType<typeof closeRequest>; danger?: boolean; onDone?: (ex: Exchange) => void }) {
  const [result, setResult] = useState<Exchange | null>(null);
  const [sending, setSending] = useState(false);
  return (
    <div class="stack" style={{ gap: "10px" }}>
      <p>{text}</p>
      <RequestPreview req={request} />
      {result ? (
        <ActionResult ex={result} />
      ) : (
        <div class="row">
          <button
            type="button"
            class={danger ? "danger-solid" : "primary"}
            disabled={sending}
            onClick={async () => {
              setSending(true);
              const ex = await browseTransport(request);
              setSending(false);
              setResult(ex);
              onDone?.(ex);
            }}
          >
            {sending ? "Sending…" : verb}
          </button>
          <span class="muted">Escape to cancel.</span>
        </div>
      )}
    </div>
  );
}

const SAMPLE: Record<ReturnType<typeof contentKind>, string> = {
  json: '[{"type":"note","text":"hello"}]',
  text: "hello\n",
  binary: "hello",
};

export function AppendForm({ t }: { t: ActionTarget }) {
  const kind = contentKind(t.contentType);
  const [body, setBody] = useState(SAMPLE[kind]);
  const [seqOn, setSeqOn] = useState(t.lastSeq !== null);
  // The prefix count: every message so far, if every commit is one message per event.
  const [seq, setSeq] = useState(padSeq(t.messageCount));
  const [incOn, setIncOn] = useState(true);
  const [result, setResult] = useState<Exchange | null>(null);
  const [sending, setSending] = useState(false);
  const req = appendRequest({ path: t.path, contentType: t.contentType, body, seq: seqOn ? seq : "", incarnation: incOn ? t.incarnation : "" });
  return (
    <form
      class="stack"
      style={{ gap: "10px" }}
      aria-label="Append"
      onSubmit={async (e) => {
        e.preventDefault();
        setSending(true);
        setResult(await browseTransport(req));
        setSending(false);
      }}
    >
      <label class="field">
        <span>Body ({t.contentType}{kind === "json" ? "; a JSON array commits its elements together, one message each" : ""})</span>
        <textarea rows={4} value={body} onInput={(e) => setBody(e.currentTarget.value)} spellcheck={false} autofocus />
      </label>
      <div class="guards">
        <div class={`guard ${seqOn ? "on" : ""}`}>
          <label class="toggle-row guard-label">
            <input type="checkbox" checked={seqOn} onChange={(e) => setSeqOn(e.currentTarget.checked)} />
            <span class="mono">Stream-Seq</span>
            <span class="muted guard-hint">accepted only if bytewise greater than the stored {t.lastSeq ?? "(none yet)"}</span>
          </label>
          {seqOn && (
            <div class="guard-body stack" style={{ gap: "4px" }}>
              <input class="mono" aria-label="Stream-Seq value" value={seq} onInput={(e) => setSeq(e.currentTarget.value)} spellcheck={false} />
              <span class="muted small-line">Prefilled with the message count, {t.messageCount}: the prefix count if every event was one message and you have read them all.</span>
              <CwRule ids={["seq-check", "prefix-4"]} />
            </div>
          )}
        </div>
        <div class={`guard ${incOn ? "on" : ""}`}>
          <label class="toggle-row guard-label">
            <input type="checkbox" checked={incOn} onChange={(e) => setIncOn(e.currentTarget.checked)} />
            <span class="mono">Stream-Incarnation</span>
            <span class="muted guard-hint mono">{t.incarnation}</span>
          </label>
        </div>
      </div>
      <RequestPreview req={req} />
      <div class="row">
        <button type="submit" class="primary" disabled={sending}>
          {sending ? "Appending…" : "Append"}
        </button>
      </div>
      {result && <ActionResult ex={result} />}
    </form>
  );
}

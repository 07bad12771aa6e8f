// Export a range of the stream to a file: NDJSON for a JSON stream (one message per line, the
// bytes the server stores), the raw bytes otherwise. The range is whole messages: the whole
// readable stream, the messages loaded in the viewer, or from the selected message to the tail.
import { useRef, useState } from "preact/hooks";
import type { StreamDetail } from "../../api/introspection";
import type { ContentKind } from "../../api/contentKind";
import { formatBytes, offsetPosition } from "../../api/offsets";
import type { ReadResult } from "../../state/messageWindow";
import { exportFileName, exportMime, readRange, type ExportPlan } from "../../state/exportRange";
import { Dialog } from "../common/Dialog";

type Range = "all" | "window" | "selected";

export function ExportButton(props: { d: StreamDetail; kind: ContentKind; window: { from: number; to: number } | null; selected: number | null; read: (offset: number, maxBytes: number, signal: AbortSignal) => Promise<ReadResult> }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="small" onClick={() => setOpen(true)} disabled={props.d.tail_offset === 0}>
        Export…
      </button>
      <Dialog open={open} title="Export messages" onClose={() => setOpen(false)} testId="export-dialog">
        <ExportForm {...props} />
      </Dialog>
    </>
  );
}

function ExportForm({ d, kind, window, selected, read }: { d: StreamDetail; kind: ContentKind; window: { from: number; to: number } | null; selected: number | null; read: (offset: number, maxBytes: number, signal: AbortSignal) => Promise<ReadResult> }) {
  const start = offsetPosition(d.retained_offset) ?? 0;
  const ranges: Record<Range, { label: string; from: number; to: number } | null> = {
    all: { label: "The whole readable stream", from: start, to: d.tail_offset },
    window: window && { label: "The messages loaded in the viewer", ...window },
    selected: selected === null ? null : { label: "From the selected message to the tail", from: selected, to: d.tail_offset },
  };
  const [range, setRange] = useState<Range>("all");
  const [state, setState] = useState<{ kind: "idle" } | { kind: "reading"; at: number } | { kind: "done"; bytes: number; name: string } | { kind: "failed"; message: string }>({ kind: "idle" });
  const abort = useRef<AbortController | null>(null);
  const r = ranges[range]!;
  const plan: ExportPlan = { from: r.from, to: r.to, kind };
  const run = async () => {
    const ctrl = new AbortController();
    abort.current = ctrl;
    setState({ kind: "reading", at: plan.from });
    const out = await readRange(read, plan, ctrl.signal, (at) => setState({ kind: "reading", at }));
    if (!out.ok) return setState({ kind: "failed", message: out.message });
    const blob = new Blob(out.parts as BlobPart[], { type: exportMime(kind) });
    const name = exportFileName(d.stream_id, plan);
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    setState({ kind: "done", bytes: blob.size, name });
  };
  return (
    <div class="stack" style={{ gap: "10px" }}>
      <fieldset class="plain-fieldset">
        <legend>Range</legend>
        {(Object.keys(ranges) as Range[]).map((k) => {
          const x = ranges[k];
          return (
            <label key={k} class="toggle-row">
              <input type="radio" name="export-range" checked={range === k} disabled={!x} onChange={() => setRange(k)} />
              <span>
                {x?.label ?? (k === "window" ? "The messages loaded in the viewer" : "From the selected message to the tail")}
                {x && <span class="muted num"> · bytes {x.from.toLocaleString("en-US")}–{x.to.toLocaleString("en-US")} ({formatBytes(x.to - x.from)})</span>}
              </span>
            </label>
          );
        })}
      </fieldset>
      <p class="muted">
        {kind === "json"
          ? "As NDJSON: one message per line, exactly the bytes the server stores for a JSON stream (read with format=ndjson)."
          : "As raw bytes, exactly as the stream holds them."}
      </p>
      <div class="row">
        <button type="button" class="primary" disabled={state.kind === "reading"} onClick={() => void run()}>
          {kind === "json" ? "Download NDJSON" : "Download bytes"}
        </button>
        {state.kind === "reading" && (
          <>
            <span class="muted num" role="status">
              read {formatBytes(state.at - plan.from)} of {formatBytes(plan.to - plan.from)}
            </span>
            <button type="button" class="small" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          </>
        )}
        {state.kind === "done" && (
          <span class="ok-text" role="status" data-testid="export-done">
            Saved {state.name} ({formatBytes(state.bytes)}).
          </span>
        )}
        {state.kind === "failed" && <span class="error-text">Export failed: {state.message}</span>}
      </div>
    </div>
  );
}

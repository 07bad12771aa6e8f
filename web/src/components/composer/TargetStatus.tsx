// Whether the composer's target exists, checked as it is typed and after every write to it, with
// a one-click create when it does not: the first Send to a new path should not be a surprise 404.
import { useEffect, useState } from "preact/hooks";
import { findStream, type StreamDetail } from "../../api/introspection";
import type { ComposerModel } from "../../state/composer";
import { onStreamChanged, pathOf } from "../../state/transport";

/** "/b/s" or "/v1/stream/s" → [bucket, stream] for the introspection API. */
export function splitTarget(path: string): [string, string] | null {
  let seg: string[];
  try {
    seg = path.split("?")[0]!.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  if (seg[0] === "v1" && seg[1] === "stream" && seg.length === 3) return ["_default", seg[2]!];
  return seg.length === 2 ? [seg[0]!, seg[1]!] : null;
}

type Status = { kind: "unknown" } | { kind: "exists"; d: StreamDetail } | { kind: "missing" } | { kind: "invalid"; message: string };

export function TargetStatus({ model }: { model: ComposerModel }) {
  const f = model.form.value;
  const target = f.target.trim();
  const [status, setStatus] = useState<Status>({ kind: "unknown" });
  const [version, setVersion] = useState(0);
  useEffect(() => onStreamChanged((path) => path === pathOf(target) && setVersion((v) => v + 1)), [target]);
  useEffect(() => {
    const parts = splitTarget(target);
    if (!parts) return setStatus({ kind: "invalid", message: "A target is /{bucket}/{stream}." });
    const ctrl = new AbortController();
    const t = setTimeout(async () => {
      const r = await findStream(parts[0], parts[1], ctrl.signal);
      if (ctrl.signal.aborted) return;
      if (r.ok) setStatus(r.data ? { kind: "exists", d: r.data } : { kind: "missing" });
      else if (r.status === 404) setStatus({ kind: "missing" });
      else setStatus({ kind: "invalid", message: r.message });
    }, 250);
    return () => (clearTimeout(t), ctrl.abort());
  }, [target, version]);
  if (status.kind === "unknown") return null;
  if (status.kind === "invalid") return <div class="muted small-line">{status.message}</div>;
  if (status.kind === "exists")
    return (
      <div class="muted small-line" data-testid="target-status" data-exists="true">
        Exists: {status.d.content_type} · {status.d.message_count.toLocaleString("en-US")} messages · {status.d.closed ? "closed" : "open"} · incarnation{" "}
        <span class="mono">{status.d.incarnation}</span>
      </div>
    );
  return (
    <div class="note warn row" data-testid="target-status" data-exists="false">
      <span>
        No stream at <code>{target}</code> yet{f.method === "PUT" ? "." : `: this ${f.method} will answer 404.`}
      </span>
      <button type="button" class="small" disabled={model.sending.value} onClick={() => void model.createTarget()}>
        Create it ({f.contentType.trim() || "no Content-Type"})
      </button>
    </div>
  );
}

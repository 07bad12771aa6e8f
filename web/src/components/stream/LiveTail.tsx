// Live tail over SSE with an honest status line: what the connection is doing, how many
// messages arrived, how many are kept (the cap) and how many were dropped to respect it.
import { useEffect, useState } from "preact/hooks";
import { TAIL_CAPS, type TailModel, type TailStatus } from "../../state/tail";
import type { ContentKind } from "../../api/contentKind";
import { defaultFormat, FormatPicker } from "./FormatPicker";
import { MessageRow, type RenderFormat } from "./MessageRow";
import { clock } from "../../format";
import { toEventSource } from "../../api/snippets";
import { auth } from "../../state/auth";
import { CopyButton } from "../common/CopyButton";

const STATUS_TONE: Record<TailStatus, string> = {
  idle: "plain",
  connecting: "info",
  live: "ok",
  reconnecting: "warn",
  closed: "plain",
  gone: "bad",
  failed: "bad",
  stopped: "plain",
};

function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

export function TailStatusLine({ tail }: { tail: TailModel }) {
  const status = tail.status.value;
  const retryAt = tail.retryAt.value;
  const now = useNow(retryAt !== undefined);
  const retryIn = retryAt !== undefined ? Math.max(0, Math.ceil((retryAt - now) / 1000)) : undefined;
  return (
    <div class="row" role="status" aria-live="polite">
      <span class={`chip ${STATUS_TONE[status]}`} data-testid="tail-status" data-status={status}>
        <span class={`dot ${status === "live" ? "live" : ""}`} aria-hidden="true" /> {status}
      </span>
      {status === "reconnecting" && (
        <span class="muted">
          attempt {tail.attempt.value}
          {retryIn !== undefined ? `, retrying in ${retryIn}s` : ""}
        </span>
      )}
      {tail.detail.value && <span class="muted">{tail.detail.value}</span>}
    </div>
  );
}

export function LiveTail({ tail, kind, path }: { tail: TailModel; kind: ContentKind; path: string }) {
  const [from, setFrom] = useState<"now" | "-1">("now");
  const [format, setFormat] = useState<RenderFormat>(defaultFormat(kind));
  const running = tail.running && !["closed", "gone", "failed", "stopped", "idle"].includes(tail.status.value);
  const rows = tail.rows.value;
  return (
    <div class="stack" style={{ gap: "8px" }}>
      <div class="row">
        <div class="row" role="group" aria-label="Follow from">
          <button type="button" class="small" aria-pressed={from === "now"} disabled={running} onClick={() => setFrom("now")}>
            From now
          </button>
          <button type="button" class="small" aria-pressed={from === "-1"} disabled={running} onClick={() => setFrom("-1")}>
            From oldest
          </button>
        </div>
        {running ? (
          <button type="button" onClick={() => tail.stop()}>
            Stop
          </button>
        ) : (
          <button type="button" class="primary" onClick={() => void tail.start(from)}>
            Start live tail
          </button>
        )}
        <label class="toggle-row">
          <span class="muted">keep</span>
          <select value={tail.cap.value} onChange={(e) => tail.setCap(Number(e.currentTarget.value))} aria-label="Rows kept in memory">
            {TAIL_CAPS.map((c) => (
              <option key={c} value={c}>
                {c} rows
              </option>
            ))}
          </select>
        </label>
        <span class="grow" />
        <CopyButton label="Copy as EventSource" text={() => toEventSource(location.origin, path, { bearer: auth.token.value !== null })} />
        <FormatPicker value={format} onChange={setFormat} />
      </div>
      <div class="row" style={{ justifyContent: "space-between" }}>
        <TailStatusLine tail={tail} />
        <span class="muted num" data-testid="tail-counts">
          {tail.received.value} received · {rows.length} kept · {tail.dropped.value} dropped
        </span>
      </div>
      {rows.length === 0 ? (
        <div class="empty">{tail.status.value === "idle" ? "Not following. Start the live tail to see appends as they commit." : "Waiting for appends…"}</div>
      ) : (
        <ol class="msg-list" aria-label="Live messages, newest first">
          {[...rows].reverse().map((r) => (
            <MessageRow key={r.key} row={r} format={format} meta={clock(r.receivedAt)} />
          ))}
        </ol>
      )}
    </div>
  );
}

// Who reads this stream now: each live SSE or long-poll reader with its address, the offset it
// has been sent up to, and how far behind the tail it is, in bytes and messages. The list is
// bounded (the most behind first); the summary says how many there are in all.
import { useEffect, useMemo } from "preact/hooks";
import { ReadersModel, readersSummary } from "../../state/readers";
import { count } from "../../format";
import { Panel } from "../common/Panel";

export function ReadersPanel({ bucket, stream }: { bucket: string; stream: string }) {
  const model = useMemo(() => new ReadersModel(bucket, stream), [bucket, stream]);
  useEffect(() => {
    model.start();
    return () => model.stop();
  }, [model]);
  const page = model.list.data.value;
  const err = model.list.error.value;
  const rows = model.rows;
  return (
    <Panel title={`Live readers${page ? ` (${count(page.total)})` : ""}`} id="readers">
      {err && <p class="error-text small-line">Could not list the readers: {err.message}</p>}
      {page && (
        <p class="muted small-line" data-testid="readers-summary">
          {readersSummary(page)}
        </p>
      )}
      {rows.length > 0 && (
        <ul class="reader-list" aria-label="Live readers">
          {rows.map((r, i) => (
            <li key={`${r.kind}-${r.address}-${i}`} class="reader" data-kind={r.kind} data-caught-up={r.caughtUp}>
              <span class={`chip ${r.kind === "sse" ? "info" : "plain"}`}>{r.kind === "sse" ? "SSE" : "long-poll"}</span>
              <span class="mono" data-testid="reader-address">
                {r.address}
              </span>
              <span class="muted">reading for {r.readingFor}</span>
              <span>
                sent up to <span class="mono reader-offset">{r.offset}</span>
              </span>
              <span class={r.caughtUp ? "ok-text" : "warn-text"} data-testid="reader-behind">
                {r.caughtUp ? "at the tail" : `behind by ${r.behindBytes}, ${r.behindMessages}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

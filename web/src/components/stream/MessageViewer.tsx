// Catch-up reads one page at a time from oldest, an offset, or now. The start and the
// format are in the URL (?from=, ?as=) so a view of a given offset can be linked.
import { useEffect, useState } from "preact/hooks";
import type { ViewerModel } from "../../state/viewer";
import { setQuery } from "../../state/router";
import { offsetPosition } from "../../api/offsets";
import { defaultFormat, FormatPicker } from "./FormatPicker";
import { MessageRow, type RenderFormat } from "./MessageRow";

function fromParam(from: string): string {
  return from === "oldest" ? "-1" : from;
}

export function MessageViewer({ viewer, from, as, linkFor }: { viewer: ViewerModel; from: string; as: string | null; linkFor: (token: string) => string }) {
  const [offsetInput, setOffsetInput] = useState(from !== "oldest" && from !== "now" ? from : "");
  const format = (as as RenderFormat | null) ?? defaultFormat(viewer.kind);
  useEffect(() => void viewer.open(fromParam(from)), [viewer, from]);
  const page = viewer.page.value;
  const go = (f: string) => setQuery({ from: f === "oldest" ? undefined : f });
  const offsetValid = offsetInput === "" || offsetPosition(offsetInput) !== undefined;
  return (
    <div class="stack" style={{ gap: "8px" }}>
      <div class="row viewer-controls">
        <div class="row" role="group" aria-label="Start position">
          <button type="button" class="small" aria-pressed={from === "oldest"} onClick={() => go("oldest")}>
            Oldest
          </button>
          <button type="button" class="small" aria-pressed={from === "now"} onClick={() => go("now")}>
            Now
          </button>
          <form
            class="row"
            style={{ gap: "4px" }}
            onSubmit={(e) => {
              e.preventDefault();
              if (offsetInput && offsetValid) go(offsetInput);
            }}
          >
            <label class="sr-only" for="viewer-offset">
              Start offset
            </label>
            <input id="viewer-offset" class="mono" style={{ width: "300px" }} placeholder="offset, e.g. 0000000000000000_0000000000000042" value={offsetInput} onInput={(e) => setOffsetInput(e.currentTarget.value.trim())} aria-invalid={!offsetValid} />
            <button type="submit" class="small" disabled={!offsetInput || !offsetValid}>
              Go
            </button>
          </form>
        </div>
        <span class="grow" />
        <FormatPicker value={format} onChange={(f) => setQuery({ as: f === defaultFormat(viewer.kind) ? undefined : f })} />
      </div>
      <div class="row muted num" style={{ fontSize: "12px" }}>
        {page ? (
          <span data-testid="viewer-range">
            {page.rows.length} {viewer.kind === "json" ? "messages" : "chunk"} · {page.from === "-1" ? "oldest" : page.from} → {page.to}
            {page.upToDate ? " · up to date" : ""}
            {page.closed ? " · closed" : ""}
          </span>
        ) : (
          <span>loading…</span>
        )}
        <span class="grow" />
        <button type="button" class="small" disabled={viewer.history.value.length === 0 || viewer.loading.value} onClick={() => void viewer.prev()}>
          ← Previous page
        </button>
        <button type="button" class="small" disabled={!page || viewer.loading.value} onClick={() => void (page?.upToDate ? viewer.reload() : viewer.next())}>
          {page?.upToDate ? "Check for newer" : "Next page →"}
        </button>
      </div>
      {viewer.error.value && <div class="note bad">Read failed: {viewer.error.value}</div>}
      {page && page.rows.length === 0 && (
        <div class="empty">{page.upToDate ? "Nothing here yet: this position is the tail. New messages appear with “Check for newer”, or use the live tail." : "No data in this range."}</div>
      )}
      {page && page.rows.length > 0 && (
        <ol class="msg-list" aria-label="Messages">
          {page.rows.map((r) => (
            <MessageRow key={r.key} row={r} format={format} linkFor={viewer.kind === "json" ? linkFor : undefined} />
          ))}
        </ol>
      )}
    </div>
  );
}

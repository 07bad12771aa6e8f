// The messages tab: go to the oldest, the newest, an offset or a time; search; export a range;
// the list and the selected message. Where the viewer is and what it searches for live in the
// URL (?from=, ?at=, ?q=, ?field=, ?value=, ?case=, ?as=), so any view can be linked.
import { useEffect, useState } from "preact/hooks";
import type { StreamDetail } from "../../api/introspection";
import { offsetPosition, offsetToken } from "../../api/offsets";
import type { MessageWindow, OpenAt, ReadResult } from "../../state/messageWindow";
import { isEmptySearch, type SearchModel, type SearchSpec } from "../../state/search";
import { setQuery } from "../../state/router";
import { dateTime } from "../../format";
import { defaultFormat, FormatPicker } from "./FormatPicker";
import type { RenderFormat } from "./MessageRow";
import { MessageList } from "./MessageList";
import { MessageDetail } from "./MessageDetail";
import { SearchPanel } from "./SearchPanel";
import { ExportButton } from "./ExportDialog";

/** Where the URL says the viewer is. */
export function openAtOf(q: URLSearchParams): OpenAt {
  const at = q.get("at");
  if (at !== null && /^\d+$/.test(at)) return { kind: "time", atMs: Number(at) };
  const from = q.get("from");
  if (from === "now" || from === "newest") return { kind: "newest" };
  const p = from === null ? undefined : offsetPosition(from);
  return p === undefined ? { kind: "oldest" } : { kind: "offset", position: p };
}

export function searchOf(q: URLSearchParams): SearchSpec {
  return { text: q.get("q") ?? "", field: q.get("field") ?? "", value: q.get("value") ?? "", matchCase: q.get("case") === "1" };
}

/** datetime-local text (local time, to the millisecond) for a time. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 23);
}

function GoTo({ w, q }: { w: MessageWindow; q: URLSearchParams }) {
  const opened = openAtOf(q);
  const [offset, setOffset] = useState(opened.kind === "offset" ? offsetToken(opened.position) : "");
  const [time, setTime] = useState(opened.kind === "time" ? localInput(opened.atMs) : "");
  const offsetOk = offset === "" || offsetPosition(offset) !== undefined;
  const timeMs = time === "" ? NaN : new Date(time).getTime();
  const go = (patch: Record<string, string | undefined>) => setQuery({ from: undefined, at: undefined, ...patch });
  return (
    <div class="row viewer-controls" role="group" aria-label="Go to">
      <button type="button" class="small" aria-pressed={opened.kind === "oldest"} onClick={() => go({})}>
        Oldest
      </button>
      <button type="button" class="small" aria-pressed={opened.kind === "newest"} onClick={() => go({ from: "now" })}>
        Newest
      </button>
      <form
        class="row"
        style={{ gap: "4px" }}
        onSubmit={(e) => {
          e.preventDefault();
          if (offset && offsetOk) go({ from: offset });
        }}
      >
        <label class="sr-only" for="viewer-offset">
          Go to offset
        </label>
        <input id="viewer-offset" class="mono" style={{ width: "17rem" }} placeholder="offset, e.g. 0000000000000000_0000000000000042" value={offset} onInput={(e) => setOffset(e.currentTarget.value.trim())} aria-invalid={!offsetOk} />
        <button type="submit" class="small" disabled={!offset || !offsetOk}>
          Go
        </button>
      </form>
      <form
        class="row"
        style={{ gap: "4px" }}
        onSubmit={(e) => {
          e.preventDefault();
          if (!Number.isNaN(timeMs)) go({ at: String(timeMs) });
        }}
      >
        <label class="sr-only" for="viewer-time">
          Go to append time
        </label>
        <input id="viewer-time" type="datetime-local" step="0.001" value={time} onInput={(e) => setTime(e.currentTarget.value)} />
        <button type="submit" class="small" disabled={Number.isNaN(timeMs)}>
          Go to time
        </button>
      </form>
      {w.opened.value?.kind === "time" && <span class="muted small-line">first message appended at or after {dateTime(w.opened.value.atMs)}</span>}
    </div>
  );
}

export function MessageBrowser(props: {
  w: MessageWindow;
  search: SearchModel;
  d: StreamDetail;
  query: URLSearchParams;
  read: (offset: number, maxBytes: number, signal: AbortSignal) => Promise<ReadResult>;
  linkFor: (token: string) => string;
}) {
  const { w, search, d, query } = props;
  const format = (query.get("as") as RenderFormat | null) ?? defaultFormat(w.kind);
  const openKey = JSON.stringify(openAtOf(query));
  useEffect(() => void w.open(openAtOf(query)), [w, openKey]);
  const spec = searchOf(query);
  const specKey = JSON.stringify(spec);
  useEffect(() => {
    // From the first readable message: below a retained-from offset there is nothing to search.
    if (isEmptySearch(spec)) search.clear();
    else void search.run(spec, offsetPosition(d.retained_offset) ?? 0);
  }, [search, specKey]);
  const rows = w.rows.value;
  const selected = rows.find((m) => m.offset === w.selected.value);
  const first = rows[0];
  const last = rows[rows.length - 1];
  return (
    <div class="stack" style={{ gap: "8px" }}>
      <GoTo w={w} q={query} />
      <SearchPanel
        model={search}
        json={w.kind === "json"}
        spec={spec}
        onSearch={(s) => setQuery({ q: s.text || undefined, field: s.field || undefined, value: s.field && s.value ? s.value : undefined, case: s.matchCase ? "1" : undefined })}
        onClear={() => setQuery({ q: undefined, field: undefined, value: undefined, case: undefined })}
        onOpen={(offset) => setQuery({ from: offsetToken(offset), at: undefined })}
        format={format}
      />
      <div class="row muted num viewer-status">
        <span data-testid="viewer-range">
          {first && last
            ? `${rows.length.toLocaleString("en-US")} message${rows.length === 1 ? "" : "s"} loaded · bytes ${first.offset.toLocaleString("en-US")}–${(last.offset + last.size).toLocaleString("en-US")} of ${w.tail.value.toLocaleString("en-US")}`
            : w.loading.value === "open"
              ? "loading…"
              : "no messages here"}
        </span>
        <span class="grow" />
        <ExportButton d={d} kind={w.kind} window={first && last ? { from: first.offset, to: last.offset + last.size } : null} selected={selected?.offset ?? null} read={props.read} />
        <FormatPicker value={format} onChange={(f) => setQuery({ as: f === defaultFormat(w.kind) ? undefined : f })} />
      </div>
      {w.error.value && <div class="note bad">Read failed: {w.error.value}</div>}
      <div class="viewer-split">
        <div class="stack" style={{ gap: "6px", minWidth: 0 }}>
          {rows.length > 0 && (
            // Always one line, button or not: opening at the newest must not push the list down.
            <div class="row list-edge">
              {w.hasBefore.value ? (
                <button type="button" class="small load-more" disabled={w.loading.value !== null} onClick={() => void w.loadBefore()}>
                  {w.loading.value === "before" ? "Loading…" : "↑ Load earlier messages"}
                </button>
              ) : (
                <span class="muted small-line">{offsetPosition(d.retained_offset) ? "The first message retention kept" : "The stream's first message"}</span>
              )}
            </div>
          )}
          {rows.length === 0 && w.loading.value === null && !w.error.value && (
            <div class="empty">
              {w.opened.value?.kind === "time"
                ? "No message was appended at or after that time."
                : w.hasBefore.value
                  ? "Nothing here: this position is the tail."
                  : "This stream holds no messages yet."}
            </div>
          )}
          <MessageList w={w} format={format} linkFor={props.linkFor} />
          {rows.length > 0 && (
            <div class="row">
              {w.hasAfter.value ? (
                <button type="button" class="small load-more" disabled={w.loading.value !== null} onClick={() => void w.loadAfter()}>
                  {w.loading.value === "after" ? "Loading…" : "↓ Load more"}
                </button>
              ) : (
                <button type="button" class="small load-more" disabled={w.loading.value !== null} onClick={() => void w.loadAfter()}>
                  At the tail · check for newer
                </button>
              )}
            </div>
          )}
        </div>
        <MessageDetail m={selected} format={format} linkFor={props.linkFor} />
      </div>
    </div>
  );
}

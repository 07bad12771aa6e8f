// The viewer's message list, virtualized inside a scroll box of its own: the list is as tall as
// every message it holds, one fixed-height row each, but only the rows in the box's view (and a
// few around them) are in the DOM, so 10,000 loaded rows cost what 60 do. Selecting a message,
// opening at the newest and the arrow keys scroll only this box, never the page, so a stream page
// stays where its reader put it (at the top, on its guards). Scrolling near the end loads the next
// page; loading earlier messages keeps the rows on screen where they were.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Message, MessageWindow } from "../../state/messageWindow";
import { inlineJson } from "../../api/jsonPretty";
import { formatBytes, offsetToken } from "../../api/offsets";
import { clock } from "../../format";
import { Link } from "../common/Link";
import type { RenderFormat } from "./MessageRow";

export const ROW_H = 30;
const OVERSCAN = 10;
/** Rows from the end at which the next page is asked for. */
const GROW_AT = 40;

const utf8 = new TextEncoder();

export function previewOf(m: Message, format: RenderFormat): string {
  if (format === "hex") {
    const b = m.bytes ?? utf8.encode(m.text ?? "");
    return Array.from(b.subarray(0, 24), (x) => x.toString(16).padStart(2, "0")).join(" ") + (b.length > 24 ? " …" : "");
  }
  if (m.text === undefined) return previewOf(m, "hex");
  const t = m.text.length > 400 ? m.text.slice(0, 400) : m.text;
  return format === "json" ? inlineJson(t) : t.replace(/\r?\n/g, "↵ ");
}

export function MessageList({ w, format, linkFor }: { w: MessageWindow; format: RenderFormat; linkFor: (token: string) => string }) {
  const rows = w.rows.value;
  const selected = w.selected.value;
  const box = useRef<HTMLDivElement>(null);
  const ref = useRef<HTMLOListElement>(null);
  const [range, setRange] = useState<[number, number]>([0, 50]);
  const anchor = useRef<{ offset: number; y: number } | null>(null);
  const focusNext = useRef<number | null>(null);
  const scrolledFor = useRef<unknown>(null);
  /** The rows the last layout was for: only a change of rows moves the anchor, not a selection. */
  const heldRows = useRef(rows);

  const measure = useCallback(() => {
    const b = box.current;
    if (!b) return;
    const top = b.scrollTop;
    const view = b.clientHeight || innerHeight;
    let first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((top + view) / ROW_H) + OVERSCAN);
    if (last - first < Math.ceil(view / ROW_H) + OVERSCAN) first = Math.max(0, last - Math.ceil(view / ROW_H) - OVERSCAN);
    setRange((r) => (r[0] === first && r[1] === last ? r : [first, last]));
    const visible = Math.min(rows.length - 1, Math.max(0, Math.floor(top / ROW_H)));
    const r = rows[visible];
    anchor.current = r ? { offset: r.offset, y: visible * ROW_H - top } : null;
    if (last >= rows.length - GROW_AT && w.hasAfter.value && w.loading.value === null) void w.loadAfter();
  }, [rows, w]);

  useEffect(() => {
    addEventListener("resize", measure);
    return () => removeEventListener("resize", measure);
  }, [measure]);

  useLayoutEffect(() => {
    const b = box.current;
    if (!b) return;
    const opened = w.opened.value;
    if (scrolledFor.current !== opened) {
      // A new opening: bring the selected row into the box's view (the last one, when opened at
      // the newest).
      scrolledFor.current = opened;
      anchor.current = null;
      const i = rows.findIndex((m) => m.offset === selected);
      if (i >= 0) b.scrollTop = opened?.kind === "newest" ? (i + 1) * ROW_H - b.clientHeight : Math.max(0, i * ROW_H - 2 * ROW_H);
    } else if (heldRows.current !== rows && anchor.current) {
      // Rows came or went above: keep the row that was at the top of the box where it was.
      const i = rows.findIndex((m) => m.offset === anchor.current!.offset);
      if (i >= 0) {
        const y = i * ROW_H - b.scrollTop;
        if (Math.abs(y - anchor.current.y) >= 1) b.scrollTop += y - anchor.current.y;
      }
    }
    heldRows.current = rows;
    measure();
    if (focusNext.current !== null) {
      ref.current?.querySelector<HTMLButtonElement>(`li[data-offset="${focusNext.current}"] button.msg-select`)?.focus({ preventScroll: true });
      focusNext.current = null;
    }
  }, [rows, selected]);

  const move = (by: number) => {
    // From the selection as it is now, not from the row that got the key: keys pressed faster
    // than the list re-renders all reach the row that had focus, and each must count.
    const from = rows.findIndex((m) => m.offset === w.selected.value);
    const i = Math.min(rows.length - 1, Math.max(0, from + by));
    const m = rows[i];
    if (!m) return;
    w.select(m.offset);
    focusNext.current = m.offset;
    const b = box.current!;
    const y = i * ROW_H - b.scrollTop;
    if (y < 0) b.scrollTop += y;
    else if (y + ROW_H > b.clientHeight) b.scrollTop += y + ROW_H - b.clientHeight;
    if (i >= rows.length - 2 && w.hasAfter.value) void w.loadAfter();
  };

  const [first, last] = range;
  const shown = rows.slice(first, Math.max(first, last));
  return (
    <div ref={box} class={`vlist-box ${rows.length === 0 ? "none" : ""}`} onScroll={measure}>
      <ol ref={ref} class="vlist" aria-label="Messages" style={{ height: `${rows.length * ROW_H}px` }}>
        {shown.map((m, j) => {
          const i = first + j;
          const isSel = m.offset === selected;
          return (
            <li key={m.offset} class={`vrow ${isSel ? "selected" : ""}`} style={{ transform: `translateY(${i * ROW_H}px)` }} data-offset={m.offset} aria-setsize={rows.length} aria-posinset={i + 1}>
              <Link class="mono off" href={linkFor(offsetToken(m.offset))} title={`Read from ${offsetToken(m.offset)}`}>
                @{m.offset.toLocaleString("en-US")}
              </Link>
              <button
                type="button"
                class="msg-select mono"
                aria-pressed={isSel}
                onClick={() => w.select(m.offset)}
                onKeyDown={(e) => {
                  const by = e.key === "ArrowDown" ? 1 : e.key === "ArrowUp" ? -1 : e.key === "PageDown" ? 20 : e.key === "PageUp" ? -20 : 0;
                  if (by === 0) return;
                  e.preventDefault();
                  move(by);
                }}
              >
                {previewOf(m, format)}
              </button>
              <span class="muted num time" title={m.atMs === null ? "inherited from the fork's source" : new Date(m.atMs).toISOString()}>
                {m.atMs === null ? "inherited" : clock(m.atMs)}
              </span>
              <span class="muted num size">{formatBytes(m.size)}</span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

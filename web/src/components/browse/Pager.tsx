// Cursor pagination. The API only pages forward (after=<cursor>), so the cursors of the
// pages visited are remembered per list to make "Previous" work; a page opened from a link
// (after= already set, no history) offers "First page" instead.
import { setQuery } from "../../state/router";

const trails = new Map<string, string[]>();

/** A sorted list's cursor is `[value, name]`; the name is what a person recognises. */
function cursorLabel(cursor: string): string {
  if (!cursor.startsWith("[")) return cursor;
  try {
    const v = JSON.parse(cursor) as unknown[];
    return String(v[1]);
  } catch {
    return cursor;
  }
}

/** A count as the server gave it: past the server's counting cap (a prefix's total), "at least". */
export function formatTotal(n: number, capped: boolean): string {
  return `${n.toLocaleString("en-US")}${capped ? "+" : ""}`;
}

export function Pager(props: { listKey: string; after: string; nextCursor: string | null; hasMore: boolean; shown: number; total?: string; note?: string }) {
  const trail = trails.get(props.listKey) ?? [];
  const next = () => {
    trails.set(props.listKey, [...trail, props.after]);
    setQuery({ after: props.nextCursor ?? undefined }, { push: true });
  };
  const prev = () => {
    const t = [...trail];
    const back = t.pop();
    trails.set(props.listKey, t);
    setQuery({ after: back || undefined }, { push: true });
  };
  const first = () => {
    trails.set(props.listKey, []);
    setQuery({ after: undefined }, { push: true });
  };
  return (
    <div class="row pager" role="navigation" aria-label="Pages">
      <span class="muted num">
        {props.after ? `after “${cursorLabel(props.after)}” · ` : ""}
        {props.shown} shown{props.total !== undefined ? ` of ${props.total}` : ""}
        {props.note ? ` · ${props.note}` : ""}
      </span>
      <span class="grow" />
      {trail.length > 0 ? (
        <button type="button" class="small" onClick={prev}>
          ← Previous
        </button>
      ) : (
        props.after && (
          <button type="button" class="small" onClick={first}>
            ⇤ First page
          </button>
        )
      )}
      <button type="button" class="small" disabled={!props.hasMore} onClick={next}>
        Next →
      </button>
    </div>
  );
}

// One page of a bucket's streams with the guards' state in columns. Sortable headers are
// buttons (aria-sort on the column says the order); the last Stream-Seq shows its padding
// dimmed so the digits that matter read at a glance and never wrap. On a phone each row is a
// card whose cells say their column (data-label), and the header keeps only its sort buttons.
import type { StreamListRow, StreamSortKey } from "../../api/introspection";
import { formatBytes } from "../../api/offsets";
import { links } from "../../state/router";
import type { ListView } from "../../state/streamList";
import { splitPadding } from "../../state/swimlane";
import { age, dateTime } from "../../format";
import { Link } from "../common/Link";
import { ActionButtons, type ActionKind, type ActionTarget } from "../operate/StreamActions";
import { protocolPath } from "../../api/introspection";

const COLUMNS: { key: StreamSortKey | null; label: string; cls?: string }[] = [
  { key: "name", label: "Stream" },
  { key: "last_seq", label: "Last Stream-Seq" },
  { key: "created", label: "Incarnation" },
  { key: null, label: "Producers", cls: "right" },
  { key: null, label: "State" },
  { key: "tail", label: "Tail", cls: "right" },
  { key: "last_write", label: "Last write" },
  { key: null, label: "Content type" },
  { key: null, label: "Actions" },
];

export function Padded({ value }: { value: string }) {
  const [zeros, rest] = splitPadding(value);
  return (
    <span class="mono nowrap" title={value}>
      <span class="pad">{zeros}</span>
      {rest}
    </span>
  );
}

export function actionTarget(bucket: string, s: StreamListRow): ActionTarget {
  return {
    bucket,
    stream: s.stream_id,
    path: protocolPath(bucket, s.stream_id),
    contentType: s.content_type,
    incarnation: s.incarnation,
    closed: s.status === "Closed",
    messageCount: s.message_count,
    lastSeq: s.last_stream_seq,
  };
}

export function StreamTable(props: { bucket: string; rows: StreamListRow[]; view: ListView; onSort: (k: StreamSortKey) => void; onAction: (t: ActionTarget, kind: ActionKind) => void }) {
  const { bucket, rows, view, onSort } = props;
  return (
    <div class="stream-table-frame">
      <table class="stream-table" aria-label="Streams">
        <thead>
          <tr>
            {COLUMNS.map((c) => {
              const sorted = c.key !== null && view.sort === c.key;
              return (
                <th key={c.label} class={c.cls} data-sortable={c.key !== null || undefined} aria-sort={sorted ? (view.order === "asc" ? "ascending" : "descending") : undefined} scope="col">
                  {c.key ? (
                    <button type="button" class="sort" onClick={() => onSort(c.key!)} data-sort={c.key}>
                      {c.label}
                      <span class="sort-mark" aria-hidden="true">
                        {sorted ? (view.order === "asc" ? "▲" : "▼") : "↕"}
                      </span>
                    </button>
                  ) : (
                    c.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.stream_id} data-stream={s.stream_id}>
              <td class="name-cell">
                <Link href={links.stream(bucket, s.stream_id)} class="mono">
                  {s.stream_id}
                </Link>
                {s.forked && <span class="chip plain fork-chip" title={`forked from ${s.fork_source ?? "a stream you cannot see"}`}>fork</span>}
              </td>
              <td data-col="last_seq" data-label="Last Stream-Seq">{s.last_stream_seq === null ? <span class="muted">none</span> : <Padded value={s.last_stream_seq} />}</td>
              <td class="mono nowrap" data-col="incarnation" data-label="Incarnation" title={`created ${dateTime(s.created_at_ms)}`}>
                {s.incarnation}
              </td>
              <td class="num right" data-col="producers" data-label="Producers">
                {s.producer_count}
              </td>
              <td data-col="state" data-label="State">
                <span class={`chip ${s.status === "Open" ? "ok" : "plain"}`}>{s.status === "Open" ? "open" : "closed"}</span>
              </td>
              <td class="num mono right nowrap" data-col="tail" data-label="Tail" title={`${s.next_offset} · ${s.message_count.toLocaleString("en-US")} messages`}>
                {formatBytes(s.tail_offset)}
              </td>
              <td class="nowrap" data-col="last_write" data-label="Last write" title={s.last_write_at_ms ? dateTime(s.last_write_at_ms) : undefined}>
                {s.last_write_at_ms ? age(s.last_write_at_ms) : <span class="muted">never</span>}
              </td>
              <td class="mono type-cell" title={s.content_type}>
                {s.content_type}
              </td>
              <td data-col="actions">
                <ActionButtons compact t={actionTarget(bucket, s)} onChoose={(kind) => props.onAction(actionTarget(bucket, s), kind)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

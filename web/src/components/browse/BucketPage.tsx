// The streams of one bucket: sortable by every indexed column, filterable, cursor pages of 100
// (a bucket may hold 10,000 streams; only one page is ever fetched or in the DOM). The whole
// view is in the URL. A write this console sends to any stream of the bucket reloads the page.
import { useEffect, useMemo, useState } from "preact/hooks";
import { introspection, protocolPath } from "../../api/introspection";
import { onStreamChanged } from "../../state/transport";
import { links, setQuery } from "../../state/router";
import { isFiltered, StreamListModel, toggleSort, viewFromQuery, viewToQuery, withFilter, type ListView } from "../../state/streamList";
import { Link } from "../common/Link";
import { formatTotal, Pager } from "./Pager";
import { ListFilters } from "./ListFilters";
import { StreamTable } from "./StreamTable";
import { SubscriptionsPanel } from "./SubscriptionsPanel";
import { CreateStreamButton } from "../operate/CreateStreamDialog";
import { ConcealedNote } from "../access/Concealed";
import { ActionDialogs, ResourceDialogs, type ActionKind, type ActionTarget } from "../operate/StreamActions";

const show = (v: ListView) => setQuery(viewToQuery(v));

export function BucketPage({ bucket, query }: { bucket: string; query: URLSearchParams }) {
  const view = viewFromQuery(query);
  const key = JSON.stringify(view);
  const list = useMemo(() => new StreamListModel((q, s) => introspection.streams(bucket, q, s)), [bucket]);
  useEffect(() => void list.load(view), [list, key]);
  useEffect(() => () => list.dispose(), [list]);
  // This console's own writes to any stream of the bucket change the list.
  const prefix = protocolPath(bucket, "");
  useEffect(() => onStreamChanged((path) => path.startsWith(prefix) && void list.reload()), [list, prefix]);
  const [action, setAction] = useState<{ t: ActionTarget; kind: ActionKind } | null>(null);
  const rows = list.rows.value;
  const total = list.total.value;
  const filtered = isFiltered(view);
  return (
    <>
      <div class="page-head">
        <div>
          <div class="crumbs">
            <Link href={links.buckets()}>Buckets</Link>
            <span class="sep">/</span>
          </div>
          <h1 class="mono">{bucket}</h1>
          <div class="sub num" data-testid="stream-total">
            {total === null ? "…" : `${formatTotal(total, list.totalCapped.value)} stream${total === 1 ? "" : "s"}${view.prefix ? ` starting with “${view.prefix}”` : ""}`}
          </div>
        </div>
        <div class="actions">
          <CreateStreamButton bucket={bucket} />
        </div>
      </div>
      <ListFilters f={view} onChange={(patch) => show(withFilter(view, patch))} />
      <section class="panel" aria-label="Stream list">
        {list.error.value && (
          <div class="note bad">
            Could not list streams: {list.error.value}
            <ConcealedNote bucket={bucket} />
          </div>
        )}
        <StreamTable bucket={bucket} rows={rows} view={view} onSort={(k) => show(toggleSort(view, k))} onAction={(t, kind) => setAction({ t, kind })} />
        {total !== null && rows.length === 0 && !list.stopped.value && (
          <div class="empty">{filtered || view.prefix ? "No stream matches these filters." : "This bucket holds no streams. Create one, or run a lab."}</div>
        )}
        {list.stopped.value && (
          <div class="note info" data-testid="scan-stopped">
            Looked at {list.scanned.value.toLocaleString("en-US")} streams and found {rows.length === 0 ? "none" : rows.length} matching so far. “Next” scans on from there.
          </div>
        )}
        {total !== null && (
          <div class="body">
            <Pager
              listKey={`${bucket}?${JSON.stringify({ ...view, after: "" })}`}
              after={view.after}
              nextCursor={list.nextCursor.value}
              hasMore={list.hasMore.value}
              shown={rows.length}
              total={filtered ? undefined : formatTotal(total, list.totalCapped.value)}
              note={filtered ? `${list.scanned.value.toLocaleString("en-US")} looked at` : undefined}
            />
          </div>
        )}
      </section>
      <SubscriptionsPanel bucket={bucket} />
      <ActionDialogs t={action?.t ?? null} open={action?.kind ?? null} onClose={() => setAction(null)} />
      {action && <ResourceDialogs t={action.t} open={action.kind} onClose={() => setAction(null)} />}
    </>
  );
}

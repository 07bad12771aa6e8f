// The streams of one bucket: prefix filter, total count, cursor pages of 100 (a bucket may
// hold 10,000 streams; only one page is ever in the DOM).
import { useEffect, useMemo } from "preact/hooks";
import { introspection, type PageQuery, type StreamPage } from "../../api/introspection";
import { formatBytes, shortOffset } from "../../api/offsets";
import { Resource } from "../../state/resource";
import { links } from "../../state/router";
import { age, dateTime } from "../../format";
import { Link } from "../common/Link";
import { PrefixFilter } from "./PrefixFilter";
import { Pager } from "./Pager";

const PAGE = 100;

export function BucketPage({ bucket, query }: { bucket: string; query: URLSearchParams }) {
  const prefix = query.get("prefix") ?? "";
  const after = query.get("after") ?? "";
  const list = useMemo(() => new Resource<StreamPage, PageQuery>((q, s) => introspection.streams(bucket, q, s)), [bucket]);
  useEffect(() => void list.load({ prefix, after, limit: PAGE }), [list, prefix, after]);
  useEffect(() => () => list.dispose(), [list]);
  const data = list.data.value;
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
            {data ? `${data.total.toLocaleString("en-US")} stream${data.total === 1 ? "" : "s"}${prefix ? ` starting with “${prefix}”` : ""}` : "…"}
          </div>
        </div>
        <PrefixFilter value={prefix} label="Stream prefix" placeholder="e.g. orders-" />
      </div>
      <section class="panel" aria-label="Streams">
        {list.error.value && <div class="note bad">Could not list streams: {list.error.value.message}</div>}
        <table>
          <thead>
            <tr>
              <th>Stream</th>
              <th>Content type</th>
              <th>Status</th>
              <th style={{ textAlign: "right" }}>Tail</th>
              <th>Last write</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {data?.streams.map((s) => (
              <tr key={s.stream_id}>
                <td>
                  <Link href={links.stream(bucket, s.stream_id)} class="mono">
                    {s.stream_id}
                  </Link>
                </td>
                <td class="mono">{s.content_type}</td>
                <td>
                  <span class={`chip ${s.status === "Open" ? "ok" : "plain"}`}>{s.status === "Open" ? "open" : "closed"}</span>
                </td>
                <td class="num mono" style={{ textAlign: "right" }} title={s.next_offset}>
                  {formatBytes(s.tail_offset)} <span class="muted">{shortOffset(s.next_offset)}</span>
                </td>
                <td title={s.last_write_at_ms ? dateTime(s.last_write_at_ms) : undefined}>{s.last_write_at_ms ? age(s.last_write_at_ms) : <span class="muted">never</span>}</td>
                <td title={dateTime(s.created_at_ms)}>{age(s.created_at_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {data && data.streams.length === 0 && <div class="empty">{prefix ? `No stream starts with “${prefix}”.` : "This bucket holds no streams."}</div>}
        {data && (
          <div class="body">
            <Pager listKey={`${bucket}?${prefix}`} after={after} nextCursor={data.next_cursor} hasMore={data.has_more} shown={data.streams.length} total={data.total} />
          </div>
        )}
      </section>
    </>
  );
}

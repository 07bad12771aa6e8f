// Buckets with their stream counts and live readers, filtered by prefix, sorted by name or by
// readers, and paged; state lives in the URL. A stream created from here (in any bucket, new or
// not) reloads the list.
import { useEffect, useMemo } from "preact/hooks";
import { introspection, type BucketPage, type PageQuery } from "../../api/introspection";
import { Resource } from "../../state/resource";
import { onStreamChanged } from "../../state/transport";
import { links, setQuery } from "../../state/router";
import { CreateStreamButton } from "../operate/CreateStreamDialog";
import { Link } from "../common/Link";
import { TextFilter } from "./ListFilters";
import { formatTotal, Pager } from "./Pager";
import { auth } from "../../state/auth";
import type { BucketRow } from "../../api/introspection";
import type { BucketSort } from "../../api/readers";

const PAGE = 100;

export function BucketsPage({ query }: { query: URLSearchParams }) {
  const prefix = query.get("prefix") ?? "";
  const after = query.get("after") ?? "";
  const sort: BucketSort = query.get("sort") === "readers" ? "readers" : "name";
  const list = useMemo(() => new Resource<BucketPage, PageQuery>((q, s) => introspection.buckets(q, s)), []);
  useEffect(() => void list.load({ prefix, after, limit: PAGE, sort: sort === "readers" ? sort : undefined }), [prefix, after, sort]);
  useEffect(() => () => list.dispose(), []);
  useEffect(() => onStreamChanged(() => void list.reload()), []);
  const data = list.data.value;
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Buckets</h1>
          <div class="sub">{data ? `${formatTotal(data.total, data.total_capped)} bucket${data.total === 1 ? "" : "s"}${prefix ? ` starting with “${prefix}”` : ""}` : "…"}</div>
        </div>
        <div class="actions" style={{ alignItems: "flex-end" }}>
          <TextFilter value={prefix} label="Bucket prefix" placeholder="e.g. demo" width="280px" onChange={(v) => setQuery({ prefix: v, after: undefined })} />
          <label class="field">
            <span>Sort by</span>
            <select aria-label="Sort buckets by" value={sort} onChange={(e) => setQuery({ sort: e.currentTarget.value === "readers" ? "readers" : undefined, after: undefined })}>
              <option value="name">name</option>
              <option value="readers">live readers, most first</option>
            </select>
          </label>
          <CreateStreamButton />
        </div>
      </div>
      <section class="panel" aria-labelledby="buckets-title">
        <header>
          <h2 id="buckets-title">Buckets</h2>
          <span class="muted">every bucket on this server, how many streams it holds and how many readers follow them now</span>
        </header>
        {list.error.value && (
          <div class="note bad">
            {list.error.value.status === 401 ? (
              <>
                This server lists its buckets to a token only.{" "}
                <button type="button" class="link" onClick={() => auth.prompt()}>
                  Enter a token
                </button>
              </>
            ) : (
              `Could not list buckets: ${list.error.value.message}`
            )}
          </div>
        )}
        <table>
          <thead>
            <tr>
              <th>Bucket</th>
              <th style={{ textAlign: "right", width: "160px" }}>Streams</th>
              <th style={{ textAlign: "right", width: "160px" }}>Live readers</th>
            </tr>
          </thead>
          <tbody>
            {data?.buckets.map((b: BucketRow) => (
              <tr key={b.bucket_id} data-bucket={b.bucket_id}>
                <td>
                  <Link href={links.bucket(b.bucket_id)} class="mono">
                    {b.bucket_id}
                  </Link>
                </td>
                <td class="num" style={{ textAlign: "right" }}>
                  {b.stream_count.toLocaleString("en-US")}
                </td>
                <td class="num" style={{ textAlign: "right" }} data-col="live_readers">
                  {b.live_readers.toLocaleString("en-US")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {data && data.buckets.length === 0 && (
          <div class="empty">{prefix ? `No bucket starts with “${prefix}”.` : "No buckets yet. Create a stream, or make the demo bucket from the start page."}</div>
        )}
        {data && (
          <div class="body">
            <Pager listKey={`buckets?${prefix}&${sort}`} after={after} nextCursor={data.next_cursor} hasMore={data.has_more} shown={data.buckets.length} />
          </div>
        )}
      </section>
    </>
  );
}

// Typed client for the console's JSON introspection API under /__ursula/api/ (a prefix no
// bucket can take: bucket ids may not start with "__"). Returns a result, never throws.

export type {
  BucketPage,
  BucketRow,
  ForkNode,
  ForkTree,
  MessageIndexPage,
  MessageMeta,
  ProducerRow,
  SearchMatch,
  SearchPage,
  ServerInfo,
  SortOrder,
  StreamDetail,
  StreamFilters,
  StreamListRow,
  StreamPage,
  StreamSortKey,
  StreamSummary,
} from "../../../server/introspection-api";
export { STREAM_SORT_KEYS } from "../../../server/introspection-api";
import type { BucketPage, ForkTree, MessageIndexPage, SearchPage, ServerInfo, SortOrder, StreamDetail, StreamFilters, StreamPage, StreamSortKey } from "../../../server/introspection-api";

export type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; code?: string; message: string };

export const API_BASE = "/__ursula/api";

async function getJson<T>(path: string, signal?: AbortSignal): Promise<ApiResult<T>> {
  try {
    const res = await fetch(API_BASE + path, { signal, cache: "no-store" });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, status: res.status, message: `not JSON: ${text.slice(0, 120)}` };
    }
    if (!res.ok) {
      const err = (body as { error?: { code?: string; message?: string } }).error;
      return { ok: false, status: res.status, code: err?.code, message: err?.message ?? res.statusText };
    }
    return { ok: true, data: body as T };
  } catch (e) {
    return { ok: false, status: 0, message: e instanceof Error ? e.message : String(e) };
  }
}

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

export interface PageQuery {
  prefix?: string;
  after?: string;
  limit?: number;
}

export interface StreamListQuery extends Partial<StreamFilters> {
  sort?: StreamSortKey;
  order?: SortOrder;
  after?: string;
  limit?: number;
}

/** Where a page of the message index starts: at a byte position, before one, or at a time. */
export type IndexAt = { from: number } | { before: number } | { atMs: number };

export interface SearchQuery {
  from: number;
  q?: string;
  field?: string;
  value?: string;
  matchCase?: boolean;
  limit?: number;
}

const streamApi = (bucket: string, stream: string) => `/streams/${encodeURIComponent(bucket)}/${encodeURIComponent(stream)}`;

export const introspection = {
  info: (signal?: AbortSignal) => getJson<ServerInfo>("/info", signal),
  buckets: (q: PageQuery, signal?: AbortSignal) => getJson<BucketPage>(`/buckets${query({ ...q })}`, signal),
  streams: (bucket: string, q: StreamListQuery, signal?: AbortSignal) =>
    getJson<StreamPage>(`/buckets/${encodeURIComponent(bucket)}/streams${query({ ...q })}`, signal),
  stream: (bucket: string, stream: string, signal?: AbortSignal) => getJson<StreamDetail>(streamApi(bucket, stream), signal),
  forks: (bucket: string, stream: string, signal?: AbortSignal) => getJson<ForkTree>(`${streamApi(bucket, stream)}/forks`, signal),
  messages: (bucket: string, stream: string, at: IndexAt, limit: number, signal?: AbortSignal) =>
    getJson<MessageIndexPage>(
      `${streamApi(bucket, stream)}/messages${query({ from: "from" in at ? at.from : undefined, before: "before" in at ? at.before : undefined, at_ms: "atMs" in at ? at.atMs : undefined, limit })}`,
      signal,
    ),
  search: (bucket: string, stream: string, q: SearchQuery, signal?: AbortSignal) =>
    getJson<SearchPage>(
      `${streamApi(bucket, stream)}/search${query({ from: q.from, q: q.q, field: q.field, value: q.value, match_case: q.matchCase ? 1 : undefined, limit: q.limit })}`,
      signal,
    ),
};

/** The server's Prometheus text, or why there is none (a server without /__ursula/metrics answers 404). */
export async function fetchMetrics(signal?: AbortSignal): Promise<{ ok: true; text: string; at: number } | { ok: false; status: number; message: string }> {
  try {
    const res = await fetch("/__ursula/metrics", { signal, cache: "no-store" });
    if (!res.ok) return { ok: false, status: res.status, message: res.statusText };
    return { ok: true, text: await res.text(), at: Date.now() };
  } catch (e) {
    return { ok: false, status: 0, message: e instanceof Error ? e.message : String(e) };
  }
}

/** The protocol URL path of a stream (spec §1.4: bucket _default is served at /v1/stream/). */
export function protocolPath(bucket: string, stream: string): string {
  return bucket === "_default" ? `/v1/stream/${encodeURIComponent(stream)}` : `/${bucket}/${encodeURIComponent(stream)}`;
}

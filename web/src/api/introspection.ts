// Typed client for the console's JSON introspection API under /__ursula/api/ (a prefix no
// bucket can take: bucket ids may not start with "__"). Returns a result, never throws.

export type {
  BucketPage,
  BucketRow,
  ForkNode,
  ForkTree,
  HiddenForkNode,
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
  VisibleForkNode,
  WhoAmI,
} from "../../../server/introspection-api";
export { STREAM_SORT_KEYS } from "../../../server/introspection-api";
import type { BucketPage, ForkTree, MessageIndexPage, SearchPage, ServerInfo, SortOrder, StreamDetail, StreamFilters, StreamPage, StreamSortKey, WhoAmI } from "../../../server/introspection-api";
import { addBearer, noticeChallenge, parseBearerChallenge } from "./credentials";

export type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; code?: string; message: string };

export const API_BASE = "/__ursula/api";

/**
 * A GET of the console's own API, with its bearer token; a 401 challenge goes to its owner unless
 * `challenge` is false (metrics: a server with public reads still keeps them for tokens, and the
 * server page says so instead of asking for one on every visit).
 */
async function authorizedGet(path: string, signal?: AbortSignal, challenge = true): Promise<Response> {
  const headers = new Headers();
  addBearer(headers);
  const res = await fetch(path, { signal, cache: "no-store", headers });
  if (challenge || parseBearerChallenge(res.headers.get("www-authenticate"))?.error === "invalid_token") noticeChallenge(res.status, res.headers.get("www-authenticate"), path);
  return res;
}

/**
 * A GET of the introspection API as a result (never throws). `challenge` false: a 401 is shown
 * where it happened instead of asking for a token (a part of a page only admins see).
 */
export async function getJson<T>(path: string, signal?: AbortSignal, challenge = true): Promise<ApiResult<T>> {
  try {
    const res = await authorizedGet(API_BASE + path, signal, challenge);
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
  /** Buckets only: "readers" lists the most live readers first (api/readers.ts). */
  sort?: string;
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

/**
 * A stream's record, or null when there is none, asked so that a missing stream answers 200:
 * the browser logs every 404 as a console error, and a target that does not exist yet is normal
 * in the composer. The bucket list (from the bucket's name on) says whether the bucket exists,
 * its stream list (from the stream's name on) whether the stream does; only then is it read.
 */
export async function findStream(bucket: string, stream: string, signal?: AbortSignal): Promise<ApiResult<StreamDetail | null>> {
  const buckets = await introspection.buckets({ prefix: bucket, limit: 1 }, signal);
  if (!buckets.ok) return buckets;
  if (buckets.data.buckets[0]?.bucket_id !== bucket) return { ok: true, data: null };
  const streams = await introspection.streams(bucket, { prefix: stream, limit: 1 }, signal);
  if (!streams.ok) return streams;
  if (streams.data.streams[0]?.stream_id !== stream) return { ok: true, data: null };
  return introspection.stream(bucket, stream, signal);
}

export type MetricsResult = { ok: true; text: string; at: number } | { ok: false; status: number; code?: string; message: string };

/** The server's Prometheus text, or why there is none (a server without /__ursula/metrics answers 404). */
export async function fetchMetrics(signal?: AbortSignal): Promise<MetricsResult> {
  try {
    const res = await authorizedGet("/__ursula/metrics", signal, false);
    if (!res.ok) {
      const text = await res.text();
      let err: { code?: string; message?: string } | undefined;
      try {
        err = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      } catch {
        /* not an error body */
      }
      return { ok: false, status: res.status, code: err?.code, message: err?.message ?? res.statusText };
    }
    return { ok: true, text: await res.text(), at: Date.now() };
  } catch (e) {
    return { ok: false, status: 0, message: e instanceof Error ? e.message : String(e) };
  }
}

export type Readiness = { ready: boolean; status: number; reason?: string } | { ready: null; message: string };

/** GET /__ursula/ready: 200 while the store is open and takes writes, else 503 and why (no token needed). */
export async function fetchReadiness(signal?: AbortSignal): Promise<Readiness> {
  try {
    const res = await fetch("/__ursula/ready", { signal, cache: "no-store" });
    let reason: string | undefined;
    try {
      reason = ((await res.json()) as { reason?: string }).reason;
    } catch {
      /* no JSON body */
    }
    return { ready: res.status === 200, status: res.status, reason };
  } catch (e) {
    return { ready: null, message: e instanceof Error ? e.message : String(e) };
  }
}

export type WhoAmIResult = { ok: true; data: WhoAmI } | { ok: false; status: number; message: string; invalidToken: boolean };

/**
 * GET /__ursula/api/whoami with this token (or none): what it may do. A refused token is a 401;
 * the answer is not reported as a challenge, since whoever asked is deciding about the token.
 */
export async function fetchWhoAmI(token: string | null, signal?: AbortSignal): Promise<WhoAmIResult> {
  try {
    const res = await fetch(`${API_BASE}/whoami`, { signal, cache: "no-store", headers: token ? { Authorization: `Bearer ${token}` } : {} });
    const text = await res.text();
    if (res.ok) return { ok: true, data: JSON.parse(text) as WhoAmI };
    let message = res.statusText;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      /* not an error body */
    }
    return { ok: false, status: res.status, message, invalidToken: parseBearerChallenge(res.headers.get("www-authenticate"))?.error === "invalid_token" };
  } catch (e) {
    return { ok: false, status: 0, message: e instanceof Error ? e.message : String(e), invalidToken: false };
  }
}

/** The protocol URL path of a stream (spec §1.4: bucket _default is served at /v1/stream/). */
export function protocolPath(bucket: string, stream: string): string {
  return bucket === "_default" ? `/v1/stream/${encodeURIComponent(stream)}` : `/${bucket}/${encodeURIComponent(stream)}`;
}

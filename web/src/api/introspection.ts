// Typed client for the console's JSON introspection API under /__ursula/api/ (a prefix no
// bucket can take: bucket ids may not start with "__"). Returns a result, never throws.

export type { BucketPage, BucketRow, ProducerRow, ServerInfo, StreamDetail, StreamPage, StreamSummary } from "../../../server/introspection-api";
import type { BucketPage, ServerInfo, StreamDetail, StreamPage } from "../../../server/introspection-api";

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

export const introspection = {
  info: (signal?: AbortSignal) => getJson<ServerInfo>("/info", signal),
  buckets: (q: PageQuery, signal?: AbortSignal) => getJson<BucketPage>(`/buckets${query({ ...q })}`, signal),
  streams: (bucket: string, q: PageQuery, signal?: AbortSignal) =>
    getJson<StreamPage>(`/buckets/${encodeURIComponent(bucket)}/streams${query({ ...q })}`, signal),
  stream: (bucket: string, stream: string, signal?: AbortSignal) =>
    getJson<StreamDetail>(`/streams/${encodeURIComponent(bucket)}/${encodeURIComponent(stream)}`, signal),
};

/** The protocol URL path of a stream (spec §1.4: bucket _default is served at /v1/stream/). */
export function protocolPath(bucket: string, stream: string): string {
  return bucket === "_default" ? `/v1/stream/${encodeURIComponent(stream)}` : `/${bucket}/${encodeURIComponent(stream)}`;
}

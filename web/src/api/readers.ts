// Who reads a stream now, and how far behind the tail each reader is:
// GET /__ursula/api/streams/{bucket}/{stream}/readers (docs/api.md). The shapes follow
// server/introspection-api.ts, whose types these are.
import type { ReaderPage } from "../../../server/introspection-api";
import { getJson, type ApiResult } from "./introspection";

export type { BucketSortKey as BucketSort, ReaderPage, ReaderRow } from "../../../server/introspection-api";

export function fetchReaders(bucket: string, stream: string, limit: number, signal?: AbortSignal): Promise<ApiResult<ReaderPage>> {
  return getJson<ReaderPage>(`/streams/${encodeURIComponent(bucket)}/${encodeURIComponent(stream)}/readers?limit=${limit}`, signal);
}

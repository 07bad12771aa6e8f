// Who reads a stream now, and how far behind the tail each reader is:
// GET /__ursula/api/streams/{bucket}/{stream}/readers (docs/api.md). The shapes follow
// server/introspection-api.ts (ReaderRow, ReaderPage, BucketRow.live_readers).
import { getJson, type ApiResult, type BucketRow } from "./introspection";

/** One live reader of a stream. */
export interface ReaderRow {
  kind: "sse" | "long-poll";
  /** The client address the server sees. */
  address: string;
  /** Everything before this offset has been sent to the reader. */
  offset: string;
  offset_bytes: number;
  started_at_ms: number;
  /** How long it has been reading, when the answer was made. */
  since_ms: number;
  /** Bytes from `offset` to the tail. */
  behind_bytes: number;
  /** Messages that end after `offset`, up to the tail (a lower bound when `behind_messages_capped`). */
  behind_messages: number;
  behind_messages_capped: boolean;
}

export interface ReaderPage {
  bucket_id: string;
  stream_id: string;
  tail_offset: number;
  next_offset: string;
  /** Most behind first, then the oldest. */
  readers: ReaderRow[];
  /** Every live reader of the stream. */
  total: number;
  /** More readers than listed. */
  truncated: boolean;
}

/** How the bucket list orders its rows. */
export type BucketSort = "name" | "readers";

/** A bucket row with its live readers (SSE and long-poll readers of its streams now). */
export type BucketWithReaders = BucketRow & { live_readers?: number };

export function fetchReaders(bucket: string, stream: string, limit: number, signal?: AbortSignal): Promise<ApiResult<ReaderPage>> {
  return getJson<ReaderPage>(`/streams/${encodeURIComponent(bucket)}/${encodeURIComponent(stream)}/readers?limit=${limit}`, signal);
}

// The JSON the console's introspection API (/__ursula/api, http/introspection-routes.ts) answers
// with. The console's client (web/src/api/introspection.ts) takes its types from here, so the two
// cannot drift apart unnoticed: a change on either side fails `tsc -b`.

export interface ServerInfo {
  version: string;
  data_path: string;
  sync: string;
  started_at_ms: number;
  live_readers: number;
  streams: number;
  buckets: number;
}

export interface BucketRow {
  bucket_id: string;
  stream_count: number;
}

export interface BucketPage {
  buckets: BucketRow[];
  total: number;
  next_cursor: string | null;
  has_more: boolean;
}

export interface StreamSummary {
  stream_id: string;
  status: "Open" | "Closed";
  content_type: string;
  tail_offset: number;
  next_offset: string;
  created_at_ms: number;
  last_write_at_ms: number | null;
  incarnation: string;
}

export interface StreamPage {
  bucket_id: string;
  prefix: string;
  total: number;
  streams: StreamSummary[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface ProducerRow {
  producer_id: string;
  epoch: number;
  last_seq: number;
  updated_at_ms: number;
}

export interface StreamDetail {
  bucket_id: string;
  stream_id: string;
  path: string;
  content_type: string;
  tail_offset: number;
  next_offset: string;
  closed: boolean;
  closed_by: { producer_id: string; epoch: number; seq: number } | null;
  incarnation: string;
  last_stream_seq: string | null;
  ttl_seconds: number | null;
  expires_at: string | null;
  expires_at_ms: number | null;
  created_at_ms: number;
  last_write_at_ms: number | null;
  message_count: number;
  /** Only producers still remembered; `producer_limits` says for how long, and how many fit. */
  producers: ProducerRow[];
  producer_limits: { idle_ttl_ms: number; max_per_stream: number };
  fork: { source: string; offset: string; sub_offset: number } | null;
  attrs: Record<string, unknown> | null;
  snapshot_offset: string | null;
  retained_offset: string;
  /** The visible snapshot (spec §7.3), or null. */
  snapshot: { offset: string; digest: string; content_type: string; size: number } | null;
}

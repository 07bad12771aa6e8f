// The JSON the console's introspection API (/__ursula/api, http/introspection-routes.ts) answers
// with. The console's client (web/src/api/introspection.ts) takes its types from here, so the two
// cannot drift apart unnoticed: a change on either side fails `tsc -b`.

export interface ServerInfo {
  version: string;
  /** The database file; null unless the request may administer the whole server (docs/security.md). */
  data_path: string | null;
  sync: string;
  started_at_ms: number;
  /**
   * Live readers, streams and buckets: server-wide, or for a token limited to some buckets, those
   * of its buckets alone, so it learns nothing of the others' size.
   */
  live_readers: number;
  streams: number;
  buckets: number;
}

export interface BucketRow {
  bucket_id: string;
  stream_count: number;
  /** Live readers (SSE and long-poll) of the bucket's streams now. */
  live_readers: number;
}

export const BUCKET_SORT_KEYS = ["name", "readers"] as const;
export type BucketSortKey = (typeof BUCKET_SORT_KEYS)[number];

export interface BucketPage {
  buckets: BucketRow[];
  /** `readers`: most live readers first, then by ID. */
  sort: BucketSortKey;
  total: number;
  /** `total` is a lower bound: buckets with a prefix are counted up to 10,000. */
  total_capped: boolean;
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

/** Columns a stream list can be sorted by; each is walked through an index (storage/sqlite/browse.ts). */
export const STREAM_SORT_KEYS = ["name", "created", "tail", "last_write", "last_seq"] as const;
export type StreamSortKey = (typeof STREAM_SORT_KEYS)[number];
export type SortOrder = "asc" | "desc";

/** One row of the console's stream list: the public listing's fields and the state of the guards. */
export interface StreamListRow extends StreamSummary {
  last_stream_seq: string | null;
  producer_count: number;
  message_count: number;
  forked: boolean;
  /** The path key (`bucket/stream`) of the source when this stream is a fork, unless the source's bucket is one this request cannot see. */
  fork_source: string | null;
  /** Live readers (SSE and long-poll) of the stream now. */
  live_readers: number;
}

export interface StreamFilters {
  /** Stream IDs starting with this (walked as an index range when sorting by name). */
  prefix: string;
  /** Stream IDs containing this, ignoring ASCII case. */
  contains: string;
  status: "any" | "open" | "closed";
  producers: "any" | "with" | "without";
  /** Whether the stream has accepted a Stream-Seq. */
  seq: "any" | "set" | "unset";
}

export interface StreamPage {
  bucket_id: string;
  prefix: string;
  /** Streams in the bucket whose ID starts with `prefix`; the other filters are not counted. */
  total: number;
  /** `total` is a lower bound: streams with a prefix are counted up to 10,000. */
  total_capped: boolean;
  streams: StreamListRow[];
  next_cursor: string | null;
  has_more: boolean;
  sort: StreamSortKey;
  order: SortOrder;
  /** Streams looked at for this page. */
  scanned: number;
  /**
   * The page stopped at the scan budget before it filled (only with filters beyond the prefix):
   * `next_cursor` goes on from the last stream looked at.
   */
  partial: boolean;
}

/** A stream in a fork tree that this request may see. */
export interface VisibleForkNode {
  hidden: false;
  bucket_id: string;
  stream_id: string;
  path: string;
  /** Where this fork's own data begins, as an offset of its source; null for the tree's root. */
  fork_offset: string | null;
  fork_position: number | null;
  sub_offset: number;
  tail_offset: number;
  /** A deleted source kept only because forks still share its data. */
  deleted: boolean;
  closed: boolean;
  children: ForkNode[];
  /** Forks of this stream left out to keep the answer bounded. */
  omitted: number;
}

/**
 * A stream in a bucket this request cannot see (docs/security.md): shown only where it links
 * streams the request can see, with nothing that names or describes it.
 */
export interface HiddenForkNode {
  hidden: true;
  children: ForkNode[];
}

export type ForkNode = VisibleForkNode | HiddenForkNode;

export interface ForkTree {
  /** The first source up the chain: the stream itself when it is not a fork. */
  root: ForkNode;
  /** Paths from the root down to the stream asked about; null for a stream the request cannot see. */
  lineage: (string | null)[];
  /** Nodes in this answer. */
  nodes: number;
  truncated: boolean;
}

export interface MessageMeta {
  /** Byte position where the message starts. */
  offset: number;
  size: number;
  /** When the append that wrote it committed; null for messages a fork inherited. */
  at_ms: number | null;
}

export interface MessageIndexPage {
  messages: MessageMeta[];
  tail_offset: number;
  /** More messages before the first one listed, and after the last. */
  has_before: boolean;
  has_after: boolean;
}

export interface SearchMatch {
  offset: number;
  size: number;
  /** The start of the message: text for JSON and text streams, hex for bytes. */
  preview: string;
}

export interface SearchPage {
  matches: SearchMatch[];
  from: number;
  /** The search looked at every message from `from` up to here; go on from it. */
  scanned_to: number;
  tail_offset: number;
  done: boolean;
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
  /** `source` is null when it is in a bucket this request cannot see. */
  fork: { source: string | null; offset: string; sub_offset: number } | null;
  attrs: Record<string, unknown> | null;
  snapshot_offset: string | null;
  retained_offset: string;
  /** The visible snapshot (spec §7.3), or null. */
  snapshot: { offset: string; digest: string; content_type: string; size: number } | null;
}

/** GET /__ursula/api/whoami: how the server authenticates, and what this request may do. */
export interface WhoAmI {
  auth: "none" | "token" | "jwt";
  /** Whether the request carried a valid token. */
  authenticated: boolean;
  /** What this request may do: read, write, admin. */
  scopes: ("read" | "write" | "admin")[];
  /** The buckets the scopes are limited to, or null for every bucket. */
  buckets: string[] | null;
  /** Whether a request without a token may read (always true with auth "none"). */
  public_read: boolean;
}

/** One live reader of a stream (GET /__ursula/api/streams/{bucket}/{stream}/readers). */
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

/**
 * A subscription as `GET …/__ds/subscriptions/{id}` shows it (http/subscriptions/view.ts). A type,
 * not an interface, so that it is also the reserved API's plain JSON record.
 */
export type SubscriptionView = {
  id: string;
  subscription_id: string;
  type: "webhook" | "pull-wake";
  pattern?: string;
  streams: { path: string; link_type: "explicit" | "glob"; acked_offset: string }[];
  webhook?: { url: string; signing: { alg: "ed25519"; kid: string; jwks_url: string } };
  wake_stream?: string;
  lease_ttl_ms: number;
  created_at: string;
  status: "active" | "failed";
  description?: string;
  /** Bumped by every wake opened; an answer naming another generation is fenced. */
  generation: number;
  /** The outstanding wake, if any: since when, who holds its lease (pull-wake) and until when. */
  wake: { wake_id: string; opened_at: string | null; holder: string | null; lease_expires_at: string | null } | null;
  delivery: { last_delivery_at: string | null; last_error: string | null; attempts: number; next_attempt_at: string | null };
};

/** GET /__ursula/api/buckets/{bucket}/subscriptions: the bucket's subscriptions, by id. */
export interface SubscriptionList {
  bucket_id: string;
  subscriptions: SubscriptionView[];
}

/** A wake the console's test receiver was handed (http/subscriptions/test-receiver.ts). */
export interface ReceivedWake {
  received_at: string;
  subscription_id: string;
  wake_id: string;
  generation: number;
  streams: { path: string; acked_offset: string; tail_offset: string; has_pending: boolean }[];
  /** The `Webhook-Signature` header it came with. */
  signature: string;
  /** Whether that signature verifies with the key of `__ds/jwks.json`. */
  signature_verified: boolean;
}

/** GET /__ursula/api/buckets/{bucket}/test-receiver: the last wakes it got, newest first. */
export interface ReceivedWakes {
  bucket_id: string;
  /** The webhook URL path that delivers here. */
  path: string;
  wakes: ReceivedWake[];
}

// The listings' wire JSON (spec §2.3, §2.4): the snake_case shapes clients read, built from the
// store's domain values, so no engine has to know them.

import type { BucketRow, StreamListRow, StreamSummary as StreamSummaryJson } from "../introspection-api";
import { formatOffset } from "../protocol/offsets";
import type { BrowseItem } from "../storage/introspection";
import { summarize, type BucketInfo, type BucketSummary, type StreamSummary } from "../storage/store";
import { visibleKey, type Visibility } from "../auth/visibility";

/** GET /{bucket} (spec §2.3). */
export function bucketJson(b: BucketInfo): { bucket_id: string; created_at_ms: number; streams: number } {
  return { bucket_id: b.bucket, created_at_ms: b.createdAtMs, streams: b.streams };
}

export function bucketRowJson(b: BucketSummary, liveReaders: number): BucketRow {
  return { bucket_id: b.bucket, stream_count: b.streamCount, live_readers: liveReaders };
}

/** One stream of GET /{bucket}/streams (spec §2.4). */
export function streamSummaryJson(s: StreamSummary): StreamSummaryJson {
  return {
    stream_id: s.name,
    status: s.closed ? "Closed" : "Open",
    content_type: s.contentType,
    tail_offset: s.tail,
    next_offset: formatOffset(s.tail),
    created_at_ms: s.createdAtMs,
    last_write_at_ms: s.lastWriteAtMs,
    incarnation: s.incarnation,
  };
}

/** One row of the console's stream list: the public listing's fields and the state of the guards. */
export function streamListRowJson({ state, producers }: BrowseItem, liveReaders: number, v: Visibility): StreamListRow {
  return {
    ...streamSummaryJson(summarize(state)),
    last_stream_seq: state.lastSeq,
    producer_count: producers,
    message_count: state.messageCount,
    forked: state.fork !== null,
    fork_source: state.fork ? visibleKey(v, state.fork.sourceKey) : null,
    live_readers: liveReaders,
  };
}

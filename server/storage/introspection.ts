// What the console asks a store beyond the protocol (the introspection API): sorted and filtered
// stream lists, fork families (fork-tree.ts) and where messages are. Every engine answers these
// read-only and bounded by the page asked for; the types here are what http/ renders.

import type { SortOrder, StreamFilters, StreamSortKey } from "../introspection-api";
import type { StreamState } from "../protocol/state";
import type { ForkFamily } from "./fork-tree";

export interface Introspection {
  browseStreams(bucket: string, query: BrowseQuery): Promise<BrowseResult>;
  forkTree(state: StreamState): Promise<ForkFamily>;
  messageIndex(state: StreamState, at: IndexPosition, limit: number): Promise<IndexPage>;
}

/** Streams looked at per request when filters leave most of them out. */
export const SCAN_BUDGET = 5000;

export interface BrowseQuery extends StreamFilters {
  sort: StreamSortKey;
  order: SortOrder;
  /** From a previous page's `next_cursor` (browse-cursor.ts). */
  after: string | null;
  limit: number;
}

/** One stream of a page: its state as readers see it and how many producers it remembers. */
export interface BrowseItem {
  state: StreamState;
  producers: number;
}

export interface BrowseResult {
  items: BrowseItem[];
  total: number;
  /** `total` is a lower bound (prefix-count.ts, PREFIX_COUNT_CAP). */
  totalCapped: boolean;
  nextCursor: string | null;
  hasMore: boolean;
  scanned: number;
  partial: boolean;
}

export type IndexPosition = { from: number } | { before: number } | { atMs: number };

export interface IndexedMessage {
  /** Byte position where the message starts. */
  offset: number;
  size: number;
  /** When the append that wrote it committed; null for messages a fork inherited. */
  atMs: number | null;
}

/** A page of the index as the store knows it; http/introspection-json.ts renders it. */
export interface IndexPage {
  messages: IndexedMessage[];
  tail: number;
  /** More messages before the first one listed, and after the last. */
  hasBefore: boolean;
  hasAfter: boolean;
}

// What the console asks the store beyond the protocol (the introspection API): sorted and
// filtered stream lists, fork families, and where messages are. Read-only; every query walks an
// index and is bounded by the page it answers (browse.ts, fork-tree.ts, message-index.ts).

import type { Database } from "bun:sqlite";
import type { ForkTree, MessageIndexPage } from "../introspection-api";
import type { StreamState } from "../protocol/state";
import { StreamBrowser, type BrowseLookups, type BrowseQuery, type BrowseResult } from "./browse";
import { ForkFamilies } from "./fork-tree";
import type { Segment } from "./lineage";
import { MessageIndex, type IndexPosition } from "./message-index";

export interface Introspection {
  browseStreams(bucket: string, query: BrowseQuery): Promise<BrowseResult>;
  forkTree(state: StreamState, urlPath: (state: StreamState) => string): Promise<ForkTree>;
  messageIndex(state: StreamState, at: IndexPosition, limit: number): Promise<MessageIndexPage>;
}

export class SqliteIntrospection implements Introspection {
  private readonly browser: StreamBrowser;
  private readonly forks: ForkFamilies;
  private readonly index: MessageIndex;

  constructor(db: Database, lookups: BrowseLookups, lineage: (state: StreamState) => Segment[]) {
    this.browser = new StreamBrowser(db, lookups);
    this.forks = new ForkFamilies(db, lookups.get);
    this.index = new MessageIndex(db, lineage);
  }

  async browseStreams(bucket: string, query: BrowseQuery): Promise<BrowseResult> {
    return this.browser.browse(bucket, query);
  }

  async forkTree(state: StreamState, urlPath: (state: StreamState) => string): Promise<ForkTree> {
    return this.forks.tree(state, urlPath);
  }

  async messageIndex(state: StreamState, at: IndexPosition, limit: number): Promise<MessageIndexPage> {
    return this.index.page(state, at, limit);
  }
}

// The SQLite engine's answers to the console's introspection queries (introspection.ts): each
// walks an index and is bounded by the page it answers (browse.ts, fork-families.ts, message-index.ts).

import type { Database } from "bun:sqlite";
import type { StreamState } from "../../protocol/state";
import { StreamBrowser, type BrowseLookups } from "./browse";
import { ForkFamilies } from "./fork-families";
import type { ForkFamily } from "../fork-tree";
import type { BrowseQuery, BrowseResult, IndexPage, IndexPosition, Introspection } from "../introspection";
import type { Segment } from "../lineage";
import { MessageIndex } from "./message-index";

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

  async forkTree(state: StreamState): Promise<ForkFamily> {
    return this.forks.tree(state);
  }

  async messageIndex(state: StreamState, at: IndexPosition, limit: number): Promise<IndexPage> {
    return this.index.page(state, at, limit);
  }
}

// The SQLite engine's fork-family lookup (fork-tree.ts): states from its cache, forks through the
// index on `streams.fork_source_id`.

import type { Database, Statement } from "bun:sqlite";
import { streamKey, type StreamState } from "../../protocol/state";
import { forkFamily, MAX_FORK_NODES, type ForkFamily } from "../fork-tree";

export class ForkFamilies {
  private readonly children: Statement<{ bucket: string; name: string }>;

  constructor(
    db: Database,
    private readonly get: (key: string) => StreamState | undefined,
  ) {
    this.children = db.prepare("SELECT bucket, name FROM streams WHERE fork_source_id = ? ORDER BY bucket, name LIMIT ?");
  }

  tree(state: StreamState, maxNodes = MAX_FORK_NODES): Promise<ForkFamily> {
    return forkFamily(
      state,
      {
        get: this.get,
        forksOf: (sourceId, limit) =>
          this.children.all(sourceId, limit).flatMap((row) => this.get(streamKey(row.bucket, row.name)) ?? []),
      },
      maxNodes,
    );
  }
}

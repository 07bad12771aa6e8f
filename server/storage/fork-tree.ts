// A stream's fork family for the console (spec §7.4): up the chain of sources to the first, then
// every fork below it, breadth first, at most MAX_NODES of them. Sources are found through each
// state's fork link, forks through the index on `streams.fork_source_id`, so the work is bounded
// by the nodes returned.

import type { Database, Statement } from "bun:sqlite";
import type { ForkNode, ForkTree } from "../introspection-api";
import { formatOffset } from "../protocol/offsets";
import { streamKey, type StreamState } from "../protocol/state";

export const MAX_FORK_NODES = 200;

export class ForkFamilies {
  private readonly children: Statement<{ bucket: string; name: string }>;

  constructor(
    db: Database,
    private readonly get: (key: string) => StreamState | undefined,
  ) {
    this.children = db.prepare("SELECT bucket, name FROM streams WHERE fork_source_id = ? ORDER BY bucket, name LIMIT ?");
  }

  /** `urlPath` spells a stream's path the way clients address it (the HTTP layer knows how). */
  tree(state: StreamState, urlPath: (state: StreamState) => string, maxNodes = MAX_FORK_NODES): ForkTree {
    const node = (s: StreamState): ForkNode => ({
      bucket_id: s.bucket,
      stream_id: s.name,
      path: urlPath(s),
      fork_offset: s.fork ? formatOffset(s.fork.offset) : null,
      fork_position: s.fork ? s.fork.offset : null,
      sub_offset: s.fork?.subOffset ?? 0,
      tail_offset: s.tail,
      deleted: s.softDeleted,
      closed: s.closed,
      children: [],
      omitted: 0,
    });
    const lineage = [state];
    // A link names the source's row id too, so a recreated stream at the same path is not taken for it.
    for (let s = state; s.fork; ) {
      const source = this.get(s.fork.sourceKey);
      if (!source || source.id !== s.fork.sourceId || lineage.some((l) => l.id === source.id)) break;
      lineage.unshift(source);
      s = source;
    }
    const root = node(lineage[0]!);
    let nodes = 1;
    let truncated = false;
    const queue: [ForkNode, StreamState][] = [[root, lineage[0]!]];
    while (queue.length > 0) {
      const [parent, s] = queue.shift()!;
      if (s.forkRefs === 0) continue;
      const room = maxNodes - nodes;
      const rows = room > 0 ? this.children.all(s.id, room) : [];
      for (const row of rows) {
        const child = this.get(streamKey(row.bucket, row.name));
        if (!child || child.fork?.sourceId !== s.id) continue;
        const childNode = node(child);
        parent.children.push(childNode);
        queue.push([childNode, child]);
        nodes++;
      }
      parent.omitted = Math.max(0, s.forkRefs - parent.children.length);
      if (parent.omitted > 0) truncated = true;
    }
    return { root, lineage: lineage.map(urlPath), nodes, truncated };
  }
}

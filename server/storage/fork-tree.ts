// A stream's fork family for the console (spec §7.4): up the chain of sources to the first, then
// every fork below it, breadth first, at most MAX_NODES of them. Sources are found through each
// state's fork link, forks through the index on `streams.fork_source_id`, so the work is bounded
// by the nodes returned.

import type { StreamState } from "../protocol/state";

export const MAX_FORK_NODES = 200;

export interface FamilyNode {
  state: StreamState;
  children: FamilyNode[];
  /** Forks of this stream left out to keep the answer bounded. */
  omitted: number;
}

/** The family as the store knows it; http/introspection-json.ts renders it. */
export interface ForkFamily {
  /** The first source up the chain: the stream itself when it is not a fork. */
  root: FamilyNode;
  /** From the root down to the stream asked about. */
  lineage: StreamState[];
  nodes: number;
  truncated: boolean;
}

/** How an engine looks a family up: a stream by its key, and the forks made from a stream id. */
export interface FamilyLookup {
  get(key: string): Promise<StreamState | undefined> | StreamState | undefined;
  /** At most `limit` streams whose fork link names `sourceId`, ordered by bucket and name. */
  forksOf(sourceId: number, limit: number): Promise<StreamState[]> | StreamState[];
}

/** The family of `state`, shared by every engine: only where the states come from differs. */
export async function forkFamily(state: StreamState, look: FamilyLookup, maxNodes = MAX_FORK_NODES): Promise<ForkFamily> {
  const node = (s: StreamState): FamilyNode => ({ state: s, children: [], omitted: 0 });
  const lineage = [state];
  // A link names the source's row id too, so a recreated stream at the same path is not taken for it.
  for (let s = state; s.fork; ) {
    const source = await look.get(s.fork.sourceKey);
    if (!source || source.id !== s.fork.sourceId || lineage.some((l) => l.id === source.id)) break;
    lineage.unshift(source);
    s = source;
  }
  const root = node(lineage[0]!);
  let nodes = 1;
  let truncated = false;
  const queue: [FamilyNode, StreamState][] = [[root, lineage[0]!]];
  while (queue.length > 0) {
    const [parent, s] = queue.shift()!;
    if (s.forkRefs === 0) continue;
    const room = maxNodes - nodes;
    for (const child of room > 0 ? await look.forksOf(s.id, room) : []) {
      if (child.fork?.sourceId !== s.id) continue;
      const childNode = node(child);
      parent.children.push(childNode);
      queue.push([childNode, child]);
      nodes++;
    }
    parent.omitted = Math.max(0, s.forkRefs - parent.children.length);
    if (parent.omitted > 0) truncated = true;
  }
  return { root, lineage, nodes, truncated };
}

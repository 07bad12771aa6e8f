// The introspection API's fork family and message index as wire JSON (introspection-api.ts),
// built from what the store returns, so no engine has to know the console's shapes.

import type { ForkNode, ForkTree, MessageIndexPage } from "../introspection-api";
import { formatOffset } from "../protocol/offsets";
import type { StreamState } from "../protocol/state";
import type { Visibility } from "../auth/visibility";
import type { FamilyNode, ForkFamily } from "../storage/fork-tree";
import type { IndexPage } from "../storage/introspection";

/**
 * `urlPath` spells a stream's path the way clients address it. A stream the request cannot see is
 * left out with everything below it, unless a stream it can see is below it: then it stays as a
 * hidden node, so the tree still connects. `omitted` counts forks the store left out to keep the
 * answer bounded; it is given only to a request that sees every bucket, since some of those forks
 * may be hidden ones.
 */
export function forkTreeJson(family: ForkFamily, urlPath: (state: StreamState) => string, v: Visibility): ForkTree {
  let nodes = 0;
  const node = ({ state: s, children, omitted }: FamilyNode): ForkNode | null => {
    const kept = children.map(node).filter((c) => c !== null);
    if (!v.sees(s.bucket)) {
      if (kept.length === 0) return null;
      nodes++;
      return { hidden: true, children: kept };
    }
    nodes++;
    return {
      hidden: false,
      bucket_id: s.bucket,
      stream_id: s.name,
      path: urlPath(s),
      fork_offset: s.fork ? formatOffset(s.fork.offset) : null,
      fork_position: s.fork ? s.fork.offset : null,
      sub_offset: s.fork?.subOffset ?? 0,
      tail_offset: s.tail,
      deleted: s.softDeleted,
      closed: s.closed,
      children: kept,
      omitted: v.all ? omitted : 0,
    };
  };
  // The stream asked about is visible and sits below the root, so the root always stays.
  const root = node(family.root)!;
  return { root, lineage: family.lineage.map((s) => (v.sees(s.bucket) ? urlPath(s) : null)), nodes, truncated: family.truncated };
}

export function messageIndexJson(page: IndexPage): MessageIndexPage {
  return {
    messages: page.messages.map((m) => ({ offset: m.offset, size: m.size, at_ms: m.atMs })),
    tail_offset: page.tail,
    has_before: page.hasBefore,
    has_after: page.hasAfter,
  };
}

// The introspection API's fork family and message index as wire JSON (introspection-api.ts),
// built from what the store returns, so no engine has to know the console's shapes.

import type { ForkNode, ForkTree, MessageIndexPage } from "../introspection-api";
import { formatOffset } from "../protocol/offsets";
import type { StreamState } from "../protocol/state";
import type { FamilyNode, ForkFamily } from "../storage/fork-tree";
import type { IndexPage } from "../storage/message-index";

/** `urlPath` spells a stream's path the way clients address it. */
export function forkTreeJson(family: ForkFamily, urlPath: (state: StreamState) => string): ForkTree {
  const node = ({ state: s, children, omitted }: FamilyNode): ForkNode => ({
    bucket_id: s.bucket,
    stream_id: s.name,
    path: urlPath(s),
    fork_offset: s.fork ? formatOffset(s.fork.offset) : null,
    fork_position: s.fork ? s.fork.offset : null,
    sub_offset: s.fork?.subOffset ?? 0,
    tail_offset: s.tail,
    deleted: s.softDeleted,
    closed: s.closed,
    children: children.map(node),
    omitted,
  });
  return { root: node(family.root), lineage: family.lineage.map(urlPath), nodes: family.nodes, truncated: family.truncated };
}

export function messageIndexJson(page: IndexPage): MessageIndexPage {
  return {
    messages: page.messages.map((m) => ({ offset: m.offset, size: m.size, at_ms: m.atMs })),
    tail_offset: page.tail,
    has_before: page.hasBefore,
    has_after: page.hasAfter,
  };
}

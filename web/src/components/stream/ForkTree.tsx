// A stream's fork family as a tree: from the first source down, each fork under the stream it
// was made from, with the offset it starts at. The stream on this page is marked; deleted
// sources that forks still share data with are shown as such. Streams of another bucket show it;
// a stream in a bucket the token cannot see appears only as such, where it links visible ones.
import type { ForkNode, ForkTree as Tree, VisibleForkNode } from "../../api/introspection";
import { formatBytes } from "../../api/offsets";
import { links } from "../../state/router";
import { Link } from "../common/Link";

type NodeProps = { self: string; lineage: Set<string | null>; bucket: string };

function Children({ of, ...props }: NodeProps & { of: ForkNode[] }) {
  if (of.length === 0) return null;
  return (
    <ul>
      {of.map((c, i) => (
        <Node key={c.hidden ? `hidden-${i}` : c.path} n={c} {...props} />
      ))}
    </ul>
  );
}

function Node({ n, ...props }: NodeProps & { n: ForkNode }) {
  if (n.hidden)
    return (
      <li class="fork-node hidden" data-testid="fork-hidden">
        <div class="fork-line">
          <span class="muted">a stream you cannot see</span>
        </div>
        <Children of={n.children} {...props} />
      </li>
    );
  return <VisibleNode n={n} {...props} />;
}

function VisibleNode({ n, self, lineage, bucket }: NodeProps & { n: VisibleForkNode }) {
  const isSelf = n.path === self;
  return (
    <li class={`fork-node ${isSelf ? "self" : ""} ${lineage.has(n.path) ? "lineage" : ""}`} data-path={n.path}>
      <div class="fork-line">
        {n.bucket_id !== bucket && <span class="muted mono">{n.bucket_id === "_default" ? "/v1/stream/" : `${n.bucket_id}/`}</span>}
        {isSelf ? (
          <strong class="mono" aria-current="page">
            {n.stream_id}
          </strong>
        ) : n.deleted ? (
          <span class="mono">{n.stream_id}</span>
        ) : (
          <Link href={links.stream(n.bucket_id, n.stream_id)} class="mono">
            {n.stream_id}
          </Link>
        )}
        {n.fork_position !== null && (
          <span class="chip info mono" data-testid="fork-offset">
            forked at {n.fork_position.toLocaleString("en-US")}
            {n.sub_offset > 0 ? ` + ${n.sub_offset}` : ""}
          </span>
        )}
        <span class="muted num">{formatBytes(n.tail_offset)}</span>
        {n.deleted && <span class="chip bad">deleted source</span>}
        {n.closed && <span class="chip plain">closed</span>}
      </div>
      <Children of={n.children} self={self} lineage={lineage} bucket={bucket} />
      {n.omitted > 0 && <div class="muted small-line">and {n.omitted} more fork{n.omitted === 1 ? "" : "s"}</div>}
    </li>
  );
}

export function ForkTree({ tree, self, bucket }: { tree: Tree; self: string; bucket: string }) {
  if (tree.nodes === 1)
    return (
      <p class="muted">
        Not a fork, and no forks. A PUT with <code>Stream-Forked-From: {self}</code> (and optionally <code>Stream-Fork-Offset</code>) makes one that shares this
        stream's bytes up to that offset.
      </p>
    );
  return (
    <ul class="fork-tree" aria-label="Fork tree" data-testid="fork-tree">
      <Node n={tree.root} self={self} lineage={new Set(tree.lineage)} bucket={bucket} />
    </ul>
  );
}

// Where a subscription lives and which streams its paths name (DS §6). A subscription under a
// bucket (`/{bucket}/__ds/subscriptions/{id}`) follows that bucket's streams by name. One on the
// compatibility surface (`/v1/stream/__ds/subscriptions/{id}`, scope `v1`) follows v1 paths: a
// name alone is a stream of bucket `_default`, and `{bucket}/{stream}` one of that bucket, as
// `--v1-bucket-paths` maps them (spec §1.4).

import { DEFAULT_BUCKET, parseStreamPath } from "./paths";

export const V1_SCOPE = "v1";

/** The store key of the stream a subscription path names, or null when it names none. */
export function subscriptionStreamKey(scope: string, path: string): string | null {
  const slash = path.indexOf("/");
  const parsed = scope !== V1_SCOPE ? parseStreamPath(scope, path) : slash < 0 ? parseStreamPath(DEFAULT_BUCKET, path) : parseStreamPath(path.slice(0, slash), path.slice(slash + 1));
  return parsed.ok ? parsed.value.key : null;
}

/** The path a stream has in a scope, or null when the scope cannot see it. */
export function subscriptionPathOf(scope: string, bucket: string, name: string): string | null {
  if (scope === V1_SCOPE) return bucket === DEFAULT_BUCKET ? name : `${bucket}/${name}`;
  return bucket === scope ? name : null;
}

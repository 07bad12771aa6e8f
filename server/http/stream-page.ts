// One page of a bucket's streams, shared by the public listing (spec §2.4) and the console's
// introspection API, which differ only in the fields they render.

import { protocolError, type ProtocolError } from "../protocol/errors";
import type { Page, StreamSummary } from "../storage/store";
import type { AppDeps } from "./deps";
import { parseListQuery } from "./list-query";
import { parseBucketId } from "../protocol/paths";
import { nextReadTurn } from "./read-turns";

export async function streamPage(
  deps: AppDeps,
  rawBucket: string,
  url: URL,
  defaultLimit: number,
): Promise<ProtocolError | { bucket: string; prefix: string; page: Page<StreamSummary> }> {
  const bucket = parseBucketId(rawBucket);
  if (!bucket.ok) return bucket.error;
  const query = parseListQuery(url, defaultLimit);
  if (!query.ok) return query.error;
  if (!(await deps.store.hasBucket(bucket.value))) return protocolError("BUCKET_NOT_FOUND", "bucket not found");
  // A large page holds the event loop for a while: listings arriving together would run in one
  // pass, and a request behind them wait for all. Taking a read turn, they run one per pass
  // (read-turns.ts, docs/design/stepped-reads.md).
  await nextReadTurn();
  return { bucket: bucket.value, prefix: query.value.prefix, page: await deps.store.listStreams(bucket.value, query.value) };
}

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
  // A page of 1,000 is a millisecond or two of the event loop, and with it comes its 230 KB answer:
  // eight listings arriving together ran in one pass, and a HEAD behind them waited for all eight
  // (p50 14-26 ms, p99 36-257 ms). Taking a read turn, listings run one per pass (read-turns.ts).
  await nextReadTurn();
  return { bucket: bucket.value, prefix: query.value.prefix, page: await deps.store.listStreams(bucket.value, query.value) };
}

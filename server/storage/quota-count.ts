// The stream count a --max-streams-per-bucket check compares, inside the create's transaction.
// An expired stream is absent (spec §7.1), so it holds no place: it is reclaimed here, as DELETE
// of a bucket reclaims it (spec §2.3), rather than counted until the background sweep finds it.

import type { Database } from "bun:sqlite";
import { streamKey, type StreamState } from "../protocol/state";

/**
 * Live streams of `bucket`, counted up to `upTo`. `live` looks a stream up in the transaction and
 * reclaims it if it has expired: a hard delete removes its row at once, a soft delete (a source
 * with forks) only once the transaction writes its changed rows, so those are left out by hand.
 * The stored touch time is never later than the one in memory, so the rows err on the side of
 * "may have expired", and `live` decides.
 */
export function liveStreamCount(db: Database, bucket: string, upTo: number, nowMs: number, live: (key: string) => StreamState | undefined): number {
  const mayHaveExpired = db
    .query<{ name: string }, [string, number]>(
      "SELECT name FROM streams WHERE bucket = ?1 AND soft_deleted = 0 AND (expires_at_ms <= ?2 OR touched_at_ms + ttl_s * 1000 <= ?2)",
    )
    .all(bucket, nowMs);
  let softDeleted = 0;
  for (const { name } of mayHaveExpired) if (live(streamKey(bucket, name))?.softDeleted) softDeleted++;
  const rows = db
    .query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM streams WHERE bucket = ? AND soft_deleted = 0 LIMIT ?)")
    .get(bucket, upTo + softDeleted)!.n;
  return rows - softDeleted;
}

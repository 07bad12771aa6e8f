// Buckets, listings and counts (spec §2.3–§2.4) on PostgreSQL. A page walks the (bucket, name)
// index from its cursor; a bucket's stream count is the one its creates and deletes maintain in
// their transactions, less the streams whose deadline has passed and that no one has reclaimed
// yet (those are absent for readers, spec §7.1, and are reclaimed as they are met).

import type { SQL } from "bun";
import { streamKey } from "../../protocol/state";
import type { BucketInfo, BucketSummary, ListQuery, Page, StreamSummary } from "../store";
import { PREFIX_COUNT_CAP, upperBound } from "../prefix-count";
import type { TxSql } from "./group-commit";
import { TOUCHED } from "./rows";

/** Whether a row's deadline has passed at $now (protocol/lifetime.ts isExpired, in SQL). */
const EXPIRED = `NOT soft_deleted AND CASE WHEN expires_at_ms IS NOT NULL THEN expires_at_ms <= $NOW
  WHEN ttl_s IS NOT NULL THEN ${TOUCHED} + ttl_s * 1000 <= $NOW ELSE false END`;

const expiredAt = (param: number) => EXPIRED.replaceAll("$NOW", `$${param}`);

interface SummaryRow {
  name: string;
  content_type: string;
  tail: string;
  closed: boolean;
  created_at_ms: string;
  last_write_at_ms: string | null;
  incarnation: string;
  expired: boolean;
}

export class Listings {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly reap: (key: string) => void,
  ) {}

  async hasBucket(bucket: string): Promise<boolean> {
    const rows: unknown[] = await this.sql`SELECT 1 FROM buckets WHERE bucket_id = ${bucket}`;
    return rows.length > 0;
  }

  async getBucket(bucket: string): Promise<BucketInfo | undefined> {
    const [row]: { created_at_ms: string }[] = await this.sql`SELECT created_at_ms FROM buckets WHERE bucket_id = ${bucket}`;
    if (!row) return undefined;
    return { bucket, createdAtMs: Number(row.created_at_ms), streams: (await this.count(bucket, "")).n };
  }

  /** Live streams of the bucket whose ID starts with `prefix`, counted up to PREFIX_COUNT_CAP for a prefix. */
  async count(bucket: string, prefix: string): Promise<{ n: number; capped: boolean }> {
    const now = this.now();
    if (prefix === "") {
      const [row]: { n: string }[] = await this.sql.unsafe(
        `SELECT COALESCE((SELECT stream_count FROM buckets WHERE bucket_id = $1), 0)
           - (SELECT count(*) FROM streams WHERE bucket = $1 AND ${expiredAt(2)}) AS n`,
        [bucket, now],
      );
      return { n: Number(row!.n), capped: false };
    }
    const [row]: { n: string }[] = await this.sql.unsafe(
      `SELECT count(*) AS n FROM (SELECT 1 FROM streams WHERE bucket = $1 AND name >= $2 AND name < $3 AND NOT soft_deleted
         AND NOT (${expiredAt(4)}) LIMIT $5) AS page`,
      [bucket, prefix, upperBound(prefix), now, PREFIX_COUNT_CAP + 1],
    );
    const n = Number(row!.n);
    return { n: Math.min(n, PREFIX_COUNT_CAP), capped: n > PREFIX_COUNT_CAP };
  }

  async streams(bucket: string, query: ListQuery): Promise<Page<StreamSummary>> {
    const items: StreamSummary[] = [];
    let low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
    let inclusive = query.after === null || query.after < query.prefix;
    let hasMore = false;
    const now = this.now();
    // Expired streams are left out and reclaimed; rows are fetched a page (and one) at a time
    // until the page is full, so a run of expired streams cannot shorten a page.
    for (;;) {
      const rows: SummaryRow[] = await this.sql.unsafe(
        `SELECT name, content_type, tail, closed, created_at_ms, last_write_at_ms, incarnation, ${expiredAt(5)} AS expired
         FROM streams WHERE bucket = $1 AND name ${inclusive ? ">=" : ">"} $2 AND name < $3 AND NOT soft_deleted ORDER BY name LIMIT $4`,
        [bucket, low, upperBound(query.prefix), query.limit + 1, now],
      );
      for (const row of rows) {
        if (row.expired) {
          this.reap(streamKey(bucket, row.name));
          continue;
        }
        if (items.length === query.limit) {
          hasMore = true;
          break;
        }
        items.push({
          name: row.name,
          closed: row.closed,
          contentType: row.content_type,
          tail: Number(row.tail),
          createdAtMs: Number(row.created_at_ms),
          lastWriteAtMs: row.last_write_at_ms === null ? null : Number(row.last_write_at_ms),
          incarnation: row.incarnation,
        });
      }
      if (hasMore || rows.length <= query.limit) break;
      low = rows[rows.length - 1]!.name;
      inclusive = false;
    }
    const total = await this.count(bucket, query.prefix);
    return { items, total: total.n, totalCapped: total.capped, hasMore, nextCursor: hasMore ? items[items.length - 1]!.name : null };
  }

  async buckets(query: ListQuery): Promise<Page<BucketSummary>> {
    const low = query.after !== null && query.after >= query.prefix ? query.after : query.prefix;
    const inclusive = query.after === null || query.after < query.prefix;
    const rows: { bucket_id: string }[] = await this.sql.unsafe(
      `SELECT bucket_id FROM buckets WHERE bucket_id ${inclusive ? ">=" : ">"} $1 AND bucket_id < $2 ORDER BY bucket_id LIMIT $3`,
      [low, upperBound(query.prefix), query.limit + 1],
    );
    const hasMore = rows.length > query.limit;
    const items: BucketSummary[] = [];
    for (const { bucket_id } of rows.slice(0, query.limit)) items.push({ bucket: bucket_id, streamCount: (await this.count(bucket_id, "")).n });
    const [total]: { n: string }[] = await this.sql.unsafe(
      `SELECT count(*) AS n FROM (SELECT 1 FROM buckets WHERE bucket_id >= $1 AND bucket_id < $2 LIMIT $3) AS page`,
      [query.prefix, upperBound(query.prefix), PREFIX_COUNT_CAP + 1],
    );
    const n = Number(total!.n);
    return { items, total: Math.min(n, PREFIX_COUNT_CAP), totalCapped: n > PREFIX_COUNT_CAP, hasMore, nextCursor: hasMore ? items[items.length - 1]!.bucket : null };
  }

  async counts(): Promise<{ streams: number; buckets: number }> {
    const [row]: { streams: string; buckets: string }[] = await this.sql.unsafe(
      `SELECT COALESCE((SELECT sum(stream_count) FROM buckets), 0) - (SELECT count(*) FROM streams WHERE ${expiredAt(1)}) AS streams,
              (SELECT count(*) FROM buckets) AS buckets`,
      [this.now()],
    );
    return { streams: Number(row!.streams), buckets: Number(row!.buckets) };
  }

  /** The keys of the bucket's streams whose deadline has passed, inside a write's transaction. */
  async expiredIn(sql: TxSql, bucket: string): Promise<string[]> {
    const rows: { name: string }[] = await sql.unsafe(`SELECT name FROM streams WHERE bucket = $1 AND ${expiredAt(2)}`, [bucket, this.now()]);
    return rows.map((r) => streamKey(bucket, r.name));
  }

  /** Up to `limit` keys of streams whose deadline has passed, for the sweeper. */
  async expired(limit: number): Promise<string[]> {
    const rows: { bucket: string; name: string }[] = await this.sql.unsafe(`SELECT bucket, name FROM streams WHERE ${expiredAt(1)} LIMIT $2`, [this.now(), limit]);
    return rows.map((r) => streamKey(r.bucket, r.name));
  }
}

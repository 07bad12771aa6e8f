// ursa's metrics: what the request path, group commit and the store count, and the gauges read
// when /__ursula/metrics is scraped. Counting a request is two small-integer Map operations;
// everything else is computed at scrape time.

import { readdirSync } from "node:fs";
import type { LiveHub } from "../live/hub";
import type { CommitObserver } from "../storage/commit-observer";
import type { Store } from "../storage/store";
import type { LoopLagMonitor } from "./loop-lag";
import { Exposition, Histogram, type Labels } from "./metrics";

/**
 * The label values of `family` in ursa_http_requests_total; http/observe.ts sorts requests into
 * them. Each of a stream's sub-resources (http/sub-resources.ts) is a family of its own.
 */
export const ROUTE_FAMILIES = ["stream", "bucket", "listing", "admin", "console", "preflight", "other", "append_batch", "attrs", "snapshot", "retention", "bootstrap", "subscription"] as const;
export type RouteFamily = (typeof ROUTE_FAMILIES)[number];

const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"];
const OTHER_METHOD = METHODS.length;

const SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const BATCH_WRITES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/** What the scrape reads from the rest of the server. */
export interface MetricSources {
  store: Store;
  hub: LiveHub;
  version: string;
  startedAtMs: number;
  /** Requests being handled now, live reads included. */
  inFlight(): number;
  bodyBytesInFlight(): number;
  ready(): boolean;
}

export class ServerMetrics implements CommitObserver {
  /** Keyed by family, method and status packed into one integer. */
  private readonly requests = new Map<number, number>();
  private readonly errors = new Map<string, number>();
  readonly batchWrites = new Histogram(BATCH_WRITES);
  readonly commitSeconds = new Histogram(SECONDS);
  readonly syncSeconds = new Histogram(SECONDS);

  constructor(
    private readonly lag: LoopLagMonitor,
    /** The open-file limit, if known. */
    private readonly fdLimit: number | null,
  ) {}

  request(family: number, method: string, status: number): void {
    const m = METHODS.indexOf(method);
    const key = (family * 8 + (m < 0 ? OTHER_METHOD : m)) * 1000 + status;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  errorResponse(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  batch(writes: number, seconds: number): void {
    this.batchWrites.observe(writes);
    this.commitSeconds.observe(seconds);
  }

  sync(seconds: number): void {
    this.syncSeconds.observe(seconds);
  }

  async render(s: MetricSources): Promise<string> {
    const stats = s.store.stats();
    const counts = await s.store.counts();
    const requests: [Labels, number][] = [...this.requests].sort(([a], [b]) => a - b).map(([key, n]) => {
      const status = key % 1000;
      const rest = (key - status) / 1000;
      const method = rest % 8;
      return [{ family: ROUTE_FAMILIES[(rest - method) / 8]!, method: METHODS[method] ?? "other", status: String(status) }, n];
    });
    const e = new Exposition()
      .gauge("ursa_build_info", "The running ursa's version.", [[{ version: s.version }, 1]])
      .gauge("process_start_time_seconds", "When the process started, in seconds since the Unix epoch.", s.startedAtMs / 1000)
      .gauge("process_resident_memory_bytes", "Resident set size of the process.", process.memoryUsage.rss())
      .counter("ursa_http_requests_total", "HTTP requests answered, by route family, method and status.", requests)
      .counter("ursa_http_error_responses_total", "Error responses, by error code.", [...this.errors].sort().map(([code, n]) => [{ code }, n]))
      .gauge("ursa_http_requests_in_flight", "Requests being handled, live reads included.", s.inFlight())
      .gauge("ursa_request_body_bytes_in_flight", "Request body bytes received and held in memory.", s.bodyBytesInFlight())
      .counter("ursa_appended_bytes_total", "Bytes appended (by appends and creates with a body) and acknowledged.", stats.appendedBytes)
      .counter("ursa_appended_messages_total", "Messages appended and acknowledged.", stats.appendedMessages)
      .histogram("ursa_group_commit_batch_writes", "Writes per group-commit transaction.", this.batchWrites)
      .histogram("ursa_group_commit_commit_seconds", "Time from BEGIN to COMMIT of each group-commit transaction.", this.commitSeconds)
      .histogram("ursa_group_commit_sync_seconds", "Time of each sync of the write-ahead log (--sync full).", this.syncSeconds)
      .gauge("ursa_live_readers", "Live readers now, by kind.", [
        [{ kind: "sse" }, s.hub.activeOf("sse")],
        [{ kind: "long_poll" }, s.hub.activeOf("long-poll")],
      ])
      .gauge("ursa_streams", "Streams, not counting soft-deleted fork sources.", counts.streams)
      .gauge("ursa_buckets", "Buckets.", counts.buckets)
      .gauge("ursa_database_bytes", "Size of the database: the SQLite file, or the PostgreSQL database.", stats.databaseBytes)
      .gauge("ursa_wal_bytes", "Size of the write-ahead log: the SQLite -wal file, or PostgreSQL's pg_wal when the role may list it.", stats.walBytes)
      .gauge(
        "ursa_snapshot_file_bytes",
        "Size of the snapshot files in ursa.sqlite-snapshots/, measured every 5 s in the background; 0 with --postgres, whose snapshots are in the database.",
        stats.snapshotFileBytes,
      )
      .gauge(
        "ursa_segment_file_bytes",
        "Message bytes of byte streams moved to segment files in ursa.sqlite-segments/, which catch-ups are sent from with sendfile; 0 with --postgres.",
        stats.segmentFileBytes,
      )
      .gauge(
        "ursa_background_tasks",
        "Work the store runs behind commits and has not finished: reclaim steps (pinned snapshots aside), byte streams with a run waiting to move to a segment file, deferred message-log rows, start-up sweeps. 0 once caught up.",
        stats.backgroundTasks,
      )
      .gauge("ursa_disk_reserve_bytes", "Space held in ursa.sqlite-reserve; while the disk is full, only what a restart needs to open the database.", stats.reserveBytes)
      .counter("ursa_storage_damaged_reads_total", "Reads of a stream that met a damaged database page (SQLITE_CORRUPT).", stats.damagedReads)
      .gauge("ursa_storage_damaged_streams", "Streams found stored on damaged database pages; they take no writes.", stats.damagedStreams)
      .gauge("ursa_ready", "1 while /__ursula/ready answers 200.", s.ready() ? 1 : 0)
      .histogram("ursa_event_loop_lag_seconds", "How late a 100 ms timer runs: time the event loop spent busy.", this.lag.histogram)
      .gauge("ursa_event_loop_lag_max_seconds", "The worst event-loop lag of the last 10 seconds.", this.lag.max);
    const open = openFileCount();
    if (open !== null) e.gauge("process_open_fds", "Open file descriptors.", open);
    if (this.fdLimit !== null) e.gauge("process_max_fds", "The open-file limit.", this.fdLimit);
    return e.text();
  }
}

/** Open descriptors, where /proc says (Linux); null elsewhere. */
function openFileCount(): number | null {
  try {
    // Less the one reading the directory.
    return readdirSync("/proc/self/fd").length - 1;
  } catch {
    return null;
  }
}

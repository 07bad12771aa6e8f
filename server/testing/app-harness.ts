// In-process app for tests: an in-memory store, a fake clock, and a fingerprint of everything a
// write could change, so a test can prove that a refused request committed nothing.

import { createApp } from "../app";
import { BodyBudget } from "../http/body-budget";
import { LiveHub } from "../live/hub";
import type { ProducerLimits } from "../protocol/producer";
import type { StreamState } from "../protocol/state";
import { SqliteStore } from "../storage/sqlite-store";

export interface Harness {
  store: SqliteStore;
  clock: { now: number };
  request(method: string, path: string, init?: { headers?: Record<string, string>; body?: string | Uint8Array | ReadableStream<Uint8Array> }): Promise<Response>;
  /**
   * Every retained byte, guard and lifetime field of the stream at `key` (`bucket/name`), its
   * attributes, its snapshot (bytes included) and its floor, or null.
   */
  fingerprint(key: string): string | null;
  close(): Promise<void>;
}

interface HarnessOptions {
  longPollTimeoutMs?: number;
  maxBodyBytes?: number;
  maxSnapshotBytes?: number;
  maxInflightBodyBytes?: number;
  producerLimits?: ProducerLimits;
  /** A database file; in memory if not given. */
  path?: string;
}

export function harness(options: HarnessOptions = {}): Harness {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const store = new SqliteStore({ path: options.path ?? ":memory:", sync: "full", now: () => clock.now, sweepIntervalMs: 3_600_000, producerLimits: options.producerLimits });
  const hub = new LiveHub(store, 1000);
  const app = createApp(
    {
      store,
      hub,
      bodies: new BodyBudget(options.maxInflightBodyBytes ?? 256 * 1024 * 1024),
      limits: {
        maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
        maxSnapshotBytes: options.maxSnapshotBytes ?? 4 * 1024 * 1024,
        longPollTimeoutMs: options.longPollTimeoutMs ?? 50,
        sseHeartbeatMs: 1000,
        sseMaxDurationMs: 2000,
      },
      keepOpen: () => undefined,
      info: { version: "test", dataPath: ":memory:", sync: "full", startedAtMs: clock.now },
    },
    "/nonexistent",
  );
  return {
    store,
    clock,
    request: (method, path, init = {}) =>
      // duplex: a ReadableStream body streams in, as a chunked upload does.
      Promise.resolve(app.request(`http://ursa.test${path}`, { method, headers: init.headers, body: init.body, duplex: "half" } as RequestInit)),
    fingerprint(key) {
      const s = store.get(key);
      return s ? fingerprintOf(store, s) : null;
    },
    close: () => store.close(),
  };
}

function fingerprintOf(store: SqliteStore, s: StreamState): string {
  // From the floor: rows below it are deleted in the background, and are unreadable already.
  const bytes = store.readRange(s, s.retained, Number.MAX_SAFE_INTEGER, false).chunks.map((c) => Buffer.from(c).toString("base64"));
  let snapshotBytes: string | null = null;
  if (s.snapshot) {
    const reader = store.openSnapshot(s.snapshot);
    const chunks = Array.from({ length: reader.chunks }, (_, i) => reader.chunk(i));
    reader.release();
    snapshotBytes = Buffer.concat(chunks).toString("base64");
  }
  return JSON.stringify({
    ...s,
    producers: [...s.producers],
    bytes,
    attrs: store.attrs(s),
    snapshotBytes,
  });
}

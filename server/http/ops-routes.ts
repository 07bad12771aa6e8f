// Liveness, readiness and metrics for operators and their tools, under /__ursula/ where no bucket
// can be (spec §8.3: top-level names such as /metrics are valid bucket IDs).

import { EXPOSITION_CONTENT_TYPE } from "../ops/metrics";
import type { WriteState } from "../storage/write-health";
import type { AppDeps } from "./deps";
import { baseHeaders, H } from "./headers";
import { json } from "./respond";
import { Routes } from "./router";

const REASONS: Record<Exclude<WriteState, "ok">, string> = {
  full: "storage full: writes that add data fail with 507 until there is room; reads, deletes and retention work",
  corrupt: "database damaged: every write is refused until it is repaired; reads of intact data work (see the log)",
  "read-only": "storage is read-only: writes fail",
  "io-error": "storage failed with an I/O error: writes fail",
  unavailable: "the database cannot be reached: requests get 503 DATABASE_UNAVAILABLE until it can",
  closing: "shutting down",
};

/** Why the server cannot take writes now, or null when it can. */
export function unreadyReason(deps: AppDeps): string | null {
  if (deps.stopping()) return REASONS.closing;
  const state = deps.store.writeState();
  return state === "ok" ? null : REASONS[state];
}

export function opsRoutes(deps: AppDeps): Routes {
  const app = new Routes("admin");

  app.get("/health", () => json({ status: "ok" }));

  // 200 only while the store is open and takes writes. A store that found its disk full stays
  // unready until a write succeeds: the probe tries one (at most once a second), so readiness
  // comes back without waiting for a client to write.
  app.get("/ready", async () => {
    if (!deps.stopping()) await deps.store.probeWrite();
    const reason = unreadyReason(deps);
    if (reason === null) return json({ status: "ready" });
    const response = json({ status: "unready", reason }, 503);
    response.headers.set(H.retryAfter, "1");
    return response;
  });

  const metrics = deps.metrics;
  if (metrics) {
    app.get("/metrics", async () => {
      const h = baseHeaders();
      h.set(H.contentType, EXPOSITION_CONTENT_TYPE);
      const text = await metrics.render({
        store: deps.store,
        hub: deps.hub,
        version: deps.info.version,
        startedAtMs: deps.info.startedAtMs,
        inFlight: deps.inFlight,
        bodyBytesInFlight: () => deps.bodies.inUse,
        ready: () => unreadyReason(deps) === null,
      });
      return new Response(text, { headers: h });
    });
  }

  return app;
}

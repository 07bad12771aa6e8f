// The start-up integrity check, on its own thread: PRAGMA quick_check reads every page of the
// database (seconds per GiB), so it runs beside the server, which serves meanwhile, rather than
// before it. It checks the b-trees and the free-page list, not whether indexes match their
// tables (integrity_check would, at several times the cost). The store turns a failure into
// read-only operation (write-health.ts) and a log line that says how to recover.
//
// It runs in one read transaction, during which the WAL cannot be reset; that is the cost.

import { Database } from "bun:sqlite";

declare const self: Worker;

export interface IntegrityCheckStart {
  path: string;
}

export type IntegrityCheckResult =
  | { kind: "ok"; ms: number }
  | { kind: "damaged"; ms: number; problems: string[] }
  /** The check could not run (not a finding about the data). */
  | { kind: "failed"; ms: number; error: string };

/** The problems reported at most: the first says enough, and the list could be as long as the file. */
const MAX_PROBLEMS = 10;

self.onmessage = (event: MessageEvent<IntegrityCheckStart>) => {
  const startedAt = performance.now();
  const ms = () => Math.round(performance.now() - startedAt);
  let result: IntegrityCheckResult;
  try {
    const db = new Database(event.data.path, { readonly: true, strict: true });
    try {
      const rows = db.query<{ quick_check: string }, []>(`PRAGMA quick_check(${MAX_PROBLEMS})`).all();
      const problems = rows.map((r) => r.quick_check).filter((p) => p !== "ok");
      result = problems.length === 0 ? { kind: "ok", ms: ms() } : { kind: "damaged", ms: ms(), problems };
    } finally {
      db.close();
    }
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? "");
    // A page so damaged that the check itself cannot go on is a finding; anything else is not.
    const damaged = code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB";
    const message = (error as Error).message;
    result = damaged ? { kind: "damaged", ms: ms(), problems: [message] } : { kind: "failed", ms: ms(), error: message };
  }
  self.postMessage(result);
};

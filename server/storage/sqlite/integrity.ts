// The integrity check after start (integrity-check.ts runs it on its own thread), and what the
// store does with its finding: a database that fails PRAGMA quick_check takes no more writes
// (write-health.ts), and the log says what is wrong and how to recover.

import type { IntegrityCheckResult, IntegrityCheckStart } from "./integrity-check";
import type { StoreLog } from "../store-log";
import type { WriteHealth } from "../write-health";

/** Starts the check on `path`; the thread ends itself once it has reported. */
export function checkIntegrity(url: URL, path: string, health: WriteHealth, log: StoreLog): Worker {
  const worker = new Worker(url);
  worker.onmessage = (event: MessageEvent<IntegrityCheckResult>) => {
    const result = event.data;
    void worker.terminate();
    if (result.kind === "ok") return log("debug", "database integrity check passed", { ms: result.ms });
    if (result.kind === "failed") return log("warn", "database integrity check could not run", { error: result.error, ms: result.ms });
    const [first, ...more] = result.problems;
    health.damaged(first!);
    log(
      "error",
      "the database failed its integrity check (PRAGMA quick_check): ursa serves reads but refuses every write from now on. Stop it, then restore ursa.sqlite from a backup, or salvage it with the sqlite3 shell's .recover into a new file (docs/operations.md)",
      { problem: first, more_problems: more.length || undefined, ms: result.ms },
    );
  };
  worker.postMessage({ path } satisfies IntegrityCheckStart);
  return worker;
}

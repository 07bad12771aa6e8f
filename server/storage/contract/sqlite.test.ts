// The store contract (index.ts) run against the SQLite engine, in memory and on disk. This file
// is the only one of the suite that knows it is SQLite: a fault is a set of temporary triggers on
// the store's own connection (a temporary trigger is seen by no other connection and no later
// start), and a crash is a copy of the files while writes are in flight, as a kill -9 leaves them.

import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshot } from "../../testing/temp-dir";
import { SqliteStore } from "../sqlite/sqlite-store";
import type { Engine, EngineFactory, EngineOptions } from "./engine";
import { storeContract } from "./index";

let faults = 0;

/** Tables a write of the stream at (bucket, name) changes, and how a row names its stream. */
const FAULT_TRIGGERS = [
  ["INSERT", "streams", "NEW.bucket = $b AND NEW.name = $n"],
  ["UPDATE", "streams", "OLD.bucket = $b AND OLD.name = $n"],
  ["DELETE", "streams", "OLD.bucket = $b AND OLD.name = $n"],
  ["INSERT", "msgs", "NEW.stream_id IN (SELECT id FROM streams WHERE bucket = $b AND name = $n)"],
  ["INSERT", "producers", "NEW.stream_id IN (SELECT id FROM streams WHERE bucket = $b AND name = $n)"],
  ["INSERT", "stream_attrs", "NEW.stream_id IN (SELECT id FROM streams WHERE bucket = $b AND name = $n)"],
] as const;

const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

function sqliteEngines(onDisk: boolean): EngineFactory {
  return {
    durable: onDisk,
    async make(options: EngineOptions): Promise<Engine> {
      const dir = onDisk ? mkdtempSync(join(tmpdir(), "ursa-contract-")) : null;
      let path = dir ? join(dir, "ursa.sqlite") : ":memory:";
      const open = (at: string) =>
        new SqliteStore({ path: at, sync: "full", now: options.now, producerLimits: options.producerLimits, quotas: options.quotas, integrityCheckUrl: false });
      let store = open(path);
      const needsDisk = () => {
        if (!dir) throw new Error("an in-memory store keeps nothing to reopen");
        return dir;
      };
      return {
        get store() {
          return store;
        },
        async failWrites(key) {
          const slash = key.indexOf("/");
          const [b, n] = [literal(key.slice(0, slash)), literal(key.slice(slash + 1))];
          const db = (store as unknown as { db: Database }).db;
          const names = FAULT_TRIGGERS.map(([event, table, when]) => {
            const name = `contract_fault_${++faults}`;
            db.run(`CREATE TEMP TRIGGER ${name} BEFORE ${event} ON ${table} WHEN ${when.replaceAll("$b", b).replaceAll("$n", n)} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
            return name;
          });
          return { heal: async () => names.forEach((name) => db.run(`DROP TRIGGER ${name}`)) };
        },
        settle: () => store.reclaimed(),
        async reopen() {
          needsDisk();
          await store.close();
          store = open(path);
          return store;
        },
        async crash() {
          const copy = snapshot(path, needsDisk());
          const running = store;
          store = open(copy);
          path = copy;
          await running.close();
          return store;
        },
        async dispose() {
          await store.close();
          if (dir) rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

storeContract("SQLite store in memory", sqliteEngines(false));
storeContract("SQLite store on disk", sqliteEngines(true));

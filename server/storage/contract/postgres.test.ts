// The store contract (index.ts) run against the PostgreSQL engine: one throwaway cluster for this
// file (testing/pg-cluster.ts), a fresh database per engine. A fault is a trigger that raises for
// rows of the stream (seen by every connection of that engine's database and no other), and a
// crash opens a second store on the same database while the first is still writing.

import { SQL } from "bun";
import { afterAll, beforeAll } from "bun:test";
import { clusterPerFile } from "../../testing/pg-cluster";
import { PgStore } from "../postgres/pg-store";
import type { Engine, EngineFactory, EngineOptions } from "./engine";
import { storeContract } from "./index";

const cluster = clusterPerFile({ beforeAll, afterAll });
let databases = 0;

const FAULT_FUNCTION = `
CREATE TABLE IF NOT EXISTS contract_faults (bucket text, name text);
CREATE OR REPLACE FUNCTION contract_fault() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE b text; n text;
BEGIN
  IF TG_TABLE_NAME = 'streams' THEN
    IF TG_OP = 'DELETE' THEN b := OLD.bucket; n := OLD.name; ELSE b := NEW.bucket; n := NEW.name; END IF;
  ELSE
    SELECT s.bucket, s.name INTO b, n FROM streams s WHERE s.id = NEW.stream_id;
  END IF;
  IF EXISTS (SELECT 1 FROM contract_faults f WHERE f.bucket = b AND f.name = n) THEN
    RAISE EXCEPTION 'injected fault';
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS contract_fault ON streams;
DROP TRIGGER IF EXISTS contract_fault ON msgs;
DROP TRIGGER IF EXISTS contract_fault ON producers;
CREATE TRIGGER contract_fault BEFORE INSERT OR UPDATE OR DELETE ON streams FOR EACH ROW EXECUTE FUNCTION contract_fault();
CREATE TRIGGER contract_fault BEFORE INSERT ON msgs FOR EACH ROW EXECUTE FUNCTION contract_fault();
CREATE TRIGGER contract_fault BEFORE INSERT ON producers FOR EACH ROW EXECUTE FUNCTION contract_fault();
`;

const postgres: EngineFactory = {
  durable: true,
  async make(options: EngineOptions): Promise<Engine> {
    const url = await cluster().createDatabase(`contract_${++databases}`);
    const open = () => PgStore.open({ url, now: options.now, producerLimits: options.producerLimits, quotas: options.quotas, poolSize: 4 });
    let store = await open();
    const admin = new SQL({ url, max: 1 });
    let faultsInstalled = false;
    return {
      get store() {
        return store;
      },
      async failWrites(key) {
        if (!faultsInstalled) {
          await admin.unsafe(FAULT_FUNCTION);
          faultsInstalled = true;
        }
        const slash = key.indexOf("/");
        const [bucket, name] = [key.slice(0, slash), key.slice(slash + 1)];
        await admin`INSERT INTO contract_faults (bucket, name) VALUES (${bucket}, ${name})`;
        return { heal: async () => void (await admin`DELETE FROM contract_faults WHERE bucket = ${bucket} AND name = ${name}`) };
      },
      settle: () => store.settle(),
      async reopen() {
        await store.close();
        store = await open();
        return store;
      },
      async crash() {
        // The data of a killed instance is what its database committed; another instance can
        // open it while the first still runs, which is how the contract's crash reads here. The
        // running store's in-flight writes commit or not as PostgreSQL decides, and its close
        // afterwards waits for them (pg-store.test.ts drops an instance's connections mid-write).
        const running = store;
        store = await open();
        await running.close();
        return store;
      },
      async dispose() {
        await store.close();
        await admin.close();
      },
    };
  },
};

storeContract("PostgreSQL store", postgres);

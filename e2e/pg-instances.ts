// ursa on PostgreSQL as a user runs it: the compiled binary with --postgres on a throwaway
// cluster (server/testing/pg-cluster.ts), alone or as two instances on one database with
// HAProxy in front (docs/haproxy.cfg). Each test file starts its own cluster and stops it, and
// everything it started, in afterAll.
import { startPgCluster, type PgCluster } from "../server/testing/pg-cluster.ts";
import { startBalancer, type Balancer } from "./balancer.ts";
import { startUrsa, type StartOptions, type UrsaProcess } from "./server-process.ts";

export type { PgCluster };

/** A cluster for one test file; initdb takes a few seconds, so hooks get 60 s. */
export const CLUSTER_HOOK_TIMEOUT_MS = 60_000;

export function startCluster(): Promise<PgCluster> {
  return startPgCluster();
}

export function startPgUrsa(database: string, options: StartOptions = {}): Promise<UrsaProcess> {
  return startUrsa({ ...options, postgres: database });
}

export interface Pair {
  a: UrsaProcess;
  b: UrsaProcess;
  lb: Balancer;
  /** Every log, for a failing assertion's message. */
  logs(): string;
  stop(): Promise<void>;
}

/** Two instances on `database` and the balancer in front of them, sending each request to the next instance. */
export async function startPair(database: string, options: StartOptions = {}): Promise<Pair> {
  const a = await startPgUrsa(database, options);
  const b = await startPgUrsa(database, options).catch(async (e: unknown) => {
    await a.stop();
    throw e;
  });
  const lb = await startBalancer([a.url, b.url], "round-robin").catch(async (e: unknown) => {
    await Promise.all([a.stop(), b.stop()]);
    throw e;
  });
  return {
    a,
    b,
    lb,
    logs: () => `--- instance a\n${a.log()}\n--- instance b\n${b.log()}\n--- haproxy\n${lb.log()}`,
    async stop() {
      await lb.stop();
      await Promise.all([a.stop(), b.stop()]);
      a.cleanup();
      b.cleanup();
    },
  };
}

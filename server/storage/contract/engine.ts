// What the store contract suite needs of an engine, and nothing more: a fresh store on fresh data,
// a clock it reads, and (where the engine's data outlives its process) a way to open the same data
// again. The rules in this folder never see SQL or an engine's internals; each engine's factory
// (e.g. sqlite-contract.test.ts) hides them behind this.

import type { ProducerLimits } from "../../protocol/producer";
import type { Quotas } from "../../protocol/quota";
import type { Store } from "../store";

export interface EngineOptions {
  /** The only clock the store may read: TTL, expiry, producer idleness and incarnations follow it. */
  now: () => number;
  producerLimits?: ProducerLimits;
  quotas?: Quotas;
}

/** A failure the engine meets inside a transaction (a full disk, a lost connection, a constraint). */
export interface InjectedFault {
  /** Writes touching the stream succeed again. */
  heal(): Promise<void>;
}

export interface Engine {
  store: Store;
  /**
   * Makes every transaction that writes anything of the stream at `key` fail inside the engine,
   * after the decision and before the commit, until healed.
   */
  failWrites(key: string): Promise<InjectedFault>;
  /**
   * Waits until what the engine does in the background after a commit (reclaiming rows below a
   * floor, replaced attributes, unreferenced snapshot bytes) has been done, so a test can show
   * that it took nothing still in use.
   */
  settle(): Promise<void>;
  /** Closes the store (it waits for queued writes) and opens the same data again. */
  reopen(): Promise<Store>;
  /**
   * Opens the data as a kill -9 at this moment would leave it, writes still in flight; the store
   * that was running is closed afterwards, and its later writes are not part of what was opened.
   */
  crash(): Promise<Store>;
  /** Closes whatever store is open and removes the data. */
  dispose(): Promise<void>;
}

export interface EngineFactory {
  make(options: EngineOptions): Promise<Engine>;
  /** Whether the data outlives the store: the tests that reopen or crash it are run only then. */
  durable: boolean;
}

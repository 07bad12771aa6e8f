// The store contract: every rule a store must keep, run against an engine through the Store
// interface alone (engine.ts). Each engine's test file calls storeContract with its factory; a
// new engine passes when every test here does, unchanged.

import { describe } from "bun:test";
import type { EngineFactory } from "./engine";
import { atomicity } from "./atomicity";
import { guards } from "./guards";
import { incarnation } from "./incarnation";

export type { Engine, EngineFactory, EngineOptions, InjectedFault } from "./engine";

export function storeContract(name: string, factory: EngineFactory): void {
  describe(`store contract: ${name}`, () => {
    guards(factory);
    incarnation(factory);
    atomicity(factory);
  });
}

// The store contract: every rule a store must keep, run against an engine through the Store
// interface alone (engine.ts). Each engine's test file calls storeContract with its factory; a
// new engine passes when every test here does, unchanged.

import { describe } from "bun:test";
import { atomicity } from "./atomicity";
import { buckets } from "./buckets";
import { crash } from "./crash";
import type { EngineFactory } from "./engine";
import { forks } from "./forks";
import { guards } from "./guards";
import { incarnation } from "./incarnation";
import { reads } from "./reads";
import { lifetime } from "./lifetime";
import { model } from "./model";
import { resources } from "./resources";
import { streams } from "./streams";
import { subscriptions } from "./subscriptions";

export type { Engine, EngineFactory, EngineOptions, InjectedFault } from "./engine";

export function storeContract(name: string, factory: EngineFactory): void {
  describe(`store contract: ${name}`, () => {
    guards(factory);
    incarnation(factory);
    atomicity(factory);
    streams(factory);
    forks(factory);
    lifetime(factory);
    resources(factory);
    reads(factory);
    buckets(factory);
    crash(factory);
    model(factory);
    subscriptions(factory);
  });
}

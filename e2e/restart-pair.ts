// The shape of every restart test: a first ursa process, then a second over the same data
// directory once the first has ended. Whatever is still running after the file's tests is stopped,
// and the directory removed.

import { afterAll } from "vitest";
import type { UrsaProcess } from "./server-process.ts";

export interface RestartPair {
  first?: UrsaProcess;
  second?: UrsaProcess;
}

export function restartPair(): RestartPair {
  const pair: RestartPair = {};
  afterAll(async () => {
    await pair.first?.kill();
    await pair.second?.stop();
    (pair.second ?? pair.first)?.cleanup();
  });
  return pair;
}

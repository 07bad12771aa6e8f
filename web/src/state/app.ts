// The console's long-lived models, shared across pages so that a form or the timeline survives
// navigating away and back. The labs' models are in labs.ts, loaded with the first lab visited.
import { ComposerModel } from "./composer";
import { recorded } from "./transport";
import { signal } from "@preact/signals";
import { createDemo, type DemoCtx } from "./demo";
import type { ScriptedLab } from "./scriptedLab";
import { LAB_BUCKET } from "./labStreams";

export const composer = new ComposerModel(recorded("composer"), recorded("retry"));
composer.update({ target: `/${LAB_BUCKET}/scratch` });

/** Create, append, close and delete from the browse and stream pages. */
export const browseTransport = recorded("browse");

/** The demo bucket's run, once started from the start page (it survives leaving the page). */
export const demoRun = signal<ScriptedLab<DemoCtx> | null>(null);

export function startDemo(bucket: string): Promise<void> {
  const run = createDemo(recorded("demo"), bucket);
  demoRun.value = run;
  return run.runAll(undefined, 40);
}

// The console's long-lived models, shared across pages so that a form, a lab run or the
// timeline survives navigating away and back.
import { ComposerModel } from "./composer";
import { RaceRunner } from "./raceRunner";
import { createOutboxLab } from "./outboxLab";
import { createIncarnationLab } from "./incarnationLab";
import { CompactionLab } from "./compactionLab";
import { recorded } from "./transport";
import { signal } from "@preact/signals";
import { createDemo, type DemoCtx } from "./demo";
import type { ScriptedLab } from "./scriptedLab";

/** Labs create their streams here, so they never collide with user data. */
export const LAB_BUCKET = "console-lab";

export const composer = new ComposerModel(recorded("composer"), recorded("retry"));
composer.update({ target: `/${LAB_BUCKET}/scratch` });

/** Create, append, close and delete from the browse and stream pages. */
export const browseTransport = recorded("browse");

export const raceLab = new RaceRunner(recorded("race lab"), { bucket: LAB_BUCKET });
export const outboxLab = createOutboxLab(recorded("outbox lab"), LAB_BUCKET);
export const incarnationLab = createIncarnationLab(recorded("incarnation lab"), LAB_BUCKET);
export const compactionLab = new CompactionLab(recorded("compaction lab"), LAB_BUCKET);

/** The demo bucket's run, once started from the start page (it survives leaving the page). */
export const demoRun = signal<ScriptedLab<DemoCtx> | null>(null);

export function startDemo(bucket: string): Promise<void> {
  const run = createDemo(recorded("demo"), bucket);
  demoRun.value = run;
  return run.runAll(undefined, 40);
}

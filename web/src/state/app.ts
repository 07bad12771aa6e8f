// The console's long-lived models, shared across pages so that a form or the timeline survives
// navigating away and back. A lab run does not: leaving a lab deletes its streams (labJanitor.ts).
import { ComposerModel } from "./composer";
import { RaceRunner } from "./raceRunner";
import { createOutboxLab } from "./outboxLab";
import { createIncarnationLab } from "./incarnationLab";
import { CompactionLab } from "./compactionLab";
import { recorded } from "./transport";
import { signal } from "@preact/signals";
import { createDemo, type DemoCtx } from "./demo";
import type { ScriptedLab } from "./scriptedLab";
import { LAB_BUCKET, LabStreams } from "./labStreams";
import { watchLabs } from "./labJanitor";

export { LAB_BUCKET };

export const composer = new ComposerModel(recorded("composer"), recorded("retry"));
composer.update({ target: `/${LAB_BUCKET}/scratch` });

/** Create, append, close and delete from the browse and stream pages. */
export const browseTransport = recorded("browse");

/** The streams each lab's current run created: deleted on New run, on reset and on leaving. */
export const labStreams = {
  race: new LabStreams(recorded("race lab")),
  outbox: new LabStreams(recorded("outbox lab")),
  incarnation: new LabStreams(recorded("incarnation lab")),
  compaction: new LabStreams(recorded("compaction lab")),
};
const cleanup = (s: LabStreams) => () => s.discard();

export const raceLab = new RaceRunner(labStreams.race.transport, { bucket: LAB_BUCKET, cleanup: cleanup(labStreams.race) });
export const outboxLab = createOutboxLab(labStreams.outbox.transport, LAB_BUCKET, { cleanup: cleanup(labStreams.outbox) });
export const incarnationLab = createIncarnationLab(labStreams.incarnation.transport, LAB_BUCKET, { cleanup: cleanup(labStreams.incarnation) });
export const compactionLab = new CompactionLab(labStreams.compaction.transport, LAB_BUCKET, { cleanup: cleanup(labStreams.compaction) });

if (typeof window !== "undefined")
  watchLabs([
    {
      route: "race",
      streams: labStreams.race,
      leave: () => {
        raceLab.stop();
        raceLab.reset();
      },
    },
    { route: "outbox", streams: labStreams.outbox, leave: () => outboxLab.reset() },
    { route: "incarnation", streams: labStreams.incarnation, leave: () => incarnationLab.reset() },
    { route: "compaction", streams: labStreams.compaction, leave: () => compactionLab.lab.reset() },
  ]);

/** The demo bucket's run, once started from the start page (it survives leaving the page). */
export const demoRun = signal<ScriptedLab<DemoCtx> | null>(null);

export function startDemo(bucket: string): Promise<void> {
  const run = createDemo(recorded("demo"), bucket);
  demoRun.value = run;
  return run.runAll(undefined, 40);
}

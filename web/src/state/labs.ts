// The labs' long-lived models. They run on ursa-client, so this module, the lab pages and the
// package load together on the first visit to a lab (components/lab/LabPage.tsx), not with the
// console. A lab run does not survive leaving its page: leaving deletes its streams (labJanitor.ts).
import { RaceRunner } from "./raceRunner";
import { createOutboxLab } from "./outboxLab";
import { createIncarnationLab } from "./incarnationLab";
import { CompactionLab } from "./compactionLab";
import { recorded } from "./transport";
import { LAB_BUCKET, LabStreams } from "./labStreams";
import { watchLabs } from "./labJanitor";

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

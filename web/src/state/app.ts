// The console's long-lived models, shared across pages so that a form, a lab run or the
// timeline survives navigating away and back.
import { ComposerModel } from "./composer";
import { RaceRunner } from "./raceRunner";
import { createOutboxLab } from "./outboxLab";
import { createIncarnationLab } from "./incarnationLab";
import { recorded } from "./transport";

/** Labs create their streams here, so they never collide with user data. */
export const LAB_BUCKET = "console-lab";

export const composer = new ComposerModel(recorded("composer"), recorded("retry"));
composer.update({ target: `/${LAB_BUCKET}/scratch` });

export const raceLab = new RaceRunner(recorded("race lab"), { bucket: LAB_BUCKET });
export const outboxLab = createOutboxLab(recorded("outbox lab"), LAB_BUCKET);
export const incarnationLab = createIncarnationLab(recorded("incarnation lab"), LAB_BUCKET);

// Race lab: writers run the prefix-count recipe on a fresh stream, step by step or all at once.
import { raceLab, labStreams } from "../../state/labs";
import { LAB_BUCKET } from "../../state/labStreams";
import { raceLesson } from "../../state/raceVerdict";
import { LabStreamsNote } from "./LabStreamsNote";
import { links } from "../../state/router";
import { Panel } from "../common/Panel";
import { Link } from "../common/Link";
import { BytewiseExplainer } from "../explainers/BytewiseExplainer";
import { DedupExplainer } from "../explainers/SeqRulesExplainer";
import { RaceControls } from "./RaceControls";
import { Swimlane } from "./Swimlane";
import { VerdictPanel } from "./VerdictPanel";
import { StepCode } from "./StepCode";
import { RACE_CODE } from "../../state/labCode";

export function RaceLabPage() {
  const st = raceLab.state.value;
  const stream = st?.path.split("/")[2];
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Race lab</h1>
          <div class="sub">
            Several writers extend one log with prefix-count Stream-Seq: read to the tail counting n, commit with n, and on a 409 read on k events and retry with n + k. Each writer is an ursa-client PrefixCountWriter.
          </div>
          <LabStreamsNote streams={labStreams.race} />
        </div>
      </div>
      <div class="lab-layout race">
        <div class="stack">
          <Panel title="Setup">
            <RaceControls lab={raceLab} />
          </Panel>
          {raceLab.error.value && <div class="note bad">{raceLab.error.value}</div>}
          {st && stream && (
            <div class="muted">
              Stream <Link href={links.stream(LAB_BUCKET, decodeURIComponent(stream))} class="mono">{st.path}</Link>
              {raceLab.config.value.pitfalls.seedingPut ? " — created by a PUT with Stream-Seq (seeding pitfall)" : " — created by a PUT without Stream-Seq"}
              <StepCode code={RACE_CODE.setup} />
            </div>
          )}
          {st ? <Swimlane lab={raceLab} /> : <div class="empty panel">Press Step to create a fresh stream and let writer A make its first read.</div>}
          <VerdictPanel verdict={raceLab.verdict.value} lesson={raceLab.verdict.value && st ? raceLesson(raceLab.verdict.value, st) : null} />
        </div>
        <aside class="stack lab-aside" aria-label="Explainers">
          <BytewiseExplainer initial={["10", "9"]} />
          <DedupExplainer />
        </aside>
      </div>
    </>
  );
}

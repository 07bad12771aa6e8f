// Outbox lab: publishing committed facts with both guards, through an owner takeover.
import { labStreams, outboxLab } from "../../state/labs";
import { LAB_BUCKET } from "../../state/labStreams";
import { auth } from "../../state/auth";
import { FACTS, outboxLesson, PRODUCER_ID } from "../../state/outboxLab";
import { LabVerdict } from "./LabVerdict";
import { LabStreamsNote } from "./LabStreamsNote";
import { ScriptedLabView } from "./ScriptedLabView";
import { DedupExplainer } from "../explainers/SeqRulesExplainer";
import { BytewiseExplainer } from "../explainers/BytewiseExplainer";
import { CwRule } from "../explainers/CwRule";

export function OutboxLabPage() {
  const ctx = outboxLab.view.value;
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Outbox lab</h1>
          <div class="sub">
            One logical publisher ({PRODUCER_ID}) publishes facts 1–{FACTS} from a source of truth. Producer headers make a retry after a lost answer safe; Stream-Seq
            = the commit number keeps each fact once and in order when a new owner takes over with a higher epoch. Each owner is an ursa-client OutboxPublisher.
          </div>
          <LabStreamsNote streams={labStreams.outbox} />
        </div>
      </div>
      <div class="lab-layout">
        <div class="stack">
          <div class="grid-2">
            <div class="note">
              <strong>Old owner</strong> · epoch {ctx.old.epoch} · next Producer-Seq {ctx.old.producerSeq} · next fact {ctx.old.nextFact}
            </div>
            <div class="note info">
              <strong>New owner</strong> · epoch {ctx.next.epoch} · next Producer-Seq {ctx.next.producerSeq} · next fact {ctx.next.nextFact}
            </div>
          </div>
          <ScriptedLabView lab={outboxLab} label={`Takeover on ${ctx.path}`} needs={[{ what: `The lab's appends to ${LAB_BUCKET}`, need: auth.need("write", LAB_BUCKET) }]} />
          <LabVerdict
            verdict={outboxLab.finished ? outboxLesson(ctx) : null}
            pending="When the last step has run, the lab reads the stream: every fact must be on it once, in commit order, although one was sent twice and one republished."
          />
        </div>
        <aside class="stack lab-aside">
          <div class="explainer">
            <h3>Only a 409 with Stream-Last-Seq means “already published”</h3>
            <p>
              When the new owner republishes a fact that is already on the stream, the Stream-Seq check answers 409 with Stream-Last-Seq: the fact is there, so go
              on to the next one with the same Producer-Seq, or straight to the first after Stream-Last-Seq. Any other 409 is an error: skipping on it would lose a
              fact.
            </p>
            <CwRule ids={["outbox-3"]} />
          </div>
          <div class="explainer">
            <h3>Gaps are forever</h3>
            <p>A fact skipped once can never be appended later: its number is no longer greater than the stored one. If the source lost a fact, publish a marker that tells readers to resynchronize.</p>
            <CwRule ids={["outbox-5"]} />
          </div>
          <DedupExplainer />
          <BytewiseExplainer initial={["10", "9"]} />
        </aside>
      </div>
    </>
  );
}

// Incarnation lab: a kept token meets a recreated stream.
import { incarnationLab, labStreams } from "../../state/labs";
import { LAB_BUCKET } from "../../state/labStreams";
import { incarnationLesson } from "../../state/incarnationLab";
import { LabVerdict } from "./LabVerdict";
import { LabStreamsNote } from "./LabStreamsNote";
import { auth } from "../../state/auth";
import { ScriptedLabView } from "./ScriptedLabView";
import { CwRule } from "../explainers/CwRule";

export function IncarnationLabPage() {
  const ctx = incarnationLab.view.value;
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Incarnation lab</h1>
          <div class="sub">Stream-Seq and producer state belong to one stream. Stream-Incarnation tells a client that the stream it knew was deleted and recreated at the same URL. The client is an ursa-client UrsaStream.</div>
          <LabStreamsNote streams={labStreams.incarnation} />
        </div>
      </div>
      <div class="lab-layout">
        <div class="stack">
          <div class="grid-2">
            <div class="note">
              Kept token: <code data-testid="old-token">{ctx.oldToken ?? "—"}</code>
            </div>
            <div class="note info">
              Current token: <code data-testid="new-token">{ctx.newToken ?? ctx.oldToken ?? "—"}</code>
            </div>
          </div>
          <ScriptedLabView
            lab={incarnationLab}
            label={`Recreate ${ctx.path}`}
            needs={[
              { what: `The lab's creates and appends in ${LAB_BUCKET}`, need: auth.need("write", LAB_BUCKET) },
              { what: "Its delete", need: auth.need("admin", LAB_BUCKET) },
            ]}
          />
          <LabVerdict
            verdict={incarnationLab.finished ? incarnationLesson(ctx) : null}
            pending="When the last step has run, the lab checks that every request with the old token was refused with the new one, and that starting over found an empty new stream and could write to it."
          />
        </div>
        <aside class="stack lab-aside">
          <div class="explainer">
            <h3>412 never mixes with the 409s</h3>
            <p>
              A 409 is about the stream you know; a 412 says it is gone and another one has its URL. Start over from the new one: drop what you derived from the old,
              read the new one from its start, and keep its token.
            </p>
            <CwRule ids={["inc-vs-409"]} />
          </div>
          <div class="explainer">
            <h3>404 stays 404</h3>
            <p>
              The token never turns a missing stream into a 412 (nor a read's 410 or 416), with one exception: a PUT carrying a token for a missing stream answers 412
              and creates nothing. Without the token nothing changes.
            </p>
            <CwRule ids={["inc-404", "inc-none"]} />
          </div>
        </aside>
      </div>
    </>
  );
}

// Incarnation lab: a kept token meets a recreated stream.
import { incarnationLab } from "../../state/app";
import { ScriptedLabView } from "./ScriptedLabView";

export function IncarnationLabPage() {
  const ctx = incarnationLab.view.value;
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Incarnation lab</h1>
          <div class="sub">Stream-Seq and producer state belong to one stream. Stream-Incarnation tells a client that the stream it knew was deleted and recreated at the same URL.</div>
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
          <ScriptedLabView lab={incarnationLab} label={`Recreate ${ctx.path}`} />
        </div>
        <aside class="stack lab-aside">
          <div class="explainer">
            <h3>412 never mixes with the 409s</h3>
            <p>
              A Stream-Seq or producer conflict is about the same stream; a 412 means the stream you knew is gone. Start over from the new stream: discard derived
              state, read from its start or bootstrap, and keep the new token.
            </p>
          </div>
          <div class="explainer">
            <h3>404 stays 404</h3>
            <p>
              A request that would answer 404 (or, for a read, 410 or 416) without the header still does. A PUT with the header for a missing stream answers 412 and
              creates nothing. Without the header nothing changes.
            </p>
          </div>
        </aside>
      </div>
    </>
  );
}

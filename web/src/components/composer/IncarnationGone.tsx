// After an answer that names another incarnation of the target (a 412, or an answer to a request
// sent without the guard), the stream the composer knew is gone. It says so, with both tokens,
// and keeps sending the old one, so nothing reaches the new stream by accident, until the
// person chooses to start over: that adopts the new token and clears what was derived from the
// old stream (Ursula v0.9.0, Conditional Writes, §Guarding against a recreated stream).
import type { ComposerModel } from "../../state/composer";
import { CwRule } from "../explainers/CwRule";

export function IncarnationGone({ model }: { model: ComposerModel }) {
  const r = model.recreated.value;
  if (!r) return null;
  return (
    <section class="note warn stack incarnation-gone" style={{ gap: "8px" }} data-testid="incarnation-gone" aria-labelledby="incarnation-gone-title">
      <h2 id="incarnation-gone-title" style={{ fontSize: "14px", margin: 0 }}>
        The stream you knew is gone
      </h2>
      <div>
        <code>{r.path}</code> was deleted and created again. The token you kept, <code data-testid="kept-token">{r.kept || "(empty)"}</code>, names a stream that no
        longer exists; the stream at that URL now is <code data-testid="current-token">{r.current}</code>.{" "}
        {r.refused
          ? "The server refused the request with 412 and applied nothing."
          : "The request went without Stream-Incarnation, so the server did not check it: its answer comes from the new stream."}
      </div>
      <div>
        Every request still carries the old token, so each one is refused instead of acting on a stream you never read. To work with the new stream, start over: its token
        is kept, and the offset, Producer-Seq and Stream-Seq taken from the old stream are cleared (a read starts at offset=-1).
      </div>
      <div class="row">
        <button type="button" class="primary" onClick={() => model.startOver()}>
          Start over with the new stream
        </button>
      </div>
      <CwRule ids={["inc-vs-409"]} />
    </section>
  );
}

// Compaction lab: a prefix-count stream is compacted (snapshot with its event count, then
// retention), a second writer counts on from the snapshot, and a reader recovers from a 410
// through bootstrap; with the pitfall, the snapshot keeps no count and the second writer can
// never commit again.
import { compactionLab, labStreams } from "../../state/labs";
import { LAB_BUCKET } from "../../state/labStreams";
import { auth } from "../../state/auth";
import { links } from "../../state/router";
import { Link } from "../common/Link";
import { LabVerdict } from "./LabVerdict";
import { LabStreamsNote } from "./LabStreamsNote";
import { CwRule } from "../explainers/CwRule";
import { ScriptedLabView } from "./ScriptedLabView";

function Verdict() {
  const v = compactionLab.verdict;
  return (
    <LabVerdict
      verdict={v}
      pending="When the last step has run, the lab checks two things against what the server answered: B committed with Stream-Seq equal to every event before it, trimmed ones included; C recovered the whole log from the snapshot and the messages after it."
    >
      {v && (
        <ul class="verdict-rows">
          {v.rows.map((r) => (
            <li key={r.who} data-ok={r.ok}>
              <span class={r.ok ? "ok-text" : "error-text"}>{r.ok ? "✓" : "✗"}</span> <strong>{r.who}</strong> {r.what}
            </li>
          ))}
        </ul>
      )}
    </LabVerdict>
  );
}

export function CompactionLabPage() {
  const lab = compactionLab.lab;
  const ctx = lab.view.value;
  const without = compactionLab.withoutCount.value;
  const stream = ctx.path.split("/")[2]!;
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Compaction lab</h1>
          <div class="sub">
            A prefix-count stream whose start is trimmed: its writers count from a snapshot instead of from offset=-1, and its readers start from the snapshot through
            bootstrap. The clients are ursa-client's PrefixCountWriter, compact(), resumeFromSnapshot() and readFromSnapshot().
          </div>
          <LabStreamsNote streams={labStreams.compaction} />
        </div>
      </div>
      <div class="lab-layout">
        <div class="stack">
          <fieldset class="pitfalls" disabled={lab.busy.value}>
            <legend>Pitfall</legend>
            <div class={`pitfall ${without ? "on" : ""}`}>
              <input type="checkbox" id="pitfall-no-count" checked={without} onChange={(e) => compactionLab.setWithoutCount(e.currentTarget.checked)} />
              <span>
                <label for="pitfall-no-count">
                  <strong>Leave the event count out of the snapshot</strong>
                  <span class="rule">Writer A publishes only its state. Changing this starts a new run.</span>
                </label>
                {without && <span class="shows">Shows: client B counts too few events, and every retry answers 409.</span>}
              </span>
            </div>
          </fieldset>
          <div class="grid-2">
            <div class="note">
              <strong>Writer A</strong> · n = {ctx.a.n ?? "—"} · snapshot {ctx.snapshot?.digest ? <code class="nowrap">{JSON.stringify(ctx.snapshot.body)}</code> : "—"} · floor{" "}
              <span class="mono nowrap">{ctx.floor ?? "—"}</span>
            </div>
            <div class="note info">
              <strong>Client B</strong> · count from the snapshot {ctx.b.base === undefined ? "—" : ctx.b.base === null ? "none" : ctx.b.base} · messages after it {ctx.b.after ?? "—"} · n ={" "}
              {ctx.b.n ?? "—"} · stored Stream-Seq <span class="mono nowrap">{ctx.storedSeq ?? "none"}</span>
            </div>
          </div>
          <div class="muted">
            Stream{" "}
            <Link href={links.stream(LAB_BUCKET, decodeURIComponent(stream))} class="mono">
              {ctx.path}
            </Link>
            {lab.records.value.length === 0 && " (created when the first step runs)"}
          </div>
          <ScriptedLabView
            lab={lab}
            label={without ? "Compaction without the count" : "Compaction, step by step"}
            needs={[
              { what: `The lab's writes to ${LAB_BUCKET}`, need: auth.need("write", LAB_BUCKET) },
              { what: "Its retention step", need: auth.need("admin", LAB_BUCKET) },
            ]}
          />
          <Verdict />
        </div>
        <aside class="stack lab-aside" aria-label="Explainers">
          <div class="explainer">
            <h3>Keep the count in the snapshot</h3>
            <p>
              A prefix-count Stream-Seq counts every event since the stream was created. Once retention trims the start, nobody can count those events by reading: the
              snapshot has to say how many there were, and writers count on from it.
            </p>
            <CwRule ids={["prefix-3"]} />
          </div>
          <div class="explainer">
            <h3>A count that is too small never wins</h3>
            <p>
              The stored value is the count before the latest commit. A writer whose count leaves events out sends something smaller, gets 409, reads on, finds
              nothing new, and sends the same value again: forever.
            </p>
            <CwRule ids={["prefix-seeded", "prefix-5"]} />
          </div>
          <div class="explainer">
            <h3>410 is where bootstrap starts</h3>
            <p>
              Below the floor every read answers 410 STREAM_GONE, offset=-1 included, with Stream-Earliest-Offset. GET …/bootstrap answers the snapshot and the
              messages after it in one multipart answer; ordinary reads go on from its Stream-Next-Offset.
            </p>
          </div>
        </aside>
      </div>
    </>
  );
}

// The race as a swimlane: a lane per writer, a row per action in the order the server answered,
// and a shared time axis on the left (action number and when its answer came, in milliseconds
// since the run began), so
// who committed first is read straight off the page. A lost commit names the commit that beat
// it. Values never wrap: Stream-Seq shows its padding dimmed and its digits bold. On a phone the
// lanes stack: each row shows only the writer that acted, named (styles/labs.css).
import type { CommitEntry, LaneEntry, WriterState } from "../../state/raceLab";
import { nextAction } from "../../state/raceLab";
import type { RaceRunner } from "../../state/raceRunner";
import { layoutSwimlane, splitPadding, type SwimRow } from "../../state/swimlane";
import { padSeq } from "../../api/streamSeq";
import { OutcomeChip } from "../common/OutcomeChip";
import { RACE_CODE } from "../../state/labCode";
import { StepCode } from "./StepCode";

const PHASE_TONE: Record<WriterState["phase"], string> = { read: "info", "read-on": "warn", commit: "info", done: "ok", stuck: "bad", failed: "bad" };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function Seq({ value }: { value: string }) {
  const [zeros, digits] = splitPadding(value);
  return (
    <span class="seq mono nowrap" title={value}>
      <span class="pad">{zeros}</span>
      <strong>{digits}</strong>
    </span>
  );
}

function CommitCell({ e, row, lanes }: { e: CommitEntry; row: SwimRow; lanes: string[] }) {
  const lost = e.status === 409;
  return (
    <div class={`swim-entry commit ${lost ? "lost" : e.status < 300 ? "won" : "err"}`} data-kind="commit" data-status={e.status}>
      <div class="swim-title">
        <strong>{e.attempt === 0 ? "Commit" : `Retry ${e.attempt}`}</strong>
        <span class="muted nowrap">{plural(e.events, "event")}</span>
        <OutcomeChip outcome={e.outcome} />
        {row.lostTo && (
          <span class="muted lost-to nowrap" data-testid="lost-to">
            {row.lostTo === "seed" ? "stored by the seeding PUT" : `lost to ${lanes[row.lostTo.lane]} #${row.lostTo.at}`}
          </span>
        )}
      </div>
      <div class="swim-line">
        <span class="muted">sent</span> <Seq value={e.seq} />
      </div>
      {e.lastSeq !== undefined && (
        <div class="swim-line" data-testid="last-seq">
          <span class="muted">stored</span> <Seq value={e.lastSeq} />
        </div>
      )}
      {e.code && e.lastSeq === undefined && <div class="swim-line mono">{e.code}</div>}
      <StepCode code={RACE_CODE.commit} label="in code" />
    </div>
  );
}

function ReadCell({ e }: { e: LaneEntry & { kind: "read" | "read-on" } }) {
  return (
    <div class={`swim-entry read ${e.upToDate ? "" : "short"}`} data-kind={e.kind}>
      <div class="swim-title">
        <strong>{e.kind === "read" ? "Read" : "Read on"}</strong>
        <span class="num nowrap">{e.kind === "read" ? `n = ${e.n}` : `k = ${e.events} → n = ${e.n}`}</span>
        <span class="muted nowrap">{e.kind === "read" ? plural(e.events, "event") : plural(e.events, "new event")},</span>
        <span class="muted nowrap">{plural(e.responses, "response")}</span>
      </div>
      {e.error ? <div class="swim-line error-text">{e.error}</div> : !e.upToDate && <div class="swim-line error-text">stopped before Stream-Up-To-Date</div>}
      <StepCode code={RACE_CODE[e.kind]} label="in code" />
    </div>
  );
}

export function Swimlane({ lab }: { lab: RaceRunner }) {
  const st = lab.state.value!;
  const seed = lab.config.value.pitfalls.seedingPut ? padSeq(lab.config.value.seedValue) : null;
  const layout = layoutSwimlane(st, seed);
  const busy = lab.busy.value || lab.mode.value !== "idle";
  return (
    <div class="swimlane panel" role="table" aria-label="Race timeline" style={{ gridTemplateColumns: layout.columns }}>
      <div role="row" class="swim-head">
        <div role="columnheader" class="swim-axis">
          time
        </div>
        {st.writers.map((w, i) => {
          const next = nextAction(st, i);
          return (
            <div role="columnheader" key={w.name} class="swim-lane-head" aria-label={`Writer ${w.name}`} data-writer={w.name}>
              <div class="row" style={{ gap: "6px" }}>
                <strong>Writer {w.name}</strong>
                <span class={`chip ${PHASE_TONE[w.phase]}`} data-testid={`phase-${w.name}`}>
                  {w.phase}
                </span>
              </div>
              <div class="muted small-line nowrap">
                {w.accepted} accepted · {w.conflicts} × 409 · <span class="nowrap">n = {w.n}</span>
              </div>
              {next && (
                <button type="button" class="small" disabled={busy} onClick={() => void lab.step(i)} title={next.kind === "commit" ? `commit with Stream-Seq ${Number(next.seq)}` : "read to the tail"}>
                  Step {w.name}: {next.kind === "commit" ? `commit ${Number(next.seq)}` : w.phase === "read-on" ? "read on" : "read"}
                </button>
              )}
            </div>
          );
        })}
      </div>
      {layout.rows.map((r) => (
        <div role="row" class="swim-row" key={r.at} data-at={r.at}>
          <div role="rowheader" class="swim-axis num" title={`sent at +${r.t} ms, answered after ${r.dt} ms`}>
            <span class="at">#{r.at}</span>
            <span class="muted">+{r.t + r.dt} ms</span>
          </div>
          {layout.lanes.map((name, lane) => (
            <div role="cell" key={name} class={`swim-cell ${lane === r.lane ? "active" : ""}`} data-writer={lane === r.lane ? name : undefined}>
              {lane === r.lane && <span class="swim-who">Writer {name}</span>}
              {lane === r.lane && (r.entry.kind === "commit" ? <CommitCell e={r.entry} row={r} lanes={layout.lanes} /> : <ReadCell e={r.entry as LaneEntry & { kind: "read" | "read-on" }} />)}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

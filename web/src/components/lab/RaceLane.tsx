// One writer's lane: its reads (n), commits with Stream-Seq, the 409 with Stream-Last-Seq,
// the read-on of k events, the retry with n + k.
import type { LaneEntry, WriterState } from "../../state/raceLab";
import { nextAction } from "../../state/raceLab";
import type { RaceRunner } from "../../state/raceRunner";
import { shortOffset } from "../../api/offsets";
import { OutcomeChip } from "../common/OutcomeChip";

const PHASE_TONE: Record<WriterState["phase"], string> = { read: "info", "read-on": "warn", commit: "info", done: "ok", stuck: "bad", failed: "bad" };

function Entry({ e }: { e: LaneEntry }) {
  if (e.kind === "commit") {
    const lost = e.status === 409;
    return (
      <li class={`lane-entry commit ${lost ? "lost" : e.status < 300 ? "won" : "err"}`} data-kind="commit" data-status={e.status}>
        <div class="row" style={{ gap: "6px" }}>
          <span class="at">{e.at}</span>
          <strong>{e.attempt === 0 ? "Commit" : `Retry ${e.attempt}`}</strong>
          <span class="muted">
            {e.events} event{e.events > 1 ? "s" : ""}
          </span>
          <span class="grow" />
          <OutcomeChip outcome={e.outcome} />
        </div>
        <div class="mono small-line">
          Stream-Seq <span class="seq">{e.seq}</span>
        </div>
        {e.lastSeq !== undefined && (
          <div class="mono small-line" data-testid="last-seq">
            ← 409 Stream-Last-Seq <span class="seq">{e.lastSeq}</span>
          </div>
        )}
        {e.code && e.lastSeq === undefined && <div class="mono small-line">{e.code}</div>}
      </li>
    );
  }
  return (
    <li class={`lane-entry read ${e.upToDate ? "" : "short"}`} data-kind={e.kind}>
      <div class="row" style={{ gap: "6px" }}>
        <span class="at">{e.at}</span>
        <strong>{e.kind === "read" ? "Read" : "Read on"}</strong>
        <span class="grow" />
        <span class="num">{e.kind === "read" ? `n = ${e.n}` : `k = ${e.events} → n = ${e.n}`}</span>
      </div>
      <div class="muted small-line">
        {e.kind === "read" ? `${e.events} new events` : "from where it stopped"} · {e.responses} response{e.responses > 1 ? "s" : ""} ·{" "}
        {e.from === "-1" ? "-1" : shortOffset(e.from)} → {shortOffset(e.to)}
      </div>
      {e.error ? <div class="error-text small-line">{e.error}</div> : !e.upToDate && <div class="error-text small-line">stopped before Stream-Up-To-Date: true</div>}
    </li>
  );
}

export function RaceLane({ lab, index }: { lab: RaceRunner; index: number }) {
  const st = lab.state.value!;
  const w = st.writers[index]!;
  const next = nextAction(st, index);
  const busy = lab.busy.value || lab.mode.value !== "idle";
  return (
    <section class="lane panel" aria-label={`Writer ${w.name}`} data-writer={w.name}>
      <header>
        <h2>Writer {w.name}</h2>
        <span class={`chip ${PHASE_TONE[w.phase]}`} data-testid={`phase-${w.name}`}>
          {w.phase}
        </span>
      </header>
      <div class="body">
        <div class="muted small-line">
          {w.accepted} accepted · {w.conflicts} × 409 · count n = {w.n}
        </div>
        <ol class="lane-entries">
          {w.entries.map((e, i) => (
            <Entry key={i} e={e} />
          ))}
        </ol>
        {next && (
          <div class="row lane-next">
            <span class="muted small-line grow">
              next: {next.kind === "commit" ? `commit with Stream-Seq ${Number(next.seq)}` : w.phase === "read-on" ? "read on from where it stopped" : "read to the tail"}
            </span>
            <button type="button" class="small" disabled={busy} onClick={() => void lab.step(index)}>
              Step {w.name}
            </button>
          </div>
        )}
      </div>
    </section>
  );
}

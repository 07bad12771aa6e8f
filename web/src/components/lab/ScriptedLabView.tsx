// A scripted lab as a numbered list: done steps show the answer and what it means, the
// current step is marked, and every later step is named with what it will do, so the whole plot
// is readable before the first click.
import type { ScriptedLab, StepRecord } from "../../state/scriptedLab";
import { classify, OUTCOME_LABEL } from "../../api/outcome";
import { explainingHeaders } from "../../api/explain";
import { displayHeaderName, getHeader } from "../../api/headers";
import type { Exchange } from "../../api/types";
import { OutcomeChip, StatusCode } from "../common/OutcomeChip";
import { ExchangeView } from "../common/ExchangeView";
import { NeedNote, type Gated } from "../access/NeedNote";
import { StepCode } from "./StepCode";

function KeyHeaders({ ex }: { ex: Exchange }) {
  const shown = explainingHeaders(ex).filter((e) => getHeader(ex.response?.headers, e.header) !== undefined);
  return (
    <span class="facts-line mono">
      {shown.map((e) => (
        <span key={e.header} title={e.why}>
          {displayHeaderName(e.header)}: <strong>{getHeader(ex.response?.headers, e.header)}</strong>
        </span>
      ))}
    </span>
  );
}

function Done({ r }: { r: StepRecord }) {
  return (
    <li class={`script-step done ${r.ok ? "ok" : "bad"}`} data-step={r.index} data-ok={r.ok}>
      <span class="n">{r.ok ? "✓" : "✗"}</span>
      <div>
        <div class="actor">{r.actor}</div>
        <strong>{r.title}</strong>
        {r.explain && <div class="explain">{r.explain}</div>}
        <div class="result stack" style={{ gap: "4px" }}>
          {r.exchanges.slice(-1).map((ex) => (
            <div key={ex.id} class="row" style={{ gap: "6px" }}>
              <span class="mono step-request">
                {ex.request.method} {ex.request.path}
              </span>
              {r.lost ? (
                <span class="chip bad" data-testid="answer-lost">
                  answer lost
                </span>
              ) : (
                <>
                  <StatusCode status={ex.response?.status} />
                  {OUTCOME_LABEL[classify(ex)] !== String(ex.response?.status) && <OutcomeChip outcome={classify(ex)} />}
                  <KeyHeaders ex={ex} />
                </>
              )}
            </div>
          ))}
          <div class={r.ok ? "" : "error-text"} data-testid="step-note">
            {r.note}
          </div>
        </div>
        {r.exchanges.length > 0 && (
          <details>
            <summary>
              {r.lost ? "Request, and the answer that never arrived" : "Request and response"}
              {r.exchanges.length > 1 ? ` (${r.exchanges.length} exchanges)` : ""}
            </summary>
            {r.exchanges.map((ex) => (
              <ExchangeView key={ex.id} ex={ex} />
            ))}
          </details>
        )}
        <StepCode code={r.code} />
      </div>
    </li>
  );
}

/** `needs`: what the lab's requests take (a read-only token cannot run it; the plot stays readable). */
export function ScriptedLabView<C>({ lab, label, needs = [] }: { lab: ScriptedLab<C>; label: string; needs?: Gated[] }) {
  const records = lab.records.value;
  const cursor = lab.cursor.value;
  const refused = needs.some((n) => n.need !== null);
  const busy = lab.busy.value || refused;
  return (
    <section class="panel" aria-label={label}>
      <header>
        <h2>{label}</h2>
        <div class="actions">
          <button type="button" class="primary" disabled={busy || lab.finished} onClick={() => void lab.step()}>
            Step
          </button>
          <button type="button" disabled={busy} onClick={() => void lab.runAll()}>
            {lab.finished ? "Run again" : "Run all"}
          </button>
          <button type="button" disabled={busy} onClick={() => lab.reset()}>
            Reset
          </button>
        </div>
      </header>
      {refused && (
        <div class="body">
          <NeedNote items={needs} />
        </div>
      )}
      <ol class="script">
        {records.map((r) => (
          <Done key={r.index} r={r} />
        ))}
        {lab.steps.slice(cursor).map((s, j) => (
          <li key={cursor + j} class={`script-step pending ${j === 0 && !lab.halted.value ? "current" : ""}`}>
            <span class="n">{cursor + j + 1}</span>
            <div>
              <div class="actor">{s.actor}</div>
              <strong>{s.title}</strong>
              {s.explain && <div class="explain">{s.explain}</div>}
              <StepCode code={s.code} />
            </div>
          </li>
        ))}
      </ol>
      {lab.halted.value && <div class="note bad">Stopped: the last answer was not what the rule says, so later steps would prove nothing.</div>}
    </section>
  );
}

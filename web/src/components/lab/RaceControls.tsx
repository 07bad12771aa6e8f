// Race lab settings (writers, commits, events per commit), the pitfall toggles with their
// rules, and the run buttons.
import { PITFALLS } from "./pitfalls";
import { CwRule } from "../explainers/CwRule";
import { WRITER_NAMES } from "../../state/raceLab";
import type { RaceRunner } from "../../state/raceRunner";
import { LAB_BUCKET } from "../../state/labStreams";
import { auth } from "../../state/auth";
import { NeedNote } from "../access/NeedNote";

export function RaceControls({ lab }: { lab: RaceRunner }) {
  const cfg = lab.config.value;
  const running = lab.mode.value !== "idle";
  const need = auth.need("write", LAB_BUCKET);
  const busy = running || lab.busy.value || need !== null;
  return (
    <div class="stack" style={{ gap: "10px" }}>
      <div class="row">
        <label class="toggle-row">
          <span class="muted">writers</span>
          <select aria-label="writers" value={cfg.writers} disabled={busy} onChange={(e) => lab.updateConfig({ writers: Number(e.currentTarget.value) })}>
            {[2, 3, 4].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label class="toggle-row">
          <span class="muted">commits each</span>
          <select aria-label="commits each" value={cfg.commitsPerWriter} disabled={busy} onChange={(e) => lab.updateConfig({ commitsPerWriter: Number(e.currentTarget.value) })}>
            {[1, 2, 3, 5].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {WRITER_NAMES.slice(0, cfg.writers).map((name, i) => (
          <label key={name} class="toggle-row">
            <span class="muted">{name}: events/commit</span>
            <input
              type="number"
              min="1"
              max="9"
              value={cfg.eventsPerCommit[i]}
              disabled={busy}
              style={{ width: "54px" }}
              onInput={(e) => {
                const v = Math.max(1, Math.min(9, Number(e.currentTarget.value) || 1));
                lab.updateConfig({ eventsPerCommit: cfg.eventsPerCommit.map((x, j) => (j === i ? v : x)) });
              }}
            />
          </label>
        ))}
      </div>
      <fieldset class="pitfalls" disabled={busy}>
        <legend>Pitfalls</legend>
        {PITFALLS.map((p) => (
          <div key={p.key} class={`pitfall ${cfg.pitfalls[p.key] ? "on" : ""}`}>
            <input
              type="checkbox"
              id={`pitfall-${p.key}`}
              checked={cfg.pitfalls[p.key]}
              onChange={(e) => lab.updateConfig({ pitfalls: { ...cfg.pitfalls, [p.key]: e.currentTarget.checked } })}
            />
            <span>
              <label for={`pitfall-${p.key}`}>
                <strong>{p.title}</strong>
                <span class="rule">{p.rule}</span>
              </label>
              {cfg.pitfalls[p.key] && <span class="shows">{p.shows}</span>}
              <CwRule ids={p.cwRules} />
            </span>
          </div>
        ))}
      </fieldset>
      <div class="row">
        <button type="button" class="primary" disabled={busy} onClick={() => void lab.step()}>
          Step
        </button>
        <button type="button" disabled={busy} onClick={() => void lab.runSteps()}>
          Run step by step
        </button>
        <button type="button" disabled={busy} onClick={() => void lab.runContinuous()}>
          Run continuously
        </button>
        {running && (
          <button type="button" onClick={() => lab.stop()}>
            Stop
          </button>
        )}
        <button type="button" disabled={busy} onClick={() => lab.reset()}>
          New run
        </button>
        <span class="muted">Step: the next writer in turn does one thing. Continuously: all writers at once, a real race.</span>
      </div>
      <NeedNote items={[{ what: `The race lab writes to bucket ${LAB_BUCKET}:`, need }]} />
    </div>
  );
}

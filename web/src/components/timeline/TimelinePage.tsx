// Every request this browser sent, newest first, filterable; each expands to the full
// exchange. Only the newest 200 matches are rendered, the rest are counted.
import { useState } from "preact/hooks";
import { attempts } from "../../state/attempts";
import { Panel } from "../common/Panel";
import { TimelineFilters } from "./TimelineFilters";
import { AttemptRow } from "./AttemptRow";

const SHOWN = 200;

export function TimelinePage() {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const visible = attempts.visible.value;
  const toggle = (id: string) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Attempt timeline</h1>
          <div class="sub">Every protocol request this browser sent, with its outcome. Kept in this browser (newest {500}).</div>
        </div>
        <div class="actions">
          <button type="button" onClick={() => attempts.clear()} disabled={!attempts.entries.value.length}>
            Clear history
          </button>
        </div>
      </div>
      <div class="stack">
        <TimelineFilters log={attempts} />
        <Panel title={`${visible.length} of ${attempts.entries.value.length} attempts`} flush>
          {visible.length === 0 ? (
            <div class="empty">{attempts.entries.value.length ? "No attempt matches the filter." : "No requests yet. Send one from the composer or run a lab."}</div>
          ) : (
            <ol class="attempts" aria-label="Attempts">
              {visible.slice(0, SHOWN).map((a) => (
                <AttemptRow key={a.id} a={a} open={open.has(a.id)} onToggle={() => toggle(a.id)} />
              ))}
            </ol>
          )}
          {visible.length > SHOWN && <div class="empty">{visible.length - SHOWN} older matches not shown; narrow the filter.</div>}
        </Panel>
      </div>
    </>
  );
}

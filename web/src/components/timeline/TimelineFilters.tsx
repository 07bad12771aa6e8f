// Outcome chips (toggle buttons with counts), source and text filters for the timeline.
import { OUTCOME_LABEL, outcomeTone, WRITE_OUTCOMES, type Outcome } from "../../api/outcome";
import type { AttemptLog, AttemptSource } from "../../state/attempts";

const SOURCES: (AttemptSource | "all")[] = ["all", "composer", "retry", "browse", "demo", "race lab", "outbox lab", "incarnation lab", "compaction lab"];
const OTHER: Outcome[] = ["created", "exists", "read", "deleted", "not-found", "409-snapshot", "409-other", "410-gone", "401", "403-scope", "429-producer-limit", "error", "network"];

export function TimelineFilters({ log }: { log: AttemptLog }) {
  const f = log.filter.value;
  const counts = log.counts.value;
  const chip = (o: Outcome) => {
    const n = counts.get(o) ?? 0;
    if (!n && !WRITE_OUTCOMES.includes(o)) return null;
    return (
      <button key={o} type="button" class={`chip ${outcomeTone(o)}`} aria-pressed={f.outcomes.includes(o)} onClick={() => log.toggleOutcome(o)} data-filter={o}>
        {OUTCOME_LABEL[o]} <span class="num">{n}</span>
      </button>
    );
  };
  return (
    <div class="stack" style={{ gap: "8px" }}>
      <div class="row" role="group" aria-label="Filter by outcome">
        {WRITE_OUTCOMES.map(chip)}
        {OTHER.map(chip)}
        {f.outcomes.length > 0 && (
          <button type="button" class="link" onClick={() => log.setFilter({ outcomes: [] })}>
            all outcomes
          </button>
        )}
      </div>
      <div class="row">
        <label class="toggle-row">
          <span class="muted">source</span>
          <select value={f.source} onChange={(e) => log.setFilter({ source: e.currentTarget.value as AttemptSource | "all" })}>
            {SOURCES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <input type="search" placeholder="path, method, status or error code" value={f.text} onInput={(e) => log.setFilter({ text: e.currentTarget.value })} aria-label="Search attempts" style={{ width: "300px" }} />
      </div>
    </div>
  );
}

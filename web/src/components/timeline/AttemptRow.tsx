// One attempt: a compact line that expands to the full request and response.
import type { Attempt } from "../../state/attempts";
import { getHeader } from "../../api/headers";
import { clock } from "../../format";
import { OutcomeChip } from "../common/OutcomeChip";
import { ExchangeView } from "../common/ExchangeView";
import { CauseView } from "../explainers/CauseView";

function keyHeaders(a: Attempt): string {
  const ex = a.exchange;
  const parts: string[] = [];
  const seq = getHeader(ex.request.headers, "stream-seq");
  if (seq !== undefined) parts.push(`seq ${seq}`);
  const pid = getHeader(ex.request.headers, "producer-id");
  if (pid !== undefined) parts.push(`${pid} e${getHeader(ex.request.headers, "producer-epoch")} s${getHeader(ex.request.headers, "producer-seq")}`);
  const last = getHeader(ex.response?.headers, "stream-last-seq");
  if (last !== undefined) parts.push(`last ${last}`);
  return parts.join(" · ");
}

export function AttemptRow({ a, open, onToggle }: { a: Attempt; open: boolean; onToggle: () => void }) {
  const ex = a.exchange;
  return (
    <li class={`attempt ${open ? "open" : ""}`} data-outcome={a.outcome}>
      <button type="button" class="attempt-line" aria-expanded={open} onClick={onToggle}>
        <span class="muted num">{clock(ex.startedAt)}</span>
        <OutcomeChip outcome={a.outcome} />
        <span class="mono method">{ex.request.method}</span>
        <span class="mono path">{ex.request.path}</span>
        <span class="mono muted hdrs">{keyHeaders(a)}</span>
        <span class="mono num">{ex.response?.status ?? "—"}</span>
        <span class="muted num dur">{ex.durationMs} ms</span>
        <span class="chip plain src">{a.source}</span>
      </button>
      {open && (
        <div class="attempt-detail stack">
          {a.outcome !== "read" && <CauseView ex={ex} />}
          <ExchangeView ex={ex} />
        </div>
      )}
    </li>
  );
}

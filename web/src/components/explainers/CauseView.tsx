// What an answer means (api/cause.ts): the headline, the values side by side, each possible
// cause (the likely one marked, when this browser's history shows it), and the seed rule.
import type { Exchange } from "../../api/types";
import { causeOf } from "../../api/cause";
import { outcomeTone } from "../../api/outcome";
import { attempts } from "../../state/attempts";
import { SeedRule } from "./SeedRule";

export function CauseView({ ex }: { ex: Exchange }) {
  const c = causeOf(
    ex,
    attempts.entries.value.map((a) => a.exchange),
  );
  const tone = outcomeTone(c.outcome);
  return (
    <div class={`cause note ${tone === "info" ? "info" : tone}`} data-testid="cause" data-outcome={c.outcome}>
      <p class="cause-headline">{c.headline}</p>
      {c.compare && (
        <dl class="compare" data-testid="cause-compare">
          <div>
            <dt>{c.compare.label} sent</dt>
            <dd class="mono nowrap" data-testid="sent-value">
              {c.compare.sent || "(empty)"}
            </dd>
          </div>
          <div>
            <dt>{c.compare.storedLabel}</dt>
            <dd class="mono nowrap" data-testid="stored-value">
              {c.compare.stored}
            </dd>
          </div>
        </dl>
      )}
      {c.causes && (
        <ul class="causes">
          {c.causes.map((k) => (
            <li key={k.title} data-likely={k.likely ? "true" : undefined}>
              <strong>{k.title}</strong>
              {k.likely && <span class="chip plain">likely, from this browser's history</span>}
              <span class="cause-text">{k.text}</span>
            </li>
          ))}
        </ul>
      )}
      {c.next && <p class="cause-next">{c.next}</p>}
      <SeedRule ids={c.rules} />
    </div>
  );
}

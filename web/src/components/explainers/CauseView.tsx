// What an answer means (api/cause.ts): the headline, the values side by side, each possible
// cause (the likely one marked, when this browser's history shows it), and the rule of Ursula
// v0.9.0, Conditional Writes.
// Only a person's own requests (composer, retry, the browse pages' buttons) count as "yours": the
// labs and the demo play several writers from this one browser.
import type { Exchange } from "../../api/types";
import { causeOf } from "../../api/cause";
import { outcomeTone } from "../../api/outcome";
import { attempts, type AttemptSource } from "../../state/attempts";
import { auth } from "../../state/auth";
import { CwRule } from "./CwRule";

const PERSONAL: AttemptSource[] = ["composer", "retry", "browse"];

/** This browser's own earlier requests, if `ex` is one of them; none for a lab's or the demo's. */
export function ownHistory(ex: Exchange): Exchange[] {
  const all = attempts.entries.value;
  const mine = all.find((a) => a.id === ex.id);
  if (!mine || !PERSONAL.includes(mine.source)) return [];
  return all.filter((a) => PERSONAL.includes(a.source)).map((a) => a.exchange);
}

export function CauseView({ ex }: { ex: Exchange }) {
  const who = auth.who.value;
  const c = causeOf(ex, ownHistory(ex), who && who.auth !== "none" ? who : null);
  const tone = outcomeTone(c.outcome);
  return (
    <div class={`cause note ${tone === "info" ? "info" : tone}`} data-testid="cause" data-cause={c.outcome}>
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
      <CwRule ids={c.rules} />
    </div>
  );
}

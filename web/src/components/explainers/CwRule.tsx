// Ursula's own words (Ursula v0.9.0, Conditional Writes) behind an explainer, one click away:
// a disclosure that quotes the rule and names its section.
import { CW_RULES, cwSection, type CwRuleId } from "../../learn/conditional-writes";

export function CwRule({ ids, label = "The rule, in Ursula's words" }: { ids: CwRuleId[]; label?: string }) {
  if (ids.length === 0) return null;
  return (
    <details class="cw-rule">
      <summary>{label}</summary>
      {ids.map((id) => (
        <blockquote key={id} data-rule={id}>
          <p>{CW_RULES[id]}</p>
          <cite>Ursula v0.9.0, Conditional Writes, §{cwSection(id)}</cite>
        </blockquote>
      ))}
    </details>
  );
}

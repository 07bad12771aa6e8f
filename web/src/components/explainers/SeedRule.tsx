// The seed's own words behind an explainer, one click away: a disclosure that quotes the rule.
import { SEED, seedSection, type SeedRuleId } from "../../learn/seed";

export function SeedRule({ ids, label = "The rule, in the seed's words" }: { ids: SeedRuleId[]; label?: string }) {
  if (ids.length === 0) return null;
  return (
    <details class="seed-rule">
      <summary>{label}</summary>
      {ids.map((id) => (
        <blockquote key={id} data-rule={id}>
          <p>{SEED[id]}</p>
          <cite>Conditional Writes, “{seedSection(id)}”</cite>
        </blockquote>
      ))}
    </details>
  );
}

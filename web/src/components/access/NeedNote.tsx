// What refused writes would take, next to the disabled controls: for each, the scope (and bucket)
// the token lacks, in the console's words.
import type { Need } from "../../state/auth";

export interface Gated {
  /** The control, as the person sees it ("Append", "Delete"). */
  what: string;
  need: Need | null;
}

export function NeedNote({ items, id }: { items: Gated[]; id?: string }) {
  const groups = new Map<string, { need: Need; what: string[] }>();
  for (const { what, need } of items) {
    if (!need) continue;
    const g = groups.get(need.text) ?? { need, what: [] };
    g.what.push(what);
    groups.set(need.text, g);
  }
  if (!groups.size) return null;
  return (
    <div class="need-note small-line" id={id} data-testid="need-note">
      {[...groups.values()].map((g) => (
        <div key={g.need.text} data-scope={g.need.scope}>
          <strong>{g.what.join(", ")}</strong> {g.need.text}.
        </div>
      ))}
    </div>
  );
}

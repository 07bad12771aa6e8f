// A word the glossary defines, where a page first uses it: a link to its entry, with the entry's
// first sentence as the tooltip.
import type { ComponentChildren } from "preact";
import { GLOSSARY, shortDefinition, type GlossaryId } from "../../learn/glossary";
import { links } from "../../state/router";
import { Link } from "../common/Link";

export function Term({ id, children }: { id: GlossaryId; children?: ComponentChildren }) {
  return (
    <Link href={links.glossary(id)} class="term" title={shortDefinition(id)}>
      {children ?? GLOSSARY[id].term}
    </Link>
  );
}

// Every word the console uses, defined once in plain language (learn/glossary.ts). A link to
// /ui/glossary#term-… (from a <Term>) brings its entry into view and marks it.
import { useEffect } from "preact/hooks";
import { GLOSSARY, GLOSSARY_IDS, type GlossaryEntry, type GlossaryId } from "../../learn/glossary";
import { route } from "../../state/router";
import { Term } from "./Term";

function Entry({ id, current }: { id: GlossaryId; current: boolean }) {
  const e: GlossaryEntry = GLOSSARY[id];
  return (
    <div class={`glossary-entry ${current ? "current" : ""}`} id={`term-${id}`} data-term={id}>
      <dt>
        <dfn>{e.term}</dfn>
        {e.wire && <span class="mono muted glossary-wire">{e.wire}</span>}
      </dt>
      <dd>
        <p>{e.text}</p>
        {e.see && (
          <p class="muted glossary-see">
            See also{" "}
            {e.see.map((s, i) => (
              <span key={s}>
                {i > 0 && ", "}
                <Term id={s as GlossaryId} />
              </span>
            ))}
            .
          </p>
        )}
      </dd>
    </div>
  );
}

export function GlossaryPage() {
  // Re-read on every navigation: a click on another term's link changes only the fragment.
  void route.value;
  const hash = typeof location === "undefined" ? "" : decodeURIComponent(location.hash.slice(1));
  const current = hash.startsWith("term-") ? hash.slice(5) : "";
  useEffect(() => {
    if (current) document.getElementById(`term-${current}`)?.scrollIntoView({ block: "start" });
  }, [current]);
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Glossary</h1>
          <div class="sub">The words this console uses, each in a few plain sentences. Pages link a word here where they first use it.</div>
        </div>
      </div>
      <section class="panel" aria-label="Terms">
        <dl class="glossary">
          {GLOSSARY_IDS.map((id) => (
            <Entry key={id} id={id} current={id === current} />
          ))}
        </dl>
      </section>
    </>
  );
}

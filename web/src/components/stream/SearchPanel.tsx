// Search the stream: a substring (bytes, ASCII case folded unless asked), and on a JSON stream a
// field's value. The server scans a bounded stretch per request; the panel shows how far it got
// and lists the matches, each a link into the viewer.
import { useEffect, useState } from "preact/hooks";
import type { SearchModel, SearchSpec } from "../../state/search";
import { formatBytes } from "../../api/offsets";
import { inlineJson } from "../../api/jsonPretty";
import type { RenderFormat } from "./MessageRow";

export function SearchPanel(props: {
  model: SearchModel;
  json: boolean;
  spec: SearchSpec;
  format: RenderFormat;
  onSearch: (s: SearchSpec) => void;
  onClear: () => void;
  onOpen: (offset: number) => void;
}) {
  const { model, json, spec } = props;
  const [form, setForm] = useState(spec);
  useEffect(() => setForm(spec), [JSON.stringify(spec)]);
  const active = model.spec.value !== null;
  const matches = model.matches.value;
  const tail = model.tail.value;
  const pct = tail > 0 ? Math.min(100, (100 * model.scannedTo.value) / tail) : 100;
  const canSearch = form.text !== "" || (json && form.field !== "");
  return (
    <section class="search-panel" aria-label="Search messages">
      <form
        class="row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (canSearch) props.onSearch(json ? form : { ...form, field: "", value: "" });
        }}
      >
        <label class="field">
          <span>Contains</span>
          <input type="search" class="mono" value={form.text} onInput={(e) => setForm({ ...form, text: e.currentTarget.value })} placeholder="text in a message" spellcheck={false} style={{ width: "14rem" }} />
        </label>
        {json && (
          <>
            <label class="field">
              <span>JSON field</span>
              <input class="mono" value={form.field} onInput={(e) => setForm({ ...form, field: e.currentTarget.value })} placeholder="e.g. order.id" spellcheck={false} style={{ width: "10rem" }} />
            </label>
            <label class="field">
              <span>equals</span>
              <input class="mono" value={form.value} onInput={(e) => setForm({ ...form, value: e.currentTarget.value })} placeholder="any value" spellcheck={false} style={{ width: "9rem" }} />
            </label>
          </>
        )}
        <label class="toggle-row" style={{ alignSelf: "flex-end", minHeight: "28px" }}>
          <input type="checkbox" checked={form.matchCase} onChange={(e) => setForm({ ...form, matchCase: e.currentTarget.checked })} />
          <span>Match case</span>
        </label>
        <button type="submit" class="small" style={{ alignSelf: "flex-end" }} disabled={!canSearch}>
          Search
        </button>
        {active && (
          <button type="button" class="small" style={{ alignSelf: "flex-end" }} onClick={props.onClear}>
            Clear
          </button>
        )}
      </form>
      {active && (
        <div class="stack search-results" style={{ gap: "6px" }}>
          <div class="row muted num" role="status" data-testid="search-status">
            <span>
              {matches.length.toLocaleString("en-US")} match{matches.length === 1 ? "" : "es"} · searched {formatBytes(model.scannedTo.value)} of {formatBytes(tail)}
              {model.done.value ? " · whole stream" : ""}
            </span>
            <span class="meter-inline" aria-hidden="true">
              <span style={{ width: `${pct}%` }} />
            </span>
            {model.running.value ? (
              <button type="button" class="small" onClick={() => model.stop()}>
                Stop
              </button>
            ) : (
              !model.done.value && (
                <button type="button" class="small" onClick={() => void model.more()}>
                  Find more
                </button>
              )
            )}
          </div>
          {model.error.value && <div class="note bad">Search failed: {model.error.value}</div>}
          {matches.length > 0 && (
            <ol class="search-hits" aria-label="Search matches">
              {matches.map((m) => (
                <li key={m.offset} data-offset={m.offset}>
                  <button type="button" class="hit" onClick={() => props.onOpen(m.offset)}>
                    <span class="mono off">@{m.offset.toLocaleString("en-US")}</span>
                    <span class="mono hit-text">{json && props.format === "json" ? inlineJson(m.preview) : m.preview}</span>
                    <span class="muted num">{formatBytes(m.size)}</span>
                  </button>
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </section>
  );
}

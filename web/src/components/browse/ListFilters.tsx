// Filters of a stream list, each bound to the URL: name prefix and substring (typed, applied
// after a pause), open/closed, producers, Stream-Seq.
import { useEffect, useRef, useState } from "preact/hooks";
import type { StreamFilters } from "../../api/introspection";

/** A filter typed into a field: applied after a short pause, or at once on Enter. */
export function TextFilter({ label, value, placeholder, onChange, width = "200px" }: { label: string; value: string; placeholder: string; onChange: (v: string) => void; width?: string }) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => setText(value), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <label class="field" style={{ width }}>
      <span>{label}</span>
      <input
        type="search"
        value={text}
        placeholder={placeholder}
        spellcheck={false}
        onInput={(e) => {
          const v = e.currentTarget.value;
          setText(v);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => onChange(v), 250);
        }}
        onKeyDown={(e) => {
          if (e.key !== "Enter") return;
          clearTimeout(timer.current);
          onChange(text);
        }}
      />
    </label>
  );
}

function Choice<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: [T, string][]; onChange: (v: T) => void }) {
  return (
    <label class="field">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.currentTarget.value as T)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ListFilters({ f, onChange }: { f: StreamFilters; onChange: (patch: Partial<StreamFilters>) => void }) {
  return (
    <div class="row list-filters" role="search" aria-label="Filter streams">
      <TextFilter label="Stream prefix" value={f.prefix} placeholder="e.g. orders-" onChange={(prefix) => onChange({ prefix })} />
      <TextFilter label="Name contains" value={f.contains} placeholder="any part of the ID" onChange={(contains) => onChange({ contains })} />
      <Choice label="State" value={f.status} options={[["any", "open or closed"], ["open", "open"], ["closed", "closed"]]} onChange={(status) => onChange({ status })} />
      <Choice label="Producers" value={f.producers} options={[["any", "any"], ["with", "with producers"], ["without", "without"]]} onChange={(producers) => onChange({ producers })} />
      <Choice label="Stream-Seq" value={f.seq} options={[["any", "any"], ["set", "has a value"], ["unset", "none stored"]]} onChange={(seq) => onChange({ seq })} />
    </div>
  );
}

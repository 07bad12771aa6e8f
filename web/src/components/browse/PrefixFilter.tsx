// Prefix filter bound to the URL (?prefix=), so a filtered view can be linked and reloaded.
// Typing updates the URL after a short pause and resets pagination.
import { useEffect, useRef, useState } from "preact/hooks";
import { setQuery } from "../../state/router";

export function PrefixFilter({ value, label, placeholder }: { value: string; label: string; placeholder: string }) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => setText(value), [value]);
  const onInput = (v: string) => {
    setText(v);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setQuery({ prefix: v, after: undefined }), 250);
  };
  return (
    <label class="field" style={{ width: "280px" }}>
      <span>{label}</span>
      <input
        type="search"
        value={text}
        placeholder={placeholder}
        spellcheck={false}
        onInput={(e) => onInput(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            clearTimeout(timer.current);
            setQuery({ prefix: text, after: undefined });
          }
        }}
      />
    </label>
  );
}

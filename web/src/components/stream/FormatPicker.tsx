import type { ContentKind } from "../../api/contentKind";
import type { RenderFormat } from "./MessageRow";

export const defaultFormat = (k: ContentKind): RenderFormat => (k === "json" ? "json" : k === "text" ? "text" : "hex");

export function FormatPicker({ value, onChange }: { value: RenderFormat; onChange: (f: RenderFormat) => void }) {
  return (
    <div class="row" role="group" aria-label="Render as">
      {(["json", "text", "hex"] as const).map((f) => (
        <button key={f} type="button" class="small" aria-pressed={value === f} onClick={() => onChange(f)}>
          {f === "json" ? "JSON" : f === "text" ? "Text" : "Hex"}
        </button>
      ))}
    </div>
  );
}

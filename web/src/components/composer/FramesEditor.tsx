// The frames of an append-batch, edited as a list: each frame is one append (on a JSON stream one
// JSON text, an array committing its elements together). The console does the length framing.
import { frameSize, MAX_FRAMES } from "../../api/frames";

function jsonProblem(frame: string): string | null {
  if (frame === "") return "empty: the server refuses the whole batch (400 EMPTY_APPEND)";
  try {
    const v = JSON.parse(frame) as unknown;
    return Array.isArray(v) && v.length === 0 ? "[]: the server refuses the whole batch (400 EMPTY_JSON_ARRAY)" : null;
  } catch {
    return "not JSON: the server refuses the whole batch (400 INVALID_JSON)";
  }
}

export function FramesEditor({ frames, json, onChange }: { frames: string[]; json: boolean; onChange: (frames: string[]) => void }) {
  const set = (i: number, v: string) => onChange(frames.map((f, j) => (j === i ? v : f)));
  const total = frames.reduce((n, f) => n + 4 + frameSize(f), 0);
  return (
    <fieldset class="plain-fieldset frames" aria-label="Frames">
      <legend>
        Frames: {frames.length} of at most {MAX_FRAMES} · {total.toLocaleString("en-US")} bytes framed
      </legend>
      <ol class="frame-list">
        {frames.map((f, i) => {
          const problem = json ? jsonProblem(f) : f === "" ? "empty: the server refuses the whole batch (400 EMPTY_APPEND)" : null;
          return (
            <li key={i} class="frame" data-frame={i + 1}>
              <span class="frame-n mono">{i + 1}</span>
              <div class="stack grow" style={{ gap: "2px" }}>
                <textarea class="mono" rows={1} aria-label={`Frame ${i + 1}`} value={f} onInput={(e) => set(i, e.currentTarget.value)} spellcheck={false} />
                <span class={`small-line ${problem ? "warn-text" : "muted"}`}>
                  {frameSize(f).toLocaleString("en-US")} bytes{problem ? ` · ${problem}` : ""}
                </span>
              </div>
              <button type="button" class="small" aria-label={`Remove frame ${i + 1}`} disabled={frames.length === 1} onClick={() => onChange(frames.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          );
        })}
      </ol>
      <div class="row">
        <button type="button" class="small" disabled={frames.length >= MAX_FRAMES} onClick={() => onChange([...frames, json ? '{"n":1}' : "text"])}>
          Add frame
        </button>
        <span class="muted small-line">Each frame is its own append, decided after the ones before it: one may fail (a closed stream) while the others apply.</span>
      </div>
    </fieldset>
  );
}

// Stream-Seq value with the zero-pad helper and a live judgement of the value against the
// rules of Ursula v0.9.0, Conditional Writes (fixed width, printable ASCII, 256 bytes).
import { useState } from "preact/hooks";
import { byteLength, judgeSeq, padSeq, SEQ_WIDTH } from "../../api/streamSeq";

export function SeqField({ value, enabled, onChange }: { value: string; enabled: boolean; onChange: (v: string) => void }) {
  const [count, setCount] = useState("0");
  const verdict = judgeSeq(value);
  const message =
    verdict.kind === "ignored"
      ? { tone: "bad", text: `Ignored by the server: non-printable character at ${verdict.positions.join(", ")}. Not checked, not stored.` }
      : verdict.kind === "too-long"
        ? { tone: "bad", text: `${verdict.bytes} bytes: over the 256-byte cap (400).` }
        : verdict.kind === "not-fixed-width"
          ? { tone: "warn", text: `${verdict.width} digits: compared bytewise, so "10" < "9". Pad to ${SEQ_WIDTH}.` }
          : { tone: "muted", text: `${byteLength(value)} bytes, printable ASCII.` };
  return (
    <div class="stack" style={{ gap: "4px" }}>
      <div class="row">
        <input
          class="mono grow"
          aria-label="Stream-Seq value"
          value={value}
          disabled={!enabled}
          onInput={(e) => onChange(e.currentTarget.value)}
          spellcheck={false}
          style={{ minWidth: "220px" }}
        />
        <span class="row" style={{ gap: "4px" }}>
          <label class="sr-only" for="seq-count">
            Count to pad
          </label>
          <input id="seq-count" type="number" min="0" value={count} disabled={!enabled} onInput={(e) => setCount(e.currentTarget.value)} style={{ width: "78px" }} />
          <button type="button" class="small" disabled={!enabled || !/^\d+$/.test(count)} onClick={() => onChange(padSeq(BigInt(count)))} title={`Zero-pad to ${SEQ_WIDTH} digits`}>
            Pad to {SEQ_WIDTH}
          </button>
        </span>
      </div>
      {enabled && (
        <div class={message.tone === "muted" ? "muted" : message.tone === "bad" ? "error-text" : "warn-text"} style={{ fontSize: "12px" }} data-testid="seq-judgement">
          {message.text}
        </div>
      )}
    </div>
  );
}

// The other Stream-Seq rules with a live check of a value: printable ASCII only (anything
// else makes the server ignore the header), at most 256 bytes.
import { useState } from "preact/hooks";
import { byteLength, nonPrintable, SEQ_MAX_BYTES } from "../../api/streamSeq";
import { CwRule } from "./CwRule";

export function AsciiExplainer() {
  const [v, setV] = useState("00000000000000000007é");
  const bad = nonPrintable(v);
  return (
    <div class="explainer">
      <h3>Printable ASCII only</h3>
      <p>Only printable ASCII counts (space to ~). A value with any other character is ignored: the append goes through unchecked, and nothing is stored.</p>
      <input class="mono" value={v} onInput={(e) => setV(e.currentTarget.value)} aria-label="Value to check" style={{ width: "100%" }} />
      <p style={{ marginTop: "6px" }} class={bad.length ? "error-text" : undefined}>
        {bad.length
          ? `Ignored: ${bad.length} character${bad.length > 1 ? "s" : ""} outside 0x20–0x7E (at ${bad.join(", ")}). The append would go through unchecked.`
          : "Checked: every character is printable ASCII."}
      </p>
      <CwRule ids={["seq-ascii"]} />
    </div>
  );
}

export function ByteCapExplainer() {
  const [v, setV] = useState("9".repeat(20));
  const n = byteLength(v);
  return (
    <div class="explainer">
      <h3>256-byte cap</h3>
      <p>At most 256 bytes: a longer value is refused with 400 before anything is compared.</p>
      <input class="mono" value={v} onInput={(e) => setV(e.currentTarget.value)} aria-label="Value to measure" style={{ width: "100%" }} />
      <div class="meter" aria-hidden="true">
        <div style={{ width: `${Math.min(100, (n / SEQ_MAX_BYTES) * 100)}%` }} class={n > SEQ_MAX_BYTES ? "over" : undefined} />
      </div>
      <p class={n > SEQ_MAX_BYTES ? "error-text" : "muted"}>
        {n} of {SEQ_MAX_BYTES} bytes{n > SEQ_MAX_BYTES ? ": 400 INVALID_STREAM_SEQ" : ""}
      </p>
      <CwRule ids={["seq-cap"]} />
    </div>
  );
}

export function DedupExplainer() {
  return (
    <div class="explainer">
      <h3>Dedup runs before Stream-Seq</h3>
      <p>
        The producer check comes first. Retrying an append already accepted with the same Producer-Id, Producer-Epoch and Producer-Seq gets “duplicate”,
        and nothing is written twice; its Stream-Seq is not compared, so a retry never gets a 409 for its own earlier success. A 409 uses up no Producer-Seq.
      </p>
      <ol class="mini-steps">
        <li>
          POST with <code>Producer-Seq: 4</code>, <code>Stream-Seq: …07</code> → <span class="chip ok">accepted</span>, stored Stream-Seq is now …07
        </li>
        <li>
          Response lost; the same request again → <span class="chip info">duplicate</span> 204, not 409: the producer check answers first
        </li>
      </ol>
      <CwRule ids={["seq-dedup"]} />
    </div>
  );
}

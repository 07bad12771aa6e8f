// Live example of the bytewise rule: type two values and see which one the server takes as
// greater, byte by byte, next to what a numeric comparison would say.
import { useState } from "preact/hooks";
import { compareBytewise, firstDifference, padSeq } from "../../api/streamSeq";
import { CwRule } from "./CwRule";

function Marked({ value, at }: { value: string; at: number }) {
  if (at < 0 || at >= value.length) return <code>"{value}"</code>;
  return (
    <code>
      "{value.slice(0, at)}
      <mark>{value[at]}</mark>
      {value.slice(at + 1)}"
    </code>
  );
}

export function BytewiseExplainer({ initial = ["10", "9"] }: { initial?: [string, string] }) {
  const [a, setA] = useState(initial[0]);
  const [b, setB] = useState(initial[1]);
  const cmp = compareBytewise(a, b);
  const at = firstDifference(a, b);
  const numeric = /^\d+$/.test(a) && /^\d+$/.test(b) ? Math.sign(Number(a) - Number(b)) : null;
  const sym = (c: number) => (c < 0 ? "<" : c > 0 ? ">" : "=");
  return (
    <div class="explainer" data-testid="bytewise-explainer">
      <h3>Bytewise, not numeric</h3>
      <p>
        The server compares the two values byte by byte from the left, as a dictionary orders words, so "10" comes before "9". Pad numbers with zeros to one
        width (the console uses 20 digits) and byte order is number order.
      </p>
      <div class="row">
        <label class="field">
          <span>value A</span>
          <input class="mono" value={a} onInput={(e) => setA(e.currentTarget.value)} style={{ width: "120px" }} />
        </label>
        <label class="field">
          <span>value B</span>
          <input class="mono" value={b} onInput={(e) => setB(e.currentTarget.value)} style={{ width: "120px" }} />
        </label>
      </div>
      <p style={{ marginTop: "6px" }} data-testid="bytewise-result">
        Server: <Marked value={a} at={at} /> <strong>{sym(cmp)}</strong> <Marked value={b} at={at} />
        {at >= 0 && at < Math.min(a.length, b.length) && (
          <span class="muted">
            {" "}
            (byte {at}: 0x{a.charCodeAt(at).toString(16)} vs 0x{b.charCodeAt(at).toString(16)})
          </span>
        )}
        {numeric !== null && numeric !== cmp && (
          <>
            <br />
            <span class="error-text">
              As numbers {a} {sym(numeric)} {b}: the server disagrees.
            </span>{" "}
            Padded: <code>{padSeq(BigInt(a))}</code> {sym(compareBytewise(padSeq(BigInt(a)), padSeq(BigInt(b))))} <code>{padSeq(BigInt(b))}</code>.
          </>
        )}
      </p>
      <CwRule ids={["seq-bytewise"]} />
    </div>
  );
}

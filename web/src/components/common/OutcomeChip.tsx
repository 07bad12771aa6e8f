import { OUTCOME_LABEL, outcomeTone, type Outcome } from "../../api/outcome";

export function OutcomeChip({ outcome }: { outcome: Outcome }) {
  return (
    <span class={`chip ${outcomeTone(outcome)}`} data-outcome={outcome}>
      {OUTCOME_LABEL[outcome]}
    </span>
  );
}

export function StatusCode({ status }: { status: number | undefined }) {
  const tone = status === undefined ? "bad" : status < 300 ? "ok" : status < 500 ? "warn" : "bad";
  return <span class={`chip ${tone} mono`}>{status ?? "—"}</span>;
}

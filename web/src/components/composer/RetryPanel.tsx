// "Retry from the 409": offered only when the 409 carries Stream-Last-Seq, the only 409 a
// Stream-Seq check gives. It reads on and retries with n + k, which is right when another
// writer committed first; when this browser's own accepted append stored the value, the commit
// may already be in the log, and the panel says so before anyone retries it twice.
import type { ComposerModel } from "../../state/composer";
import { retryEligible } from "../../state/retry";
import { classify } from "../../api/outcome";
import { getHeader } from "../../api/headers";
import { causeOf } from "../../api/cause";
import { ownHistory } from "../explainers/CauseView";

export function RetryPanel({ model }: { model: ComposerModel }) {
  const last = model.last.value;
  const state = model.retry.value;
  const usedPlan = model.retriedWith.value;
  if (usedPlan && last) {
    return (
      <div class="note info" data-testid="retry-result">
        Retried with Stream-Seq <code>{usedPlan.seq}</code>. {usedPlan.explanation}
      </div>
    );
  }
  if (!last || last.response?.status !== 409) return null;
  if (!retryEligible(last)) {
    const why: Record<string, string> = {
      "409-producer": "a Producer-Seq gap: send the expected Producer-Seq instead.",
      "409-closed": "the stream is closed; nothing more can be appended.",
      "409-content-type": "the Content-Type differs from the stream's.",
    };
    return (
      <div class="note warn" data-testid="no-retry">
        No retry from this 409: it carries no Stream-Last-Seq, so it is not a lost Stream-Seq race — {why[classify(last)] ?? "see the error code."} Skipping or retrying it
        blindly would be wrong.
      </div>
    );
  }
  const lastSeq = getHeader(last.response.headers, "stream-last-seq");
  const next = getHeader(last.response.headers, "stream-next-offset");
  const own = causeOf(last, ownHistory(last)).causes?.find((c) => c.likely)?.title === "Your own value is stale";
  return (
    <div class="note warn retry" data-testid="retry-panel">
      <div>
        <strong>Retry from this 409.</strong> The stream holds Stream-Last-Seq <code>{lastSeq}</code> and its tail is <code>{next}</code>. If another writer committed
        first, read on to the tail, count the k new events, check your commit against them, and retry with n + k.
      </div>
      {own && (
        <div class="error-text" data-testid="own-stale" style={{ marginTop: "6px" }}>
          This browser's own last accepted append here stored {lastSeq}: your commit may be in the log already. Look for it before retrying, or it is written twice.
        </div>
      )}
      {state.kind === "ready" && (
        <div style={{ marginTop: "6px" }}>
          {state.plan.explanation}
          {state.plan.warning && <div class="error-text">{state.plan.warning}</div>}
        </div>
      )}
      <div class="row" style={{ marginTop: "8px" }}>
        <button type="button" class="primary" disabled={state.kind === "planning" || model.sending.value} onClick={() => void model.retryFrom409()}>
          {state.kind === "planning" ? "Reading on…" : "Read on and retry"}
        </button>
        <button type="button" disabled={state.kind === "planning"} onClick={() => void model.retryFrom409(true)}>
          Prefill only
        </button>
      </div>
    </div>
  );
}

// The answer to a button's request, the way the composer shows one: status and outcome, what
// it means (CauseView), the request line, and copy-as-curl built from the request that was sent.
import type { Exchange } from "../../api/types";
import { classify, OUTCOME_LABEL } from "../../api/outcome";
import { links } from "../../state/router";
import { OutcomeChip, StatusCode } from "../common/OutcomeChip";
import { SnippetButtons } from "../common/ExchangeView";
import { CauseView } from "../explainers/CauseView";
import { Link } from "../common/Link";

export function ActionResult({ ex }: { ex: Exchange }) {
  const outcome = classify(ex);
  return (
    <div class="stack action-result" style={{ gap: "6px" }} data-testid="action-result" data-status={ex.response?.status ?? 0}>
      <div class="row" style={{ gap: "6px" }}>
        <StatusCode status={ex.response?.status} />
        {OUTCOME_LABEL[outcome] !== String(ex.response?.status) && <OutcomeChip outcome={outcome} />}
        {ex.errorCode && <code class="chip plain">{ex.errorCode}</code>}
        <span class="mono request-line">
          {ex.request.method} {ex.request.path}
        </span>
      </div>
      <CauseView ex={ex} />
      <div class="row">
        <SnippetButtons ex={ex} />
        <Link href={links.timeline()}>In the timeline →</Link>
      </div>
    </div>
  );
}

// The answer to the last request: status, outcome in Ursula's words, error code, timing,
// every header (the explaining ones highlighted), the body, and the snippets.
import type { Exchange } from "../../api/types";
import { classify, OUTCOME_LABEL, outcomeTone } from "../../api/outcome";
import { explainingHeaders } from "../../api/explain";
import { clock } from "../../format";
import { HeaderTable } from "../common/HeaderTable";
import { OutcomeChip } from "../common/OutcomeChip";
import { BodyView, SnippetButtons, Snippets } from "../common/ExchangeView";
import { CauseView } from "../explainers/CauseView";
import { BatchAcks, BootstrapParts, RedirectNote } from "./ResourceAnswers";

export function ResponseInspector({ ex }: { ex: Exchange | null }) {
  if (!ex) return <div class="empty">Send a request to see the server's answer here: status, every header, the error code and the timing.</div>;
  const res = ex.response;
  const outcome = classify(ex);
  return (
    <div class="stack" style={{ gap: "10px" }} data-testid="response-inspector">
      <div class="row" style={{ alignItems: "baseline" }}>
        <span class={`status-big ${outcomeTone(outcome) === "ok" || outcomeTone(outcome) === "info" ? "ok" : outcomeTone(outcome)}`} data-testid="response-status">
          {res ? res.status : "—"}
        </span>
        <span>{res?.statusText}</span>
        {OUTCOME_LABEL[outcome] !== String(res?.status) && <OutcomeChip outcome={outcome} />}
        {ex.errorCode && (
          <code class="chip plain" data-testid="error-code">
            {ex.errorCode}
          </code>
        )}
        <span class="grow" />
        <span class="muted num" data-testid="response-timing">
          {ex.durationMs} ms · {clock(ex.startedAt)}
        </span>
      </div>
      <div class="mono request-line">
        {ex.request.method} {ex.request.path}
      </div>
      {outcome !== "read" && <CauseView ex={ex} />}
      {ex.errorMessage && <div class="muted small-line">The server's message: {ex.errorMessage}</div>}
      {ex.bodyCut && <div class="note info">Body below is partial: {ex.bodyCut}. Use the stream page's live tail to follow it.</div>}
      <RedirectNote ex={ex} />
      <BatchAcks ex={ex} />
      <BootstrapParts ex={ex} />
      {res && <HeaderTable headers={res.headers} explain={explainingHeaders(ex)} label="Response headers" />}
      {res && ex.request.method !== "HEAD" && res.bodyText && <BodyView text={res.bodyText} label="Response body" />}
      <SnippetButtons ex={ex} />
      <Snippets ex={ex} />
    </div>
  );
}

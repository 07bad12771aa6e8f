// Send any protocol request to any stream or sub-resource, see the whole answer, retry a lost
// race. ?target=/bucket/stream (from a stream page) prefills the target, its content type and
// its current incarnation token; ?endpoint=bootstrap (or attrs, append-batch…) the sub-resource.
import { useEffect } from "preact/hooks";
import { introspection } from "../../api/introspection";
import { composer } from "../../state/app";
import { links } from "../../state/router";
import { Panel } from "../common/Panel";
import { Link } from "../common/Link";
import { ExplainerSheet } from "../explainers/ExplainerSheet";
import { RequestForm } from "./RequestForm";
import { ResponseInspector } from "./ResponseInspector";
import { RetryPanel } from "./RetryPanel";
import { IncarnationGone } from "./IncarnationGone";
import { splitTarget } from "./TargetStatus";
import { isEndpoint } from "../../state/endpoints";

export function ComposerPage({ query }: { query: URLSearchParams }) {
  const target = query.get("target");
  const endpoint = query.get("endpoint");
  useEffect(() => {
    if (isEndpoint(endpoint) && endpoint !== composer.form.value.endpoint) composer.setEndpoint(endpoint);
  }, [endpoint]);
  useEffect(() => {
    if (!target || target === composer.form.value.target) return;
    composer.update({ target });
    const parts = splitTarget(target);
    if (!parts) return;
    void introspection.stream(parts[0], parts[1]).then((r) => {
      if (r.ok && composer.form.value.target === target) {
        composer.update({ contentType: r.data.content_type });
        composer.knowToken(target, r.data.incarnation);
      }
    });
  }, [target]);
  const f = composer.form.value;
  const parts = splitTarget(f.target);
  return (
    <>
      <div class="page-head">
        <div>
          <h1>Request composer</h1>
          <div class="sub">Any protocol request, to a stream or one of its sub-resources, with each guard behind a toggle. The answer is shown in full, 409s and 412s included.</div>
        </div>
        <div class="actions">
          {parts && <Link href={links.stream(parts[0], parts[1])}>Open stream page →</Link>}
          <Link href={links.timeline()}>Timeline →</Link>
        </div>
      </div>
      <div class="split">
        <div class="stack">
          <Panel title="Request">
            <RequestForm model={composer} />
          </Panel>
          <details class="panel rules">
            <summary>Stream-Seq rules, with live examples</summary>
            <div class="body">
              <ExplainerSheet />
            </div>
          </details>
        </div>
        <div class="stack">
          <IncarnationGone model={composer} />
          <RetryPanel model={composer} />
          <Panel title="Response" id="response">
            <ResponseInspector ex={composer.last.value} />
          </Panel>
        </div>
      </div>
    </>
  );
}

// Every lab ends the same way: a verdict, judged from what the server answered, that says what
// happened, what the guard prevented, and the one thing to remember. What a lab has to show
// besides (a table of commits, a line per client) goes below the three.
import type { ComponentChildren } from "preact";
import type { LabLesson } from "../../state/labLesson";
import { Panel } from "../common/Panel";

export function LabVerdict({ verdict, pending, children }: { verdict: LabLesson | null; pending: string; children?: ComponentChildren }) {
  if (!verdict) {
    return (
      <Panel title="Verdict">
        <p class="muted">{pending}</p>
      </Panel>
    );
  }
  return (
    <Panel title="Verdict" id="verdict" class="lab-verdict">
      <div class={`note ${verdict.ok ? "ok" : "bad"}`} data-testid="verdict" data-ok={verdict.ok}>
        <strong class="verdict-mark">{verdict.ok ? "PASS" : "FAIL"}</strong>
        <dl class="verdict-parts">
          <dt>What happened</dt>
          <dd data-testid="verdict-happened">{verdict.happened}</dd>
          <dt>What the guard prevented</dt>
          <dd data-testid="verdict-prevented">{verdict.prevented}</dd>
          <dt>Remember</dt>
          <dd data-testid="verdict-remember">{verdict.remember}</dd>
        </dl>
      </div>
      {children}
    </Panel>
  );
}

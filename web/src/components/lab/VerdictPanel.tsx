// The verdict: does every commit's Stream-Seq equal the number of events before it?
import type { Verdict } from "../../state/raceVerdict";
import { Panel } from "../common/Panel";

export function VerdictPanel({ verdict }: { verdict: Verdict | null }) {
  if (!verdict) {
    return (
      <Panel title="Verdict">
        <p class="muted">When every writer is done, the lab reads the whole log and checks each commit: its writer must have read every event before it, and its Stream-Seq must equal that number.</p>
      </Panel>
    );
  }
  return (
    <Panel title="Verdict" id="verdict">
      <div class={`note ${verdict.ok ? "ok" : "bad"}`} data-testid="verdict" data-ok={verdict.ok}>
        <strong>{verdict.ok ? "PASS" : "FAIL"}</strong> — {verdict.summary}
      </div>
      {verdict.commits.length > 0 && (
        <table style={{ marginTop: "8px" }} aria-label="Commits in log order">
          <thead>
            <tr>
              <th>#</th>
              <th>Writer</th>
              <th>Stream-Seq</th>
              <th style={{ textAlign: "right" }}>Events before</th>
              <th style={{ textAlign: "right" }}>Writer had read</th>
              <th style={{ textAlign: "right" }}>Size</th>
              <th>Check</th>
            </tr>
          </thead>
          <tbody>
            {verdict.commits.map((c, i) => (
              <tr key={i} class={c.ok ? undefined : "bad-row"}>
                <td class="num">{i + 1}</td>
                <td>{c.writer}</td>
                <td class="mono nowrap">{c.seq}</td>
                <td class="num" style={{ textAlign: "right" }}>
                  {c.before}
                </td>
                <td class="num" style={{ textAlign: "right" }}>
                  {c.read}
                </td>
                <td class="num" style={{ textAlign: "right" }}>
                  {c.size}
                </td>
                <td>{c.ok ? <span class="chip ok">✓ equal</span> : <span class="error-text">✗ {c.why}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

// The race lab's verdict: the three parts every lab ends with, then each commit in log order,
// checked: its Stream-Seq must equal the events before it, and its writer must have read them.
// On a phone the table becomes one card per commit (labels from data-label).
import type { Verdict } from "../../state/raceVerdict";
import type { LabLesson } from "../../state/labLesson";
import { LabVerdict } from "./LabVerdict";

export function VerdictPanel({ verdict, lesson }: { verdict: Verdict | null; lesson: LabLesson | null }) {
  return (
    <LabVerdict
      verdict={verdict && lesson}
      pending="When every writer is done, the lab reads the whole log and checks each commit: its writer must have read every event before it, and its Stream-Seq must equal that number."
    >
      {verdict && verdict.commits.length > 0 && (
        <table class="verdict-table" aria-label="Commits in log order">
          <thead>
            <tr>
              <th>#</th>
              <th>Writer</th>
              <th>Stream-Seq</th>
              <th class="num-col">Events before</th>
              <th class="num-col">Writer had read</th>
              <th class="num-col">Size</th>
              <th>Check</th>
            </tr>
          </thead>
          <tbody>
            {verdict.commits.map((c, i) => (
              <tr key={i} class={c.ok ? undefined : "bad-row"}>
                <td class="num" data-label="Commit">
                  {i + 1}
                </td>
                <td data-label="Writer">{c.writer}</td>
                <td class="mono nowrap" data-label="Stream-Seq">
                  {c.seq}
                </td>
                <td class="num num-col" data-label="Events before">
                  {c.before}
                </td>
                <td class="num num-col" data-label="Writer had read">
                  {c.read}
                </td>
                <td class="num num-col" data-label="Size">
                  {c.size}
                </td>
                <td data-label="Check">{c.ok ? <span class="chip ok">✓ equal</span> : <span class="error-text">✗ {c.why}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </LabVerdict>
  );
}

// Every header of a request or response, in order. Headers that explain the answer are
// highlighted with a one-line reason.
import type { HeaderList } from "../../api/types";
import { displayHeaderName } from "../../api/headers";
import type { Explanation } from "../../api/explain";

export function HeaderTable({ headers, explain = [], label }: { headers: HeaderList; explain?: Explanation[]; label: string }) {
  if (!headers.length) return <p class="muted">No headers.</p>;
  return (
    <table class="headers" aria-label={label}>
      <tbody>
        {headers.map(([k, v], i) => {
          const why = explain.find((e) => e.header === k.toLowerCase());
          return (
            <tr key={`${k}-${i}`} class={why ? "explains" : undefined} data-header={k.toLowerCase()}>
              <td>{displayHeaderName(k)}</td>
              <td>
                {v}
                {why && <span class="why">{why.why}</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

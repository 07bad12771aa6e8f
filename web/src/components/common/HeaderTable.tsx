// Every header of a request or response, in order, protocol headers first and generic HTTP
// ones (CORS, Date, …) after them in a quieter group — all shown, none hidden. Headers that
// explain the answer are highlighted with a one-line reason.
import type { HeaderList } from "../../api/types";
import { displayHeaderName } from "../../api/headers";
import type { Explanation } from "../../api/explain";

const PROTOCOL_EXTRA = new Set(["content-type", "location", "etag", "retry-after", "allow"]);

export function isProtocolHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith("stream-") || n.startsWith("producer-") || PROTOCOL_EXTRA.has(n);
}

function Rows({ headers, explain }: { headers: HeaderList; explain: Explanation[] }) {
  return (
    <>
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
    </>
  );
}

export function HeaderTable({ headers, explain = [], label }: { headers: HeaderList; explain?: Explanation[]; label: string }) {
  if (!headers.length) return <p class="muted">No headers.</p>;
  const protocol = headers.filter(([k]) => isProtocolHeader(k));
  const other = headers.filter(([k]) => !isProtocolHeader(k));
  return (
    <table class="headers" aria-label={label}>
      <tbody>
        <Rows headers={protocol} explain={explain} />
      </tbody>
      {other.length > 0 && (
        <tbody class="http-headers">
          {protocol.length > 0 && (
            <tr class="group">
              <td colSpan={2}>HTTP</td>
            </tr>
          )}
          <Rows headers={other} explain={explain} />
        </tbody>
      )}
    </table>
  );
}

// Idempotent-producer state: what the server will accept next from each Producer-Id, and when it
// will forget a producer that stays idle (it must then start again at seq 0). On a phone each
// producer is a card of labelled values (styles: .card-table).
import type { StreamDetail } from "../../api/introspection";
import { age, dateTime } from "../../format";

export function ProducersTable({ d }: { d: StreamDetail }) {
  if (!d.producers.length) return <div class="empty">No producer has written to this incarnation with Producer-Id headers.</div>;
  return (
    <table aria-label="Producers" class="card-table">
      <thead>
        <tr>
          <th>Producer-Id</th>
          <th style={{ textAlign: "right" }}>Epoch</th>
          <th style={{ textAlign: "right" }}>Last seq</th>
          <th>Next accepted</th>
          <th>Last write</th>
          <th>Forgotten if idle</th>
        </tr>
      </thead>
      <tbody>
        {d.producers.map((p) => (
          <tr key={p.producer_id} data-producer={p.producer_id}>
            <td class="mono" data-label="Producer-Id">
              {p.producer_id}
              {d.closed_by?.producer_id === p.producer_id && <span class="chip plain" style={{ marginLeft: "6px" }}>closed the stream</span>}
            </td>
            <td class="num mono" style={{ textAlign: "right" }} data-col="epoch" data-label="Epoch">
              {p.epoch}
            </td>
            <td class="num mono" style={{ textAlign: "right" }} data-col="last_seq" data-label="Last seq">
              {p.last_seq}
            </td>
            <td class="muted" data-label="Next accepted">
              seq {p.last_seq + 1} at epoch {p.epoch}, or seq 0 at a higher epoch
            </td>
            <td title={dateTime(p.updated_at_ms)} data-label="Last write">
              {age(p.updated_at_ms)}
            </td>
            <td title={dateTime(p.updated_at_ms + d.producer_limits.idle_ttl_ms)} data-col="forgotten" data-label="Forgotten if idle">
              {age(p.updated_at_ms + d.producer_limits.idle_ttl_ms)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

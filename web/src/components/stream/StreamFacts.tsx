// The stream's state as the server reports it, in three groups of equal weight (the guards,
// the data, the lifetime), so no row is left half empty at any width. Each value carries
// data-field so tests can compare it with what HEAD and the protocol headers say. The retained
// floor and the snapshot have their own panel (CompactionPanel.tsx). Labels link their terms to
// the glossary.
import type { ComponentChildren } from "preact";
import type { StreamDetail } from "../../api/introspection";
import { formatBytes, offsetPosition } from "../../api/offsets";
import { age, dateTime } from "../../format";
import { Padded } from "../browse/StreamTable";
import { Term } from "../learn/Term";

/** `token`: an offset or token that must stay on one line. */
export function Fact({ label, field, children, sub, token }: { label: ComponentChildren; field: string; children: ComponentChildren; sub?: ComponentChildren; token?: boolean }) {
  return (
    <div class="fact">
      <dt>{label}</dt>
      <dd>
        <span data-field={field} class={token ? "nowrap token" : undefined}>
          {children}
        </span>
        {sub && <span class="sub">{sub}</span>}
      </dd>
    </div>
  );
}

function lifetime(d: StreamDetail): { text: string; sub?: string } {
  if (d.ttl_seconds !== null) {
    return { text: `TTL ${d.ttl_seconds} s`, sub: d.expires_at_ms ? `sliding; expires ${age(d.expires_at_ms)} if untouched (${dateTime(d.expires_at_ms)})` : "sliding" };
  }
  if (d.expires_at) return { text: d.expires_at, sub: d.expires_at_ms ? `fixed; ${age(d.expires_at_ms)}` : "fixed" };
  return { text: "none", sub: "lives until deleted" };
}

function Group({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="fact-group" aria-label={title}>
      <h3>{title}</h3>
      <dl>{children}</dl>
    </section>
  );
}

export function StreamFacts({ d }: { d: StreamDetail }) {
  const life = lifetime(d);
  return (
    <div class="fact-groups">
      <Group title="Write guards">
        <Fact label={<>Last accepted <Term id="stream-seq" /></>} field="last_stream_seq" sub={d.last_stream_seq === null ? "none accepted yet: any value will be" : "the next must be bytewise greater"}>
          {d.last_stream_seq === null ? "none" : <Padded value={d.last_stream_seq} />}
        </Fact>
        <Fact label={<><Term id="incarnation">Incarnation</Term> (Stream-Incarnation)</>} field="incarnation" token sub={`created ${dateTime(d.created_at_ms)}`}>
          {d.incarnation}
        </Fact>
        <Fact
          label="State"
          field="closed"
          sub={d.closed && d.closed_by ? `closed by ${d.closed_by.producer_id} (epoch ${d.closed_by.epoch}, seq ${d.closed_by.seq})` : d.closed ? "appends answer 409 STREAM_CLOSED" : "accepting appends"}
        >
          {d.closed ? "closed" : "open"}
        </Fact>
      </Group>
      <Group title="Data">
        <Fact label="Content type" field="content_type">
          {d.content_type}
        </Fact>
        <Fact label={<><Term id="tail">Tail</Term> <Term id="offset" /> (Stream-Next-Offset)</>} field="next_offset" token sub={`${formatBytes(d.tail_offset)} · ${d.tail_offset.toLocaleString("en-US")} bytes`}>
          {d.next_offset}
        </Fact>
        <Fact label="Messages" field="message_count" sub={offsetPosition(d.retained_offset) ? "since the stream was created, trimmed ones included" : undefined}>
          {d.message_count.toLocaleString("en-US")}
        </Fact>
      </Group>
      <Group title="Lifetime">
        <Fact label={<Term id="lifetime">TTL / expiry</Term>} field="lifetime" sub={life.sub}>
          {life.text}
        </Fact>
        <Fact label="Last write" field="last_write" sub={d.last_write_at_ms ? dateTime(d.last_write_at_ms) : undefined}>
          {d.last_write_at_ms ? age(d.last_write_at_ms) : "never"}
        </Fact>
        <Fact label={<><Term id="fork">Forked</Term> from</>} field="fork" sub={d.fork ? `at ${d.fork.offset}` : "not a fork"}>
          {d.fork ? (d.fork.source ?? "a stream you cannot see") : "—"}
        </Fact>
      </Group>
    </div>
  );
}

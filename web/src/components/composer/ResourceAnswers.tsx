// Answers that need more than a body dump: an append-batch's acks beside the frames they answer,
// a bootstrap's multipart parts one by one, and a redirect the browser followed.
import type { Exchange } from "../../api/types";
import { parseAcks } from "../../api/frames";
import { partText, readBootstrap } from "../../api/bootstrap";
import { inlineJson } from "../../api/jsonPretty";
import { parsePath } from "../../api/paths";
import { StatusCode } from "../common/OutcomeChip";

export function BatchAcks({ ex }: { ex: Exchange }) {
  const frames = ex.request.frames;
  const res = ex.response;
  if (!frames || !res) return null;
  if (res.status === 204)
    return (
      <div class="note ok" data-testid="batch-acks" data-acks="none">
        204: every one of the {frames.length} frames was appended (Prefer: return=minimal asked for no acks).
      </div>
    );
  const acks = parseAcks(res.bodyText);
  if (!acks) return null;
  const failed = acks.filter((a) => a.status >= 300).length;
  return (
    <div class="stack" style={{ gap: "6px" }}>
      <div class={`note ${failed ? "warn" : "ok"}`}>
        {acks.length} acks for {frames.length} frames: {acks.length - failed} appended{failed ? `, ${failed} refused on their own (the others still applied)` : ""}.
      </div>
      {/* Focusable, so a keyboard can scroll it where a narrow panel cuts it (axe: scrollable-region-focusable). */}
      <div class="table-scroll" tabIndex={0} role="region" aria-label="Acks, scrolling sideways when narrow">
      <table aria-label="Acks per frame" data-testid="batch-acks" class="acks-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Frame</th>
            <th>Status</th>
            <th>Stream-Next-Offset</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {acks.map((a, i) => (
            <tr key={i} data-ack={i + 1} data-status={a.status}>
              <td class="num">{i + 1}</td>
              <td class="mono ack-frame" title={frames[i]}>
                {frames[i] !== undefined ? inlineJson(frames[i]!, 60) : "—"}
              </td>
              <td>
                <StatusCode status={a.status} />
              </td>
              <td class="mono nowrap" data-col="next-offset">
                {a.stream_next_offset ?? "—"}
              </td>
              <td>{a.error_code ? <code class="chip plain">{a.error_code}</code> : <span class="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </div>
  );
}

/** A bootstrap carries up to 8 MiB of messages: the first ones are shown part by part. */
const SHOWN_PARTS = 50;

export function BootstrapParts({ ex }: { ex: Exchange }) {
  if (parsePath(ex.request.path)?.sub !== "bootstrap" || ex.request.method !== "GET" || ex.response?.status !== 200) return null;
  const r = readBootstrap(ex);
  if (!r.ok) return <div class="note bad">Could not split the multipart answer: {r.message}</div>;
  const v = r.view;
  return (
    <div class="stack" style={{ gap: "6px" }} data-testid="bootstrap-parts">
      <div class="note info">
        {v.snapshot ? `The snapshot at ${v.snapshot.offset}` : "No snapshot (an empty first part)"}, then {v.messages.length} message{v.messages.length === 1 ? "" : "s"} after it.{" "}
        {v.upToDate ? "Up to date: this is the whole stream from the snapshot on." : `Not up to date: read on from Stream-Next-Offset ${v.nextOffset}.`}
      </div>
      <ol class="parts" aria-label="Bootstrap parts">
        <li data-part="snapshot">
          <div class="part-head">
            <strong>Part 1 · snapshot</strong>
            <span class="muted">
              <span class="mono">{v.snapshot ? v.snapshot.contentType : "application/octet-stream"}</span> · {(v.snapshot?.body.length ?? 0).toLocaleString("en-US")} bytes
            </span>
          </div>
          {v.snapshot ? <pre class="code part-body">{partText(v.snapshot.body)}</pre> : <span class="muted small-line part-none">empty: no snapshot, so the messages start at the floor</span>}
        </li>
        {v.messages.slice(0, SHOWN_PARTS).map((m, i) => (
          <li key={i} data-part="message">
            <div class="part-head">
              <strong>
                Part {i + 2} · message {i + 1}
              </strong>
              <span class="muted">
                <span class="mono">{m.contentType}</span> · {m.body.length.toLocaleString("en-US")} bytes
              </span>
            </div>
            <pre class="code part-body">{partText(m.body)}</pre>
          </li>
        ))}
      </ol>
      {v.messages.length > SHOWN_PARTS && <div class="muted small-line">…and {(v.messages.length - SHOWN_PARTS).toLocaleString("en-US")} more messages (the body below has them all).</div>}
      <div class="muted small-line">
        Boundary <code>{v.boundary}</code>: random, and drawn again if a payload holds it.
      </div>
    </div>
  );
}

export function RedirectNote({ ex }: { ex: Exchange }) {
  if (!ex.redirectedTo) return null;
  return (
    <div class="note info small-line" data-testid="redirect-note">
      The server answered <strong>307</strong> with <code>Location: {ex.redirectedTo}</code>, and the browser followed it: what is shown is that answer. A page cannot
      see a 307 itself; <code>curl -i</code> without <code>-L</code> shows it.
    </div>
  );
}

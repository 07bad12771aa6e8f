// The write guards, each behind a toggle so a request can carry exactly the headers you want:
// Stream-Seq, Producer-Id/Epoch/Seq, Stream-Incarnation, Stream-Closed, TTL or expiry,
// Stream-Snapshot-Match, Prefer: return=minimal. Only those that apply to the endpoint and
// method are shown (and sent).
import type { ComponentChildren } from "preact";
import { guardsFor, type ComposerForm } from "../../state/composer";
import { SeqField } from "./SeqField";
import { BytewiseExplainer } from "../explainers/BytewiseExplainer";
import { AsciiExplainer, ByteCapExplainer, DedupExplainer } from "../explainers/SeqRulesExplainer";

type Update = (patch: Partial<ComposerForm>) => void;

function Guard(props: {
  id: string;
  label: string;
  on: boolean;
  onToggle: (v: boolean) => void;
  hint?: ComponentChildren;
  children?: ComponentChildren;
  /** The rules behind this header, one click away from the field. */
  rules?: ComponentChildren;
}) {
  return (
    <div class={`guard ${props.on ? "on" : ""}`}>
      <label class="toggle-row guard-label">
        <input type="checkbox" id={props.id} checked={props.on} onChange={(e) => props.onToggle(e.currentTarget.checked)} />
        <span class="mono">{props.label}</span>
        {props.hint && <span class="muted guard-hint">{props.hint}</span>}
      </label>
      {props.children && <div class="guard-body">{props.children}</div>}
      {props.rules && (
        <details class="guard-rules">
          <summary>Rules</summary>
          <div class="guard-rules-body">{props.rules}</div>
        </details>
      )}
    </div>
  );
}

const BATCH_REFUSES = "on append-batch: 400 UNSUPPORTED_HEADER, nothing applied";

/** `tokenGone`: the kept token names a stream that was recreated since (it is still sent, on purpose). */
export function GuardFields({ f, update, tokenGone }: { f: ComposerForm; update: Update; tokenGone: boolean }) {
  const shown = new Set(guardsFor(f));
  const batch = f.endpoint === "append-batch";
  return (
    <div class="guards">
      {shown.has("seq") && (
      <Guard id="g-seq" label="Stream-Seq" on={f.seqOn} onToggle={(v) => update({ seqOn: v })} hint={batch ? BATCH_REFUSES : "compare-and-set: must be bytewise greater than the stored value"}
        rules={
          <>
            <BytewiseExplainer />
            <AsciiExplainer />
            <ByteCapExplainer />
          </>
        }
      >
        <SeqField value={f.seq} enabled={f.seqOn} onChange={(seq) => update({ seq })} />
      </Guard>
      )}
      {shown.has("producer") && (
      <Guard id="g-producer" label="Producer-Id / Epoch / Seq" on={f.producerOn} onToggle={(v) => update({ producerOn: v })} hint={batch ? BATCH_REFUSES : "exactly-once retries; checked before Stream-Seq"} rules={<DedupExplainer />}>
        <div class="row">
          <input class="mono" aria-label="Producer-Id" value={f.producerId} disabled={!f.producerOn} onInput={(e) => update({ producerId: e.currentTarget.value })} style={{ width: "150px" }} />
          <label class="toggle-row">
            <span class="muted">epoch</span>
            <input class="mono" aria-label="Producer-Epoch" value={f.producerEpoch} disabled={!f.producerOn} onInput={(e) => update({ producerEpoch: e.currentTarget.value })} style={{ width: "64px" }} />
          </label>
          <label class="toggle-row">
            <span class="muted">seq</span>
            <input class="mono" aria-label="Producer-Seq" value={f.producerSeq} disabled={!f.producerOn} onInput={(e) => update({ producerSeq: e.currentTarget.value })} style={{ width: "64px" }} />
          </label>
          <label class="toggle-row">
            <input type="checkbox" checked={f.autoIncrement} disabled={!f.producerOn} onChange={(e) => update({ autoIncrement: e.currentTarget.checked })} />
            <span class="muted">seq + 1 after each accept</span>
          </label>
        </div>
      </Guard>
      )}
      {shown.has("incarnation") && (
      <Guard id="g-inc" label="Stream-Incarnation" on={f.incarnationOn} onToggle={(v) => update({ incarnationOn: v })} hint="412 if the stream was recreated">
        <div class="row">
          <input class="mono grow" aria-label="Stream-Incarnation value" value={f.incarnation} disabled={!f.incarnationOn} onInput={(e) => update({ incarnation: e.currentTarget.value })} />
          {tokenGone ? (
            <span class="warn-text small-line" data-testid="token-gone">
              names the stream you knew, which is gone: still sent until you start over
            </span>
          ) : (
            f.incarnation && <span class="muted small-line">kept from the stream's answers</span>
          )}
        </div>
      </Guard>
      )}
      {shown.has("closed") && (
        <Guard id="g-closed" label="Stream-Closed: true" on={f.closedOn} onToggle={(v) => update({ closedOn: v })} hint={batch ? BATCH_REFUSES : "close the stream (with or without a final body)"} />
      )}
      {shown.has("snapshot-match") && (
        <Guard id="g-snapshot-match" label="Stream-Snapshot-Match" on={f.snapshotMatchOn} onToggle={(v) => update({ snapshotMatchOn: v })} hint="publish only if the visible snapshot has this digest (409 otherwise)">
          <div class="row">
            <input class="mono grow" aria-label="Stream-Snapshot-Match value" value={f.snapshotMatch} disabled={!f.snapshotMatchOn} onInput={(e) => update({ snapshotMatch: e.currentTarget.value })} spellcheck={false} />
          </div>
        </Guard>
      )}
      {shown.has("prefer-minimal") && (
        <Guard id="g-prefer" label="Prefer: return=minimal" on={f.preferMinimal} onToggle={(v) => update({ preferMinimal: v })} hint="204 without acks when every frame succeeds" />
      )}
      {shown.has("ttl") && (
      <Guard id="g-ttl" label={f.ttlMode === "ttl" ? "Stream-TTL" : "Stream-Expires-At"} on={f.ttlOn} onToggle={(v) => update({ ttlOn: v })} hint="PUT only: sliding TTL or a fixed expiry">
        <div class="row">
          <select aria-label="Lifetime header" value={f.ttlMode} disabled={!f.ttlOn} onChange={(e) => update({ ttlMode: e.currentTarget.value as "ttl" | "expires" })}>
            <option value="ttl">Stream-TTL (seconds)</option>
            <option value="expires">Stream-Expires-At (RFC 3339)</option>
          </select>
          {f.ttlMode === "ttl" ? (
            <input class="mono" aria-label="TTL seconds" value={f.ttl} disabled={!f.ttlOn} onInput={(e) => update({ ttl: e.currentTarget.value })} style={{ width: "100px" }} />
          ) : (
            <input class="mono grow" aria-label="Expires at" placeholder="2030-01-01T00:00:00Z" value={f.expiresAt} disabled={!f.ttlOn} onInput={(e) => update({ expiresAt: e.currentTarget.value })} />
          )}
        </div>
      </Guard>
      )}
    </div>
  );
}

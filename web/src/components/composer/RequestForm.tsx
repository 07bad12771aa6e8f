// Method, target and endpoint (the stream or one of its sub-resources), query, body or batch
// frames and content type, the guard toggles that apply, and a live preview of the exact request
// that Send will make.
import type { Method } from "../../api/types";
import { introspection } from "../../api/introspection";
import { requiredScope } from "../../api/paths";
import { auth } from "../../state/auth";
import { bodyKind, buildRequest, type ComposerModel } from "../../state/composer";
import { ENDPOINT_ORDER, ENDPOINTS, type Endpoint } from "../../state/endpoints";
import { RequestPreview } from "../common/RequestPreview";
import { NeedNote } from "../access/NeedNote";
import { GuardFields } from "./GuardFields";
import { TargetStatus, splitTarget } from "./TargetStatus";
import { FramesEditor } from "./FramesEditor";

/** Bring the answer into view only if it is not in view already (on a narrow screen it is below the form). */
function revealResponse(): void {
  const el = document.getElementById("response");
  if (!el) return;
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.top > innerHeight - 80) el.scrollIntoView({ block: "start" });
}

const TYPES = ["application/json", "text/plain", "application/octet-stream", "application/json; charset=utf-8"];

/** Fills {offset} with the target's tail or its snapshot's offset, as the server reports them now. */
async function fillOffset(model: ComposerModel, which: "tail" | "snapshot" | "floor"): Promise<void> {
  const parts = splitTarget(model.form.value.target);
  if (!parts) return;
  const r = await introspection.stream(parts[0], parts[1]);
  if (!r.ok) return;
  const offset = which === "tail" ? r.data.next_offset : which === "floor" ? r.data.retained_offset : r.data.snapshot?.offset;
  if (offset) model.update({ offset });
}

export function RequestForm({ model }: { model: ComposerModel }) {
  const f = model.form.value;
  const update = (p: Parameters<ComposerModel["update"]>[0]) => model.update(p);
  const req = buildRequest(f);
  const spec = ENDPOINTS[f.endpoint];
  const kind = bodyKind(f);
  const access = requiredScope(req.method, req.path);
  const need = auth.need(access.scope, access.bucket);
  return (
    <form
      class="stack"
      style={{ gap: "10px" }}
      aria-label="Request"
      onSubmit={(e) => {
        e.preventDefault();
        void model.send().then(revealResponse);
      }}
    >
      <div class="row request-target-row">
        <select aria-label="Method" value={f.method} onChange={(e) => update({ method: e.currentTarget.value as Method })} class="mono" style={{ fontWeight: 700 }}>
          {spec.methods.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <input class="mono grow" aria-label="Target path" value={f.target} placeholder="/bucket/stream" onInput={(e) => update({ target: e.currentTarget.value })} spellcheck={false} />
        <select aria-label="Endpoint" value={f.endpoint} onChange={(e) => model.setEndpoint(e.currentTarget.value as Endpoint)} class="mono">
          {ENDPOINT_ORDER.map((id) => (
            <option key={id} value={id}>
              {ENDPOINTS[id].label}
            </option>
          ))}
        </select>
        <button type="submit" class="primary" disabled={model.sending.value}>
          {model.sending.value ? "Sending…" : "Send"}
        </button>
      </div>
      <TargetStatus model={model} />
      {f.endpoint !== "stream" && (
        <div class="muted small-line" data-testid="endpoint-hint">
          {spec.hint}
        </div>
      )}
      {spec.offset && (
        <div class="row" style={{ alignItems: "flex-end" }}>
          <label class="field grow">
            <span>{"{offset}"}</span>
            <input class="mono" aria-label="Offset segment" value={f.offset} onInput={(e) => update({ offset: e.currentTarget.value })} placeholder="0000000000000000_0000000000000000" spellcheck={false} />
          </label>
          <button type="button" class="small" onClick={() => void fillOffset(model, "tail")}>
            the tail
          </button>
          <button type="button" class="small" onClick={() => void fillOffset(model, "snapshot")}>
            the snapshot
          </button>
          <button type="button" class="small" onClick={() => void fillOffset(model, "floor")}>
            the floor
          </button>
        </div>
      )}
      {f.method === "GET" && f.endpoint === "stream" && (
        <label class="field">
          <span>Query</span>
          <input class="mono" value={f.query} onInput={(e) => update({ query: e.currentTarget.value })} placeholder="offset=-1&max_bytes=1024&consistency=leader" spellcheck={false} />
        </label>
      )}
      {kind !== "none" && (
        <div class="row">
          <label class="toggle-row">
            <input type="checkbox" checked={f.sendContentType} onChange={(e) => update({ sendContentType: e.currentTarget.checked })} />
            <span class="mono">Content-Type</span>
          </label>
          <input class="mono grow" list="content-types" aria-label="Content-Type value" value={f.contentType} disabled={!f.sendContentType} onInput={(e) => update({ contentType: e.currentTarget.value })} />
          <datalist id="content-types">
            {TYPES.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </div>
      )}
      {kind === "text" && (
        <label class="field">
          <span>
            Body{" "}
            {f.endpoint === "attrs"
              ? "(a JSON object: title, metadata)"
              : f.endpoint === "snapshot-at"
                ? "(the snapshot: your state up to {offset})"
                : f.method === "PUT"
                  ? "(optional initial content)"
                  : "(a JSON array commits its elements together)"}
          </span>
          <textarea rows={4} value={f.body} onInput={(e) => update({ body: e.currentTarget.value })} spellcheck={false} aria-label="Body" />
        </label>
      )}
      {kind === "frames" && <FramesEditor frames={f.frames} json={/json/i.test(f.contentType)} onChange={(frames) => update({ frames })} />}
      <GuardFields f={f} update={update} tokenGone={model.recreated.value !== null} />
      <details class="extra">
        <summary>Other headers</summary>
        <textarea rows={2} placeholder="Name: value, one per line" value={f.extraHeaders} onInput={(e) => update({ extraHeaders: e.currentTarget.value })} aria-label="Other headers" />
      </details>
      <div>
        <div class="muted" style={{ fontSize: "12px", marginBottom: "4px" }}>
          Next request (what Send will send)
        </div>
        <RequestPreview req={req} label="Request headers to send" testId="request-line" />
        {req.frames && (
          <div class="muted small-line" data-testid="batch-size">
            Body: {req.frames.length} frame{req.frames.length === 1 ? "" : "s"}, each a 4-byte big-endian length and its bytes.
          </div>
        )}
        <NeedNote items={[{ what: "This request", need: need && { ...need, text: `${need.text}; the server will refuse it (sending it shows how)` } }]} />
      </div>
    </form>
  );
}

// Method, target, query or body and content type, the guard toggles, and a live preview of
// the exact request that Send will make.
import type { Method } from "../../api/types";
import { buildRequest, hasBody, type ComposerModel } from "../../state/composer";
import { HeaderTable } from "../common/HeaderTable";
import { GuardFields } from "./GuardFields";
import { TargetStatus } from "./TargetStatus";

/** Bring the answer into view only if it is not in view already (on a narrow screen it is below the form). */
function revealResponse(): void {
  const el = document.getElementById("response");
  if (!el) return;
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.top > innerHeight - 80) el.scrollIntoView({ block: "start" });
}

const METHODS: Method[] = ["POST", "PUT", "GET", "HEAD", "DELETE"];
const TYPES = ["application/json", "text/plain", "application/octet-stream", "application/json; charset=utf-8"];

export function RequestForm({ model }: { model: ComposerModel }) {
  const f = model.form.value;
  const update = (p: Parameters<ComposerModel["update"]>[0]) => model.update(p);
  const req = buildRequest(f);
  const lastToken = model.last.value?.response?.headers.find(([k]) => k === "stream-incarnation")?.[1];
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
      <div class="row" style={{ flexWrap: "nowrap" }}>
        <select aria-label="Method" value={f.method} onChange={(e) => update({ method: e.currentTarget.value as Method })} class="mono" style={{ fontWeight: 700 }}>
          {METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <input class="mono grow" aria-label="Target path" value={f.target} placeholder="/bucket/stream" onInput={(e) => update({ target: e.currentTarget.value })} spellcheck={false} />
        <button type="submit" class="primary" disabled={model.sending.value}>
          {model.sending.value ? "Sending…" : "Send"}
        </button>
      </div>
      <TargetStatus model={model} />
      {f.method === "GET" && (
        <label class="field">
          <span>Query</span>
          <input class="mono" value={f.query} onInput={(e) => update({ query: e.currentTarget.value })} placeholder="offset=-1&max_bytes=1024&consistency=leader" spellcheck={false} />
        </label>
      )}
      {hasBody(f.method) && (
        <>
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
          <label class="field">
            <span>Body {f.method === "PUT" ? "(optional initial content)" : "(a JSON array commits its elements together)"}</span>
            <textarea rows={4} value={f.body} onInput={(e) => update({ body: e.currentTarget.value })} spellcheck={false} aria-label="Body" />
          </label>
        </>
      )}
      <GuardFields f={f} update={update} lastToken={lastToken} />
      <details class="extra">
        <summary>Other headers</summary>
        <textarea rows={2} placeholder="Name: value, one per line" value={f.extraHeaders} onInput={(e) => update({ extraHeaders: e.currentTarget.value })} aria-label="Other headers" />
      </details>
      <div class="preview">
        <div class="muted" style={{ fontSize: "12px", marginBottom: "4px" }}>
          Next request (what Send will send)
        </div>
        <div class="mono request-line" data-testid="request-line">
          {req.method} {req.path}
        </div>
        <HeaderTable headers={req.headers} label="Request headers to send" />
      </div>
    </form>
  );
}

// A full exchange: the request as sent and the response as received, with copy-as-curl and
// copy-as-fetch built from the same request object. Used by the inspector and the timeline.
import type { Exchange } from "../../api/types";
import { toCurl, toFetch } from "../../api/snippets";
import { explainingHeaders } from "../../api/explain";
import { prettyJson } from "../../api/jsonPretty";
import { HeaderTable } from "./HeaderTable";
import { CopyButton } from "./CopyButton";

export function SnippetButtons({ ex }: { ex: Exchange }) {
  return (
    <div class="row">
      <CopyButton label="Copy as curl" text={() => toCurl(ex.request, ex.origin, { bearer: ex.bearer })} />
      <CopyButton label="Copy as fetch" text={() => toFetch(ex.request, ex.origin, { bearer: ex.bearer })} />
    </div>
  );
}

export function Snippets({ ex }: { ex: Exchange }) {
  return (
    <details class="snippets">
      <summary>curl / fetch</summary>
      <pre class="code" data-testid="curl-snippet">
        {toCurl(ex.request, ex.origin, { bearer: ex.bearer })}
      </pre>
      <pre class="code" data-testid="fetch-snippet" style={{ marginTop: "6px" }}>
        {toFetch(ex.request, ex.origin, { bearer: ex.bearer })}
      </pre>
    </details>
  );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function BodyView({ text, label }: { text: string; label: string }) {
  if (!text) return <p class="muted">{label}: empty</p>;
  let shown = text;
  if (/^\s*[[{]/.test(text) && text.length < 200_000 && isJson(text)) shown = prettyJson(text);
  return (
    <pre class="code" aria-label={label}>
      {shown}
    </pre>
  );
}

/** A batch's frames as sent, one per line (the body is their length-framed bytes). */
function FramesView({ frames }: { frames: string[] }) {
  return (
    <ol class="code frames-view" aria-label="Request frames">
      {frames.map((f, i) => (
        <li key={i} class="mono">
          {f}
        </li>
      ))}
    </ol>
  );
}

export function ExchangeView({ ex }: { ex: Exchange }) {
  const res = ex.response;
  return (
    <div class="exchange grid-2">
      <div class="stack" style={{ gap: "6px" }}>
        <h3>Request</h3>
        <div class="mono request-line">
          {ex.request.method} {ex.origin}
          {ex.request.path}
        </div>
        <HeaderTable headers={ex.request.headers} label="Request headers" />
        {ex.request.body !== undefined && <BodyView text={ex.request.body} label="Request body" />}
        {ex.request.frames && <FramesView frames={ex.request.frames} />}
        <SnippetButtons ex={ex} />
      </div>
      <div class="stack" style={{ gap: "6px" }}>
        <h3>
          Response {res ? `${res.status} ${res.statusText}` : ""} <span class="muted num">· {ex.durationMs} ms</span>
        </h3>
        {ex.networkError && <div class="note bad">No response: {ex.networkError}</div>}
        {res && <HeaderTable headers={res.headers} explain={explainingHeaders(ex)} label="Response headers" />}
        {res && ex.request.method !== "HEAD" && <BodyView text={res.bodyText} label="Response body" />}
      </div>
    </div>
  );
}

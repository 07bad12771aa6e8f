// The selected message in full: where it is, when it was appended, and its body rendered as
// JSON (from the stored text: numbers like 1e400 stay as they are), text or hex.
import type { Message } from "../../state/messageWindow";
import { prettyJson } from "../../api/jsonPretty";
import { formatBytes, offsetToken } from "../../api/offsets";
import { dateTime } from "../../format";
import { CopyButton } from "../common/CopyButton";
import { Link } from "../common/Link";
import { HexDump } from "./HexDump";
import type { RenderFormat } from "./MessageRow";

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

export function MessageDetail({ m, format, linkFor }: { m: Message | undefined; format: RenderFormat; linkFor: (token: string) => string }) {
  if (!m) return <aside class="msg-detail empty" aria-label="Message detail">Select a message to see it whole.</aside>;
  const text = m.text ?? utf8d.decode(m.bytes ?? new Uint8Array());
  return (
    <aside class="msg-detail" aria-label="Message detail" data-testid="message-detail">
      <header class="row">
        <strong class="mono">@{m.offset.toLocaleString("en-US")}</strong>
        <span class="muted num">{formatBytes(m.size)}</span>
        <span class="grow" />
        <CopyButton label="Copy" text={() => text} />
      </header>
      <dl class="kv">
        <dt>offset</dt>
        <dd>{offsetToken(m.offset)}</dd>
        <dt>next</dt>
        <dd>{offsetToken(m.offset + m.size)}</dd>
        <dt>appended</dt>
        <dd data-testid="appended-at">{m.atMs === null ? "inherited from the fork's source" : dateTime(m.atMs).replace("Z", `.${String(m.atMs % 1000).padStart(3, "0")}Z`)}</dd>
      </dl>
      <div class="msg-detail-body">
        {format === "hex" ? <HexDump bytes={m.bytes ?? utf8.encode(text)} start={m.offset} /> : <pre class="msg-text">{format === "json" ? prettyJson(text) : text}</pre>}
      </div>
      <Link href={linkFor(offsetToken(m.offset))}>Read from here →</Link>
    </aside>
  );
}

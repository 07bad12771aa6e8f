// One message (or one run of bytes) rendered in the chosen format: JSON pretty-printed from
// its exact text, plain text, or hex.
import { useMemo } from "preact/hooks";
import { prettyJson } from "../../api/jsonPretty";
import { offsetToken } from "../../api/offsets";
import { HexDump } from "./HexDump";

export type RenderFormat = "json" | "text" | "hex";

export interface RowData {
  position?: number;
  text?: string;
  bytes?: Uint8Array;
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

export function MessageRow({ row, format, meta }: { row: RowData; format: RenderFormat; meta?: string }) {
  const body = useMemo(() => {
    if (format === "hex") return <HexDump bytes={row.bytes ?? utf8.encode(row.text ?? "")} start={row.position ?? 0} />;
    const text = row.text ?? utf8d.decode(row.bytes ?? new Uint8Array());
    return <pre class="msg-text">{format === "json" ? prettyJson(text) : text}</pre>;
  }, [row, format]);
  return (
    <li class="msg-row">
      <div class="msg-meta">
        <span class="mono" title={row.position !== undefined ? offsetToken(row.position) : "position unknown"}>
          {row.position !== undefined ? `@${row.position.toLocaleString("en-US")}` : "@?"}
        </span>
        {meta && <span class="muted">{meta}</span>}
      </div>
      <div class="msg-body">{body}</div>
    </li>
  );
}

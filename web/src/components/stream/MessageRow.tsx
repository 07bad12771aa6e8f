// One message (or one run of bytes) rendered in the chosen format: JSON pretty-printed from
// its exact text, plain text, or hex.
import { useMemo } from "preact/hooks";
import { prettyJson } from "../../api/jsonPretty";
import { offsetToken } from "../../api/offsets";
import { HexDump } from "./HexDump";
import { Link } from "../common/Link";

export type RenderFormat = "json" | "text" | "hex";

export interface RowData {
  position?: number;
  text?: string;
  bytes?: Uint8Array;
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

/** `linkFor` turns a position into a link that opens the viewer there (a linkable view). */
export function MessageRow({ row, format, meta, linkFor }: { row: RowData; format: RenderFormat; meta?: string; linkFor?: (token: string) => string }) {
  const body = useMemo(() => {
    if (format === "hex") return <HexDump bytes={row.bytes ?? utf8.encode(row.text ?? "")} start={row.position ?? 0} />;
    const text = row.text ?? utf8d.decode(row.bytes ?? new Uint8Array());
    return <pre class="msg-text">{format === "json" ? prettyJson(text) : text}</pre>;
  }, [row, format]);
  return (
    <li class="msg-row">
      <div class="msg-meta">
        {row.position !== undefined && linkFor ? (
          <Link class="mono" href={linkFor(offsetToken(row.position))} title={`Read from ${offsetToken(row.position)}`}>
            @{row.position.toLocaleString("en-US")}
          </Link>
        ) : (
          <span class="mono" title={row.position !== undefined ? offsetToken(row.position) : "position unknown"}>
            {row.position !== undefined ? `@${row.position.toLocaleString("en-US")}` : "@?"}
          </span>
        )}
        {meta && <span class="muted">{meta}</span>}
      </div>
      <div class="msg-body">{body}</div>
    </li>
  );
}

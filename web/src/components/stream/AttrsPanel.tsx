// The stream's attributes (a title and a metadata object), read with the rest of its state and
// so fresh after every write; edited in a dialog.
import type { StreamDetail } from "../../api/introspection";
import { prettyJson } from "../../api/jsonPretty";
import { auth } from "../../state/auth";
import { NeedNote } from "../access/NeedNote";

export function AttrsPanel({ d, onEdit }: { d: StreamDetail; onEdit: () => void }) {
  const title = typeof d.attrs?.title === "string" ? d.attrs.title : null;
  const metadata = d.attrs?.metadata !== undefined ? JSON.stringify(d.attrs.metadata) : null;
  const need = auth.need("write", d.bucket_id);
  return (
    <section class="panel" aria-labelledby="attrs-title" id="attrs">
      <header>
        <h2 id="attrs-title">Attributes</h2>
        <div class="actions">
          <button type="button" onClick={onEdit}>
            {need ? "View attributes…" : "Edit attributes…"}
          </button>
        </div>
      </header>
      <div class="body stack" style={{ gap: "6px" }}>
        <dl class="kv">
          <dt>title</dt>
          <dd data-field="attrs_title">{title ?? <span class="muted">none</span>}</dd>
          <dt>metadata</dt>
          <dd>{metadata === null ? <span class="muted" data-field="attrs_metadata">none</span> : <pre class="code attrs-json" data-field="attrs_metadata" data-json={metadata}>{prettyJson(metadata)}</pre>}</dd>
        </dl>
        <NeedNote items={[{ what: "Editing attributes", need }]} />
      </div>
    </section>
  );
}

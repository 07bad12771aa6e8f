// Snapshot and retention: where the stream is readable from, the snapshot bootstrap hands out
// instead of the messages before it (offset, digest, type, size), and the actions that change
// them. The facts carry data-field, so tests compare them with HEAD's Stream-Snapshot-* and
// Stream-Retained-Offset headers.
import type { StreamDetail } from "../../api/introspection";
import { formatBytes, offsetPosition } from "../../api/offsets";
import { auth } from "../../state/auth";
import { links } from "../../state/router";
import { Link } from "../common/Link";
import { NeedNote } from "../access/NeedNote";
import { Fact } from "./StreamFacts";
import { Term } from "../learn/Term";

export function CompactionPanel({ d, onAction }: { d: StreamDetail; onAction: (kind: "snapshot" | "retention") => void }) {
  const retained = offsetPosition(d.retained_offset) ?? 0;
  const s = d.snapshot;
  const write = auth.need("write", d.bucket_id);
  const admin = auth.need("admin", d.bucket_id);
  const floorAtSnapshot = s !== null && s.offset === d.retained_offset;
  return (
    <section class="panel" aria-labelledby="compaction-title" id="compaction">
      <header>
        <h2 id="compaction-title">Snapshot and retention</h2>
        <div class="actions">
          <button type="button" disabled={!!write} onClick={() => onAction("snapshot")} aria-describedby={write ? "compaction-need" : undefined}>
            Publish snapshot…
          </button>
          <button type="button" class="danger" disabled={!!admin || s === null || floorAtSnapshot} onClick={() => onAction("retention")} aria-describedby={admin ? "compaction-need" : "retention-why"}>
            Advance retention…
          </button>
        </div>
      </header>
      <dl class="facts compaction-facts">
        <Fact
          label={
            <>
              <Term id="retention">Retained</Term> from (Stream-Retained-Offset)
            </>
          }
          field="retained_offset"
          token
          sub={retained > 0 ? `${formatBytes(retained)} trimmed: reads below answer 410, offset=-1 too` : "nothing trimmed: offset=-1 reads from byte 0"}
        >
          {d.retained_offset}
        </Fact>
        <Fact
          label={
            <>
              <Term id="snapshot">Snapshot</Term> offset (Stream-Snapshot-Offset)
            </>
          }
          field="snapshot_offset"
          token
          sub={s ? <><Term id="bootstrap" /> starts here, then the messages after it</> : <>none published: <Term id="bootstrap" /> sends every retained message</>}
        >
          {s ? s.offset : "none"}
        </Fact>
        <Fact label="Snapshot digest (BLAKE3)" field="snapshot_digest" sub="send it as Stream-Snapshot-Match to publish only over this one">
          {s ? s.digest : "—"}
        </Fact>
        <Fact label="Snapshot type · size" field="snapshot_type" sub={s ? <span data-field="snapshot_size">{`${s.size.toLocaleString("en-US")} bytes`}</span> : undefined}>
          {s ? s.content_type : "—"}
        </Fact>
      </dl>
      <div class="body compaction-foot">
        <span class="muted small-line" id="retention-why">
          {s === null
            ? "Retention can move only up to a snapshot: publish one first."
            : floorAtSnapshot
              ? "The floor is at the snapshot already: publish a newer snapshot to trim further."
              : "Retention can move the floor up to the snapshot's offset."}
        </span>
        <Link href={links.compose(d.path, "bootstrap")}>Bootstrap it in the composer →</Link>
      </div>
      <div class="body" style={{ paddingTop: 0 }}>
        <NeedNote
          id="compaction-need"
          items={[
            { what: "Publishing a snapshot", need: write },
            { what: "Advancing retention", need: admin },
          ]}
        />
      </div>
    </section>
  );
}

// What this server is: version, data path, durability, totals. Refreshed every few seconds.
import { useEffect, useMemo } from "preact/hooks";
import { introspection, type ServerInfo as Info } from "../../api/introspection";
import { Resource } from "../../state/resource";
import { count, duration } from "../../format";
import { onStreamChanged } from "../../state/transport";

export function ServerInfo() {
  const info = useMemo(() => new Resource<Info, null>((_q, s) => introspection.info(s)), []);
  useEffect(() => {
    void info.load(null);
    const t = setInterval(() => void info.reload(), 5000);
    // Counts change with this console's own creates and deletes: show them now, not in 5 s.
    const off = onStreamChanged(() => void info.reload());
    return () => {
      clearInterval(t);
      off();
      info.dispose();
    };
  }, [info]);
  const d = info.data.value;
  return (
    <section class="server-info" aria-label="Server">
      <strong>This server</strong>
      {info.error.value && <div class="error-text">{info.error.value.status === 401 ? "needs a token to say more" : `unreachable: ${info.error.value.message}`}</div>}
      {d && (
        <dl>
          <dt>version</dt>
          <dd>{d.version}</dd>
          <dt>streams</dt>
          <dd class="num">{count(d.streams)}</dd>
          <dt>buckets</dt>
          <dd class="num">{count(d.buckets)}</dd>
          <dt>sync</dt>
          <dd>{d.sync}</dd>
          {d.data_path !== null && (
            <>
              <dt>data</dt>
              <dd title={d.data_path}>{d.data_path}</dd>
            </>
          )}
          <dt>up</dt>
          <dd>{duration(Math.max(0, Math.round((Date.now() - d.started_at_ms) / 1000)))}</dd>
        </dl>
      )}
    </section>
  );
}

// The landing page heading: which server this is and how much it holds.
import { useEffect, useState } from "preact/hooks";
import { introspection, type ServerInfo } from "../../api/introspection";
import { count } from "../../format";

export function ServerSummary() {
  const [info, setInfo] = useState<ServerInfo | null>(null);
  useEffect(() => {
    void introspection.info().then((r) => r.ok && setInfo(r.data));
  }, []);
  return (
    <div>
      <h1>
        ursa {info && <span class="chip plain">{info.version}</span>}
      </h1>
      <div class="sub">
        {info
          ? `${count(info.streams)} stream${info.streams === 1 ? "" : "s"} in ${count(info.buckets)} bucket${info.buckets === 1 ? "" : "s"}${info.data_path === null ? "" : ` · ${info.data_path}`} · sync ${info.sync}`
          : "Durable Streams server"}
      </div>
    </div>
  );
}

// What a lab leaves on the server, said where the lab runs: its streams, in the labs bucket,
// with a day's Stream-TTL, deleted on a new run and when the visitor leaves.
import { LAB_BUCKET, LAB_TTL_SECONDS, type LabStreams } from "../../state/labStreams";
import { links } from "../../state/router";
import { Link } from "../common/Link";

export function LabStreamsNote({ streams }: { streams: LabStreams }) {
  const owned = [...streams.owned.value.keys()];
  return (
    <div class="muted small-line lab-streams" data-testid="lab-streams">
      This lab writes to the bucket <code>{LAB_BUCKET}</code>. Its streams carry <code>Stream-TTL: {LAB_TTL_SECONDS}</code> (a day) and are deleted when a new run starts and
      when you leave the lab.
      {owned.length > 0 && (
        <>
          {" "}
          This run:{" "}
          {owned.map((path, i) => {
            const [bucket, stream] = path.split("/").slice(1).map(decodeURIComponent) as [string, string];
            return (
              <span key={path}>
                {i > 0 && ", "}
                <Link href={links.stream(bucket, stream)} class="mono">
                  {path}
                </Link>
              </span>
            );
          })}
          .
        </>
      )}
    </div>
  );
}

// Appends per second over the last minute, sampled from the stream's message count.
import type { RatePoint } from "../../state/rate";
import { rate } from "../../format";
import { formatBytes } from "../../api/offsets";

const W = 300;
const H = 64;

export function Sparkline({ points }: { points: RatePoint[] }) {
  const last = points[points.length - 1];
  const peak = Math.max(1, ...points.map((p) => p.perSec));
  const n = 60;
  const xs = (i: number) => (W * (i + n - points.length)) / (n - 1);
  const ys = (v: number) => H - 3 - ((H - 6) * v) / peak;
  const line = points.map((p, i) => `${xs(i).toFixed(1)},${ys(p.perSec).toFixed(1)}`).join(" ");
  const area = points.length > 1 ? `${xs(0).toFixed(1)},${H} ${line} ${xs(points.length - 1).toFixed(1)},${H}` : "";
  return (
    <div class="sparkline">
      <div class="row" style={{ justifyContent: "space-between", alignItems: "baseline" }}>
        <span>
          <strong class="num" style={{ fontSize: "18px" }} data-testid="append-rate">
            {last ? rate(last.perSec) : "—"}
          </strong>{" "}
          <span class="muted">msg/s</span>
        </span>
        <span class="muted num">{last ? `${formatBytes(Math.round(last.bytesPerSec))}/s · peak ${rate(peak)}` : "sampling…"}</span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`Append rate over the last minute; now ${last ? rate(last.perSec) : 0} messages per second`}>
        <line x1="0" x2={W} y1={H - 0.5} y2={H - 0.5} class="axis" />
        {area && <polygon points={area} class="area" />}
        {points.length > 1 && <polyline points={line} class="line" />}
      </svg>
      <div class="row muted" style={{ justifyContent: "space-between", fontSize: "11px" }}>
        <span>−60 s</span>
        <span>now</span>
      </div>
    </div>
  );
}

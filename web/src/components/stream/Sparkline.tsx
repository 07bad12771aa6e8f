// Appends per second over the last minute, sampled from the stream's message count. The
// headline is the minute's average, so it agrees with the picture beside it; now and the peak
// are named with their unit and time.
import { summarizeRates, type RatePoint } from "../../state/rate";
import { rate } from "../../format";
import { formatBytes } from "../../api/offsets";

const W = 300;
const H = 64;

export function Sparkline({ points }: { points: RatePoint[] }) {
  const s = summarizeRates(points);
  const top = Math.max(1, s?.peak ?? 0);
  const n = 60;
  const xs = (i: number) => (W * (i + n - points.length)) / (n - 1);
  const ys = (v: number) => H - 3 - ((H - 6) * v) / top;
  const line = points.map((p, i) => `${xs(i).toFixed(1)},${ys(p.perSec).toFixed(1)}`).join(" ");
  const area = points.length > 1 ? `${xs(0).toFixed(1)},${H} ${line} ${xs(points.length - 1).toFixed(1)},${H}` : "";
  return (
    <div class="sparkline">
      <div class="row" style={{ justifyContent: "space-between", alignItems: "baseline" }}>
        <span>
          <strong class="num" style={{ fontSize: "18px" }} data-testid="append-rate">
            {s ? rate(s.average) : "—"}
          </strong>{" "}
          <span class="muted">msg/s {s ? `average over ${s.spanS} s` : ""}</span>
        </span>
        <span class="muted num">{s ? `${formatBytes(Math.round(s.bytesPerSec))}/s` : "sampling…"}</span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`Append rate over the last minute: ${s ? `average ${rate(s.average)}, peak ${rate(s.peak)}, now ${rate(s.now)} messages per second` : "no samples yet"}`}>
        <line x1="0" x2={W} y1={H - 0.5} y2={H - 0.5} class="axis" />
        {area && <polygon points={area} class="area" />}
        {points.length > 1 && <polyline points={line} class="line" />}
      </svg>
      <div class="row muted num" style={{ justifyContent: "space-between", fontSize: "11px" }}>
        <span>−60 s</span>
        <span data-testid="rate-detail">{s ? `now ${rate(s.now)} msg/s · peak ${rate(s.peak)} msg/s${s.peak > 0 ? `, ${s.peakAgoS} s ago` : ""}` : ""}</span>
        <span>now</span>
      </div>
    </div>
  );
}

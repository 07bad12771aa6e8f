// The stream's byte range drawn to scale: 0 at the left, the tail at the right, with the
// trimmed (retained-from) part, the snapshot bootstrap starts from, the bytes a fork inherited
// from its source, the offsets its own forks start at, the window the viewer shows, and where
// the live tail reader is. Tick labels
// are byte positions, so the proportions can be read off directly.
import { formatBytes } from "../../api/offsets";

export interface ForkMark {
  position: number;
  label: string;
}

interface Props {
  tail: number;
  retained: number;
  /** Where the visible snapshot stands (bootstrap hands it out instead of the bytes below). */
  snapshot?: number;
  window?: { from: number; to: number };
  reader?: number;
  /** This stream is a fork: the bytes below this position came from its source. */
  inherited?: number;
  /** Where this stream's forks start. */
  forks?: ForkMark[];
}

function niceStep(max: number): number {
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n < 1.5 ? 1 : n < 3.5 ? 2.5 : n < 7.5 ? 5 : 10) * mag;
}

export function OffsetBar({ tail, retained, snapshot, window, reader, inherited, forks = [] }: Props) {
  if (tail === 0) return <div class="offset-bar-empty muted">Empty stream: the tail is at byte 0.</div>;
  const pct = (n: number) => `${Math.min(100, Math.max(0, (n / tail) * 100))}%`;
  const step = niceStep(tail);
  const ticks: number[] = [];
  // Stop short of the tail so the last tick label never overlaps the tail label.
  for (let t = 0; t < tail * 0.8; t += step) ticks.push(t);
  const label = `Bytes 0 to ${tail}${retained ? `, trimmed below ${retained}` : ""}${snapshot !== undefined ? `, snapshot at ${snapshot}` : ""}${inherited ? `, inherited from the source below ${inherited}` : ""}${forks.length ? `, forks at ${forks.map((f) => f.position).join(", ")}` : ""}${window ? `, viewer shows ${window.from} to ${window.to}` : ""}${reader !== undefined ? `, live tail at ${reader}` : ""}`;
  return (
    <div class="offset-bar" role="img" aria-label={label}>
      <div class="track">
        {retained > 0 && <div class="seg trimmed" style={{ width: pct(retained) }} title={`trimmed: below ${retained}`} />}
        <div class="seg data" style={{ left: pct(retained), width: `calc(${pct(tail)} - ${pct(retained)})` }} />
        {inherited !== undefined && inherited > 0 && <div class="seg inherited" style={{ left: 0, width: pct(inherited) }} title={`inherited from the source: below ${inherited}`} />}
        {forks.map((f) => (
          <div key={`${f.label}@${f.position}`} class="marker fork" style={{ left: pct(f.position) }} title={`${f.label} forks here, at ${f.position}`} data-fork-at={f.position} />
        ))}
        {window && window.to >= window.from && (
          <div class="seg window" style={{ left: pct(window.from), width: `max(3px, calc(${pct(window.to)} - ${pct(window.from)}))` }} title={`viewer: ${window.from}–${window.to}`} />
        )}
        {snapshot !== undefined && <div class="marker snapshot" style={{ left: pct(snapshot) }} title={`snapshot at ${snapshot}`} data-snapshot-at={snapshot} />}
        {reader !== undefined && <div class="marker reader" style={{ left: pct(reader) }} title={`live tail at ${reader}`} />}
        <div class="marker tail" style={{ left: "100%" }} />
      </div>
      <div class="ticks">
        {ticks.map((t) => (
          <span key={t} style={{ left: pct(t) }}>
            {formatBytes(t)}
          </span>
        ))}
        <span class="tail-label" style={{ left: "100%" }}>
          tail {formatBytes(tail)}
        </span>
      </div>
      <dl class="offset-summary">
        <dt>readable</dt>
        <dd data-testid="readable-range">
          bytes {retained.toLocaleString("en-US")}–{tail.toLocaleString("en-US")}
          {retained > 0 ? ` (retained from ${retained.toLocaleString("en-US")}; below it, 410)` : ""}
        </dd>
        {snapshot !== undefined && (
          <>
            <dt>snapshot</dt>
            <dd data-testid="snapshot-mark">at byte {snapshot.toLocaleString("en-US")}{snapshot === tail ? " (the tail)" : `, ${formatBytes(tail - snapshot)} before the tail`}</dd>
          </>
        )}
        {window && (
          <>
            <dt>viewer</dt>
            <dd>
              bytes {window.from.toLocaleString("en-US")}–{window.to.toLocaleString("en-US")} ({formatBytes(window.to - window.from)}, {((100 * (window.to - window.from)) / tail).toFixed(1)}% of the stream)
            </dd>
          </>
        )}
        {forks.length > 0 && (
          <>
            <dt>forks</dt>
            <dd data-testid="fork-marks">{forks.map((f) => `${f.label} at ${f.position.toLocaleString("en-US")}`).join(" · ")}</dd>
          </>
        )}
        {reader !== undefined && (
          <>
            <dt>live tail</dt>
            <dd>{reader === tail ? "at the tail" : `${formatBytes(tail - reader)} behind the tail`}</dd>
          </>
        )}
      </dl>
      <div class="legend">
        <span>
          <i class="sw data" /> data
        </span>
        {retained > 0 && (
          <span>
            <i class="sw trimmed" /> trimmed
          </span>
        )}
        {snapshot !== undefined && (
          <span>
            <i class="sw snapshot" /> snapshot
          </span>
        )}
        {inherited !== undefined && inherited > 0 && (
          <span>
            <i class="sw inherited" /> inherited from the source
          </span>
        )}
        {forks.length > 0 && (
          <span>
            <i class="sw fork" /> fork offset{forks.length > 1 ? "s" : ""}
          </span>
        )}
        {window && (
          <span>
            <i class="sw window" /> viewer window
          </span>
        )}
        {reader !== undefined && (
          <span>
            <i class="sw reader" /> live tail reader
          </span>
        )}
      </div>
    </div>
  );
}

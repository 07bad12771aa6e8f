// Log lines on stderr, as text for a terminal or one JSON object per line for a collector.
// Nothing is formatted for a level that is off: callers on the hot path test `enabled` first.

export type LogLevel = "error" | "warn" | "info" | "debug";
export type LogFormat = "text" | "json";
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export class Logger {
  private readonly rank: number;

  constructor(
    readonly level: LogLevel,
    readonly format: LogFormat,
    private readonly write: (line: string) => void = (line) => void process.stderr.write(line),
  ) {
    this.rank = RANK[level];
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] <= this.rank;
  }

  error(msg: string, fields?: LogFields): void {
    this.log("error", msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.log("warn", msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.log("info", msg, fields);
  }

  debug(msg: string, fields?: LogFields): void {
    this.log("debug", msg, fields);
  }

  log(level: LogLevel, msg: string, fields: LogFields = {}): void {
    if (RANK[level] > this.rank) return;
    const time = new Date().toISOString();
    this.write(this.format === "json" ? jsonLine(time, level, msg, fields) : textLine(time, level, msg, fields));
  }
}

function jsonLine(time: string, level: LogLevel, msg: string, fields: LogFields): string {
  const record: LogFields = { time, level, msg };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) record[k] = v;
  return `${JSON.stringify(record)}\n`;
}

/**
 * `time level message key=value …`. A value is quoted (and its newlines escaped) where it has
 * spaces, quotes or `=`, so every record is one line, whatever a client put in its path.
 */
function textLine(time: string, level: LogLevel, msg: string, fields: LogFields): string {
  let line = `${time} ${level.padEnd(5)} ${msg}`;
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const s = String(v);
    line += ` ${k}=${s === "" || /[\s"=\\]/.test(s) ? JSON.stringify(s) : s}`;
  }
  return `${line}\n`;
}

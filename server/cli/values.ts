// How an option's text becomes its value. Every option arrives as text, whether from a flag, an
// environment variable or the config file (whose numbers and booleans are written out as text
// first), so one parser per kind of value serves all three, and a bad value reads the same
// whichever source it came from.

/** A value that cannot be used; resolve.ts prefixes the option's source and the text given. */
export class ValueError extends Error {}

/** What a parser may look at besides the text: the host's limits, and the options before it. */
export interface ParseContext {
  /** The soft RLIMIT_NOFILE the process runs under (Bun raises it to the hard limit at start). */
  fdLimit: number;
  /** Options earlier in the table, already parsed. */
  config: Record<string, unknown>;
}

export type Parser<T> = (raw: string, ctx: ParseContext) => T;

export const text: Parser<string> = (raw) => raw;

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    const n = Number(raw);
    if (!/^[0-9]+$/.test(raw) || n < min || n > max) {
      throw new ValueError(max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}

/** An integer at least as large as an earlier option's value. */
export function integerAtLeast(option: string, key: string): Parser<number> {
  return (raw, ctx) => {
    const min = ctx.config[key] as number;
    try {
      return integer(min)(raw, ctx);
    } catch {
      throw new ValueError(`must be an integer >= ${min} (--${option})`);
    }
  };
}

/**
 * `auto`, or an integer of at least 1. `auto` is sized from the host (the open-file limit) or
 * from earlier options, so the defaults fit wherever ursa runs.
 */
export function autoInteger(auto: (ctx: ParseContext) => number): Parser<number> {
  const explicit = integer(1);
  return (raw, ctx) => (raw === "auto" ? auto(ctx) : explicit(raw, ctx));
}

const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, written as a number of ms or with a unit: 500ms, 60s, 2m, 1h, 7d. */
export function duration(minMs = 0, maxMs = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    const m = /^([0-9]+)(ms|s|m|h|d)?$/.exec(raw);
    const ms = m ? Number(m[1]) * DURATION_UNIT_MS[m[2] ?? "ms"]! : NaN;
    if (!(ms >= minMs && ms <= maxMs) || !Number.isSafeInteger(ms)) {
      const range = maxMs === Number.MAX_SAFE_INTEGER ? `of at least ${minMs} ms` : `from ${minMs} ms to ${maxMs} ms`;
      throw new ValueError(`must be a duration ${range} like 500ms, 60s, 2m, 1h or 7d`);
    }
    return ms;
  };
}

export function choice<const T extends string>(...values: T[]): Parser<T> {
  return (raw) => {
    if (!(values as string[]).includes(raw)) throw new ValueError(`must be ${values.slice(0, -1).join(", ")} or ${values.at(-1)}`);
    return raw as T;
  };
}

export const bool: Parser<boolean> = (raw) => {
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ValueError("must be true or false");
};

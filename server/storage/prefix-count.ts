// Counting the streams whose ID starts with a prefix: no engine can keep a count for every
// prefix, so each counts through its name index up to PREFIX_COUNT_CAP and says "at least" beyond.

/** A prefix's streams are counted up to this many; past it the count says "at least". */
export const PREFIX_COUNT_CAP = 10_000;

// Every name that starts with the prefix sorts below prefix + U+10FFFF, bytewise in UTF-8.
export const upperBound = (prefix: string) => (prefix === "" ? "\u{10FFFF}\u{10FFFF}" : prefix + "\u{10FFFF}");

export interface Count {
  n: number;
  /** `n` is a lower bound: counting stopped at PREFIX_COUNT_CAP. */
  capped: boolean;
}

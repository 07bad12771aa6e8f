// The three scopes a token can hold (docs/security.md). They are independent: write does not
// include read, and admin includes neither. A scope set is a bit mask so a check costs nothing.

export const READ = 1;
export const WRITE = 2;
export const ADMIN = 4;
export const ALL_SCOPES = READ | WRITE | ADMIN;

export type Scope = typeof READ | typeof WRITE | typeof ADMIN;

const NAMES: [string, Scope][] = [
  ["read", READ],
  ["write", WRITE],
  ["admin", ADMIN],
];

export function scopeName(scope: Scope): string {
  return NAMES.find(([, s]) => s === scope)![0];
}

/** The names in a set, in the order read, write, admin. */
export function scopeNames(set: number): string[] {
  return NAMES.filter(([, s]) => (set & s) !== 0).map(([n]) => n);
}

/** One scope name, or undefined for a name ursa does not know. */
export function scopeOf(name: string): Scope | undefined {
  return NAMES.find(([n]) => n === name)?.[1];
}

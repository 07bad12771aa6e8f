// Offset tokens (spec §3.1): "0000000000000000_" + the byte position padded to 16 digits.
// The console only ever does arithmetic on the byte position; it never invents a token
// the server did not mint, except to turn a position it read back into the same form.

const TOKEN = /^(\d{16})_(\d{16})$/;

/** Byte position of a token (or a legacy all-digits form); undefined for sentinels/garbage. */
export function offsetPosition(token: string | undefined | null): number | undefined {
  if (!token) return undefined;
  const m = TOKEN.exec(token);
  if (m) return Number(m[2]);
  if (/^\d{1,20}$/.test(token)) return Number(token);
  return undefined;
}

export function offsetToken(position: number): string {
  return "0000000000000000_" + String(position).padStart(16, "0");
}

/** Short form for dense tables: the significant part only ("…_42"). */
export function shortOffset(token: string | undefined): string {
  const p = offsetPosition(token);
  return p === undefined ? (token ?? "—") : `…_${p}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

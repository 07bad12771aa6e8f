// Which webhook URLs a subscription may call (issue 49, safe outbound calls): http or https, and
// never an address inside the operator's network (loopback, private, link-local, unspecified,
// carrier-grade NAT, IPv6 unique-local, and IPv4 written inside IPv6) unless the operator names
// the host or the address in --webhook-allow-hosts. Pure: the caller resolves names and asks
// again about every address a name resolves to, at creation and at each call.

import { isIP } from "node:net";

export type UrlVerdict = { ok: true; url: URL } | { ok: false; message: string };

export function parseWebhookUrl(raw: string): UrlVerdict {
  if (!URL.canParse(raw)) return { ok: false, message: "webhook.url must be an absolute URL" };
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, message: "webhook.url must be http or https" };
  if (url.username !== "" || url.password !== "") return { ok: false, message: "webhook.url must not carry credentials" };
  return { ok: true, url };
}

/** A URL's host as it is resolved and compared: lower case, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

/** Whether a host name or address is one the operator allowed. */
export function isAllowedHost(host: string, allowHosts: readonly string[]): boolean {
  const h = host.toLowerCase();
  return allowHosts.some((a) => a.toLowerCase() === h);
}

/** Whether an IP address lies inside a network a webhook must not reach. */
export function isInternalAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return internalV4(address.split(".").map(Number) as [number, number, number, number]);
  if (kind !== 6) return false;
  const a = address.toLowerCase();
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return internalV4(mapped[1]!.split(".").map(Number) as [number, number, number, number]);
  const groups = expandV6(a);
  if (groups === null) return true;
  if (groups.every((g) => g === 0)) return true;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true;
  if (groups[0]! >= 0xfe80 && groups[0]! <= 0xfebf) return true;
  if ((groups[0]! & 0xfe00) === 0xfc00) return true;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return internalV4([groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255]);
  return false;
}

function internalV4([a, b]: [number, number, number, number]): boolean {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}

/** Eight 16-bit groups, or null for text that is not an IPv6 address this understands. */
function expandV6(a: string): number[] | null {
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  let text = a;
  if (v4) {
    const [p, q, r, s] = v4[1]!.split(".").map(Number) as [number, number, number, number];
    text = a.slice(0, -v4[1]!.length) + `${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, tail, more] = text.split("::");
  if (more !== undefined) return null;
  const part = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = part(tail);
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const groups = [...h, ...Array(Math.max(0, fill)).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

// Whether a webhook URL may be called now (issue 49, safe outbound calls): its host is checked as
// given and, for a name, every address the name resolves to at this moment, so a DNS change after
// the subscription was made cannot turn it towards the operator's own network.

import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { hostOf, isAllowedHost, isInternalAddress, parseWebhookUrl } from "../../protocol/webhook-url";

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * null when the URL may be called; else why not. A name that does not resolve is let through when
 * `unresolved` is "pass" (at creation: the call-time check still guards it) and refused otherwise.
 */
export async function refusalOf(raw: string, allowHosts: readonly string[], resolve: Resolver, unresolved: "pass" | "refuse"): Promise<string | null> {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return parsed.message;
  const host = hostOf(parsed.url);
  if (isAllowedHost(host, allowHosts)) return null;
  if (isIP(host) !== 0) return isInternalAddress(host) ? `${host} is a loopback, private or link-local address; allow it with --webhook-allow-hosts` : null;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return unresolved === "pass" ? null : `${host} does not resolve`;
  }
  const internal = addresses.find((a) => isInternalAddress(a) && !isAllowedHost(a, allowHosts));
  return internal === undefined ? null : `${host} resolves to ${internal}, a loopback, private or link-local address; allow it with --webhook-allow-hosts`;
}

// Which Host a request may name (DNS rebinding). A page on attacker.example whose name is
// re-pointed at 127.0.0.1 reaches this server as its own origin, and only the Host header still
// says attacker.example. Modelled on Vite's server.allowedHosts: IP literals always pass (a
// rebinding needs a name), as do localhost and *.localhost (RFC 6761 §6.3: they never leave the
// machine), the name ursa was told to bind, and the names given with --allowed-hosts.

export interface HostRules {
  /** `*`: the check is off. */
  any: boolean;
  /** Exact host names. */
  names: ReadonlySet<string>;
  /** `.example.com` entries, kept with their leading dot: the name itself and every subdomain. */
  domains: readonly string[];
}

const NAME = /^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;
const IPV4 = /^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/;

/** `--allowed-hosts`: comma-separated names, `.domain` for a domain and its subdomains, or `*`. */
export function parseAllowedHosts(raw: string, boundHost: string): HostRules | string {
  const entries = raw.split(",").map((e) => e.trim().toLowerCase()).filter((e) => e !== "");
  if (entries.includes("*")) {
    return entries.length === 1 ? { any: true, names: new Set(), domains: [] } : "--allowed-hosts: * turns the check off and cannot be combined with names";
  }
  const names = new Set<string>();
  const domains: string[] = [];
  for (const entry of entries) {
    if (!NAME.test(entry)) return `--allowed-hosts: ${JSON.stringify(entry)} is not a host name (give names without scheme or port, .example.com for a domain and its subdomains)`;
    if (entry.startsWith(".")) domains.push(entry);
    else names.add(entry);
  }
  const bound = boundHost.toLowerCase();
  // An address binds no name; IP literals pass anyway.
  if (NAME.test(bound) && !bound.startsWith(".") && !IPV4.test(bound)) names.add(bound);
  return { any: false, names, domains };
}

/** The host name of a URL authority (`host[:port]`, `[v6]:port`), as Bun's parsed request URL gives it. */
export function hostnameOf(authority: string): string {
  if (authority.startsWith("[")) return authority.slice(0, authority.indexOf("]") + 1);
  const colon = authority.lastIndexOf(":");
  // Only a port follows the colon; anything else is left in, and matches no allowed name.
  return colon < 0 || !/^[0-9]*$/.test(authority.slice(colon + 1)) ? authority : authority.slice(0, colon);
}

export function isAllowedHostname(rules: HostRules, hostname: string): boolean {
  if (rules.any) return true;
  // Bun has already parsed and lower-cased the name; a bracketed name is an IPv6 literal.
  if (hostname.startsWith("[") || IPV4.test(hostname)) return true;
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (rules.names.has(hostname)) return true;
  return rules.domains.some((d) => hostname === d.slice(1) || hostname.endsWith(d));
}

/**
 * The check a request goes through. Nearly every request names the same host, so the last
 * allowed URL prefix is remembered and a request that starts with it costs one comparison.
 */
export class HostCheck {
  private lastAllowed = "";

  constructor(private readonly rules: HostRules) {}

  /** `url` is the request URL (Bun builds it from Host); `authorityEnd` is where its path starts. */
  allows(url: string, authorityEnd: number): boolean {
    if (this.rules.any) return true;
    const prefix = this.lastAllowed;
    if (prefix.length === authorityEnd && url.startsWith(prefix)) return true;
    const start = url.indexOf("//") + 2;
    if (!isAllowedHostname(this.rules, hostnameOf(url.slice(start, authorityEnd)))) return false;
    this.lastAllowed = url.slice(0, authorityEnd);
    return true;
  }
}

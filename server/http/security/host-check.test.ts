import { describe, expect, test } from "bun:test";
import { HostCheck, hostnameOf, isAllowedHostname, parseAllowedHosts, type HostRules } from "./host-check";

const rules = (raw: string, bound = "127.0.0.1") => {
  const r = parseAllowedHosts(raw, bound);
  if (typeof r === "string") throw new Error(r);
  return r;
};

describe("the Host check (DNS rebinding)", () => {
  test("IP literals, localhost and *.localhost pass with no option; other names do not", () => {
    const r = rules("");
    for (const ok of ["127.0.0.1", "10.1.2.3", "[::1]", "[fe80::1]", "localhost", "app.localhost"]) expect(isAllowedHostname(r, ok)).toBe(true);
    for (const no of ["rebind.attacker.example", "localhost.attacker.example", "example.com", "notlocalhost", "127.0.0.1.nip.io"]) expect(isAllowedHostname(r, no)).toBe(false);
  });

  test("--allowed-hosts adds exact names, and .domain adds a domain with its subdomains", () => {
    const r = rules("ursa.lan, .corp.example");
    expect(isAllowedHostname(r, "ursa.lan")).toBe(true);
    expect(isAllowedHostname(r, "x.ursa.lan")).toBe(false);
    expect(isAllowedHostname(r, "corp.example")).toBe(true);
    expect(isAllowedHostname(r, "a.b.corp.example")).toBe(true);
    expect(isAllowedHostname(r, "evilcorp.example")).toBe(false);
  });

  test("the name ursa was told to listen on is answered; an address adds nothing", () => {
    expect(isAllowedHostname(rules("", "ursa.internal"), "ursa.internal")).toBe(true);
    expect(rules("", "0.0.0.0").names.size).toBe(0);
  });

  test("* turns the check off, alone; entries that are not names are refused", () => {
    expect(isAllowedHostname(rules("*"), "anything.example")).toBe(true);
    expect(parseAllowedHosts("*,ursa.lan", "127.0.0.1")).toContain("cannot be combined");
    for (const bad of ["http://ursa.lan", "ursa.lan:8080", "a b", "ursa..lan"]) expect(parseAllowedHosts(bad, "127.0.0.1")).toContain("--allowed-hosts");
  });

  test("hostnameOf drops the port, keeps an IPv6 literal whole", () => {
    expect([hostnameOf("localhost:4437"), hostnameOf("[::1]:4437"), hostnameOf("[::1]"), hostnameOf("ursa.lan")]).toEqual(["localhost", "[::1]", "[::1]", "ursa.lan"]);
  });

  test("HostCheck remembers the last allowed prefix but never lets a longer authority through on it", () => {
    const check = new HostCheck(rules("") as HostRules);
    const url = (authority: string) => `http://${authority}/b/s`;
    const end = (u: string) => u.indexOf("/", 7);
    const a = url("localhost:4437");
    expect(check.allows(a, end(a))).toBe(true);
    for (const authority of ["localhost.attacker.example:4437", "localhost:44370.attacker.example", "localhost:4437.attacker.example"]) {
      const b = url(authority);
      expect(check.allows(b, end(b))).toBe(false);
    }
    expect(check.allows(a, end(a))).toBe(true);
  });
});

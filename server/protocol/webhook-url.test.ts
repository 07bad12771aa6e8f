import { describe, expect, test } from "bun:test";
import { hostOf, isAllowedHost, isInternalAddress, parseWebhookUrl } from "./webhook-url";

describe("webhook URLs (issue 49: safe outbound calls)", () => {
  test("only absolute http and https URLs without credentials", () => {
    expect(parseWebhookUrl("https://hooks.example/x").ok).toBe(true);
    expect(parseWebhookUrl("http://hooks.example:8080/x").ok).toBe(true);
    for (const bad of ["/relative", "ftp://hooks.example/x", "file:///etc/passwd", "https://user:pw@hooks.example/", "not a url"]) expect(parseWebhookUrl(bad).ok).toBe(false);
  });

  test("loopback, private, link-local, unspecified and carrier-grade NAT IPv4 addresses are internal", () => {
    for (const a of ["127.0.0.1", "127.9.9.9", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1"]) expect(isInternalAddress(a)).toBe(true);
    for (const a of ["8.8.8.8", "172.32.0.1", "172.15.0.1", "192.169.0.1", "100.128.0.1", "1.1.1.1"]) expect(isInternalAddress(a)).toBe(false);
  });

  test("IPv6 loopback, unspecified, link-local, unique-local and IPv4 inside IPv6 are internal", () => {
    for (const a of ["::1", "::", "fe80::1", "fd00::1", "fc12:3456::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "0:0:0:0:0:0:0:1"]) expect(isInternalAddress(a)).toBe(true);
    for (const a of ["2001:4860:4860::8888", "::ffff:8.8.8.8", "2606:4700::1111"]) expect(isInternalAddress(a)).toBe(false);
  });

  test("a host is compared in lower case, IPv6 without brackets, against the operator's list", () => {
    expect(hostOf(new URL("http://[::1]:80/"))).toBe("::1");
    expect(hostOf(new URL("http://LocalHost/"))).toBe("localhost");
    expect(isAllowedHost("localhost", ["LOCALHOST"])).toBe(true);
    expect(isAllowedHost("127.0.0.1", ["localhost"])).toBe(false);
    expect(isAllowedHost("127.0.0.1", [])).toBe(false);
  });
});

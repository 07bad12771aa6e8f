import { describe, expect, test } from "bun:test";
import { NO_AUTH } from "../../auth/authenticator";
import { DEFAULT_SECURITY, startupCheck } from "./options";

const TOKEN = "0123456789abcdef0123";

describe("start-up", () => {
  const withAuth = { ...DEFAULT_SECURITY, auth: { ...NO_AUTH, tokens: [{ token: TOKEN, scopes: 7, buckets: null }] } };
  test("a network address without authentication is warned about loudly; loopback is not", () => {
    expect(startupCheck("127.0.0.1", DEFAULT_SECURITY)).toEqual({ warnings: [] });
    expect(startupCheck("localhost", DEFAULT_SECURITY)).toEqual({ warnings: [] });
    const open = startupCheck("0.0.0.0", DEFAULT_SECURITY);
    expect("warnings" in open && open.warnings[0]).toStartWith("ursa: WARNING: listening on 0.0.0.0 without authentication");
    expect(startupCheck("0.0.0.0", withAuth)).toEqual({ warnings: [] });
  });
  test("--require-auth refuses to start without a way to authenticate", () => {
    expect(startupCheck("127.0.0.1", { ...DEFAULT_SECURITY, auth: { ...NO_AUTH, requireAuth: true } })).toHaveProperty("refuse");
    expect(startupCheck("0.0.0.0", { ...withAuth, auth: { ...withAuth.auth, requireAuth: true } })).toEqual({ warnings: [] });
  });
  test("--allowed-hosts * is warned about", () => {
    const r = startupCheck("127.0.0.1", { ...DEFAULT_SECURITY, allowedHosts: { any: true, names: new Set(), domains: [] } });
    expect("warnings" in r && r.warnings[0]).toContain("DNS rebinding");
  });
});

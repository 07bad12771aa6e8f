import { describe, expect, test } from "bun:test";
import { parseAuthOptions } from "./options";
import { NO_AUTH } from "./authenticator";

const TOKEN = "0123456789abcdef0123";
const files: Record<string, string> = {
  "tokens.txt": `${TOKEN}x read demo\n`,
  "jwks.json": JSON.stringify({ keys: [] }),
  "bad.json": "{",
};
const parse = (flags: Record<string, string>) =>
  parseAuthOptions((f) => flags[f] ?? "", 600_000, (p) => {
    if (!(p in files)) throw new Error(`ENOENT: no such file, open '${p}'`);
    return files[p]!;
  });

describe("authentication options", () => {
  test("none by default; --token is one token with every scope; --token-file adds its lines", () => {
    expect(parse({})).toEqual(NO_AUTH);
    const both = parse({ token: TOKEN, "token-file": "tokens.txt" });
    expect(typeof both !== "string" && both.tokens.map((t) => [t.scopes, t.buckets])).toEqual([[7, null], [1, new Set(["demo"])]]);
  });

  test("mistakes stop the start with a line that names the option and never the token", () => {
    const errors = [
      parse({ token: "short" }),
      parse({ "token-file": "missing.txt" }),
      parse({ jwks: "jwks.json" }),
      parse({ jwks: "jwks.json", "jwt-issuer": "https://i" }),
      parse({ "jwt-audience": "a" }),
      parse({ jwks: "bad.json", "jwt-issuer": "i", "jwt-audience": "a" }),
      parse({ jwks: "http://idp.example/jwks.json", "jwt-issuer": "i", "jwt-audience": "a" }),
      parse({ "public-read": "true" }),
    ];
    expect(errors.map((e) => typeof e === "string" && e.split(":")[0])).toEqual(["--token", "--token-file", "--jwks needs --jwt-issuer and --jwt-audience", "--jwks needs --jwt-issuer and --jwt-audience", "--jwt-issuer and --jwt-audience need --jwks", "--jwks", "--jwks", "--public-read opens reads to anyone, but nothing else is protected"]);
    expect(JSON.stringify(errors)).not.toContain("short");
  });

  test("a JWKS over plain HTTP only from this machine; https from anywhere", () => {
    const jwt = (url: string) => parse({ jwks: url, "jwt-issuer": "i", "jwt-audience": "a" });
    expect(jwt("http://127.0.0.1:9000/jwks.json")).toMatchObject({ jwt: { keys: { kind: "url", url: "http://127.0.0.1:9000/jwks.json", refreshMs: 600_000 } } });
    expect(jwt("https://idp.example/.well-known/jwks.json")).toMatchObject({ jwt: { issuer: "i", audience: "a" } });
    expect(jwt("jwks.json")).toMatchObject({ jwt: { keys: { kind: "file", jwks: { keys: [] } } } });
  });
});

// Static bearer tokens: --token (one token with every scope) and --token-file, one token a line:
//
//   # token                              scopes            buckets (optional; * or omitted: all)
//   3f6c0d2a9b8e4f71a5c2d9e0b4a7f813     read              demo,logs
//   9a1e77c0f2b34d6e8a5f0c1d2e3b4a59     read,write        demo
//   c4d8e2f1a0b9c7d6e5f4a3b2c1d0e9f8     read,write,admin
//
// Blank lines and lines starting with # are ignored. Error messages name the line, never the token.

import { DEFAULT_BUCKET, parseBucketId } from "../protocol/paths";
import { ALL_SCOPES, scopeOf } from "./scopes";

export interface TokenEntry {
  token: string;
  scopes: number;
  buckets: ReadonlySet<string> | null;
}

/** RFC 6750 §2.1 b64token; at least 16 characters, so that a token cannot be guessed. */
const TOKEN = /^[A-Za-z0-9\-._~+/]{16,}=*$/;
export const TOKEN_RULE = "a token is at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (openssl rand -hex 32 makes one)";

export function tokenProblem(token: string): string | null {
  return TOKEN.test(token) ? null : TOKEN_RULE;
}

export function allScopesToken(token: string): TokenEntry {
  return { token, scopes: ALL_SCOPES, buckets: null };
}

export function parseTokenFile(text: string, name: string): TokenEntry[] | string {
  const entries: TokenEntry[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const where = `--token-file ${name} line ${i + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length < 2 || fields.length > 3) return `${where}: expected "TOKEN SCOPES [BUCKETS]"`;
    const [token, scopeList, bucketList] = fields as [string, string, string | undefined];
    const problem = tokenProblem(token);
    if (problem) return `${where}: ${problem}`;
    if (seen.has(token)) return `${where}: this token is already on an earlier line`;
    seen.add(token);
    let scopes = 0;
    for (const s of scopeList.split(",")) {
      const scope = scopeOf(s);
      if (scope === undefined) return `${where}: ${JSON.stringify(s)} is not a scope (read, write, admin, comma-separated)`;
      scopes |= scope;
    }
    let buckets: Set<string> | null = null;
    if (bucketList !== undefined && bucketList !== "*") {
      buckets = new Set();
      for (const b of bucketList.split(",")) {
        if (b !== DEFAULT_BUCKET && !parseBucketId(b).ok) return `${where}: ${JSON.stringify(b)} is not a bucket ID`;
        buckets.add(b);
      }
    }
    entries.push({ token, scopes, buckets });
  }
  if (entries.length === 0) return `--token-file ${name} holds no token`;
  return entries;
}

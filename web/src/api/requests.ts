// The requests behind the console's buttons (create, append, close, delete), built as plain
// request objects: they are sent through the same exchange client as the composer's, so each
// lands in the attempt timeline with its copy-as-curl, and tests can read exactly what is sent.
import type { HeaderList, ProtocolRequest } from "./types";

export type Lifetime = { kind: "none" } | { kind: "ttl"; seconds: string } | { kind: "expires"; at: string };

export interface CreateSpec {
  path: string;
  contentType: string;
  lifetime: Lifetime;
  /** A starting Stream-Seq (Conditional Writes warns against it on prefix-count streams); empty: none. */
  seed: string;
}

export function createRequest(s: CreateSpec): ProtocolRequest {
  const headers: HeaderList = [["Content-Type", s.contentType.trim()]];
  if (s.lifetime.kind === "ttl") headers.push(["Stream-TTL", s.lifetime.seconds.trim()]);
  if (s.lifetime.kind === "expires") headers.push(["Stream-Expires-At", s.lifetime.at.trim()]);
  if (s.seed !== "") headers.push(["Stream-Seq", s.seed]);
  return { method: "PUT", path: s.path, headers };
}

export interface AppendSpec {
  path: string;
  contentType: string;
  body: string;
  /** Empty: no Stream-Seq header. */
  seq: string;
  /** The token of the incarnation the user is looking at; empty: not sent. */
  incarnation: string;
}

export function appendRequest(s: AppendSpec): ProtocolRequest {
  const headers: HeaderList = [["Content-Type", s.contentType]];
  if (s.seq !== "") headers.push(["Stream-Seq", s.seq]);
  if (s.incarnation !== "") headers.push(["Stream-Incarnation", s.incarnation]);
  return { method: "POST", path: s.path, headers, body: s.body };
}

/** Close without a final body: a POST with Stream-Closed: true and nothing else. */
export function closeRequest(path: string, incarnation: string): ProtocolRequest {
  const headers: HeaderList = [["Stream-Closed", "true"]];
  if (incarnation !== "") headers.push(["Stream-Incarnation", incarnation]);
  return { method: "POST", path, headers };
}

/** With the token, a delete can only remove the incarnation on screen: a recreated stream answers 412. */
export function deleteRequest(path: string, incarnation: string): ProtocolRequest {
  return { method: "DELETE", path, headers: incarnation !== "" ? [["Stream-Incarnation", incarnation]] : [] };
}

const BUCKET = /^[a-z0-9_-]{4,64}$/;

/** Why the server would refuse this bucket and stream ID (spec §1.2–§1.4), or null. */
export function pathProblem(bucket: string, stream: string): string | null {
  if (!BUCKET.test(bucket) || bucket.startsWith("__")) return "A bucket ID is 4–64 characters of a–z, 0–9, _ and -, not starting with __.";
  const bytes = new TextEncoder().encode(stream).length;
  if (bytes === 0) return "Name the stream.";
  if (stream.includes("/") || stream.includes("..")) return "A stream ID may not contain / or ..";
  if (bucket.length + 1 + bytes > 122) return "Bucket and stream ID together are at most 122 bytes.";
  if (stream === "streams" && bucket !== "_default") return "“streams” is the bucket listing's name.";
  return null;
}

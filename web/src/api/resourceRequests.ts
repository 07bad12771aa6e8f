// The requests behind the stream page's attribute, snapshot and retention buttons and the
// compaction lab, as plain request objects (like requests.ts): sent through the exchange client,
// so each lands in the attempt timeline with its copy-as-curl. Each carries the Stream-Incarnation
// of the stream on screen when given, so it can only reach that stream (docs/api.md, Sub-resources).
import type { HeaderList, ProtocolRequest } from "./types";

const withIncarnation = (headers: HeaderList, incarnation: string): HeaderList => (incarnation !== "" ? [...headers, ["Stream-Incarnation", incarnation]] : headers);

/** The attributes a stream keeps (docs/api.md, PUT …/attrs): a title and a metadata object. */
export interface Attrs {
  title?: string;
  metadata?: Record<string, unknown>;
}

export function attrsRequest(streamPath: string, attrs: Attrs, incarnation = ""): ProtocolRequest {
  return { method: "PUT", path: `${streamPath}/attrs`, headers: withIncarnation([["Content-Type", "application/json"]], incarnation), body: JSON.stringify(attrs) };
}

export interface SnapshotSpec {
  offset: string;
  contentType: string;
  body: string;
  /** The digest of the snapshot this one was derived from (Stream-Snapshot-Match); empty: none. */
  match: string;
  incarnation: string;
}

export function publishSnapshotRequest(streamPath: string, s: SnapshotSpec): ProtocolRequest {
  const headers: HeaderList = [["Content-Type", s.contentType]];
  if (s.match !== "") headers.push(["Stream-Snapshot-Match", s.match]);
  return { method: "PUT", path: `${streamPath}/snapshot/${s.offset}`, headers: withIncarnation(headers, s.incarnation), body: s.body };
}

/** The floor moves up to `offset`; reads below it answer 410 from then on. */
export function retentionRequest(streamPath: string, offset: string, incarnation = ""): ProtocolRequest {
  return { method: "PUT", path: `${streamPath}/retention/${offset}`, headers: withIncarnation([], incarnation) };
}

export function appendBatchRequest(streamPath: string, contentType: string, frames: string[], incarnation = ""): ProtocolRequest {
  return { method: "POST", path: `${streamPath}/append-batch`, headers: withIncarnation([["Content-Type", contentType]], incarnation), frames };
}

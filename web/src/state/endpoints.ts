// What the composer can address on a stream (docs/api.md): the stream itself and each of its
// sub-resources, with the methods each answers, what body it takes, and which guards apply.
// A guard that does not apply is never sent, whatever its toggle says, so the preview is the
// request; append-batch shows the write guards anyway, because sending one is how a person sees
// the 400 UNSUPPORTED_HEADER that protects them.
import type { Method } from "../api/types";

export type Endpoint = "stream" | "append-batch" | "attrs" | "snapshot" | "snapshot-at" | "retention" | "bootstrap";

export type Guard = "seq" | "producer" | "closed" | "ttl" | "incarnation" | "snapshot-match" | "prefer-minimal";

export interface EndpointSpec {
  label: string;
  methods: Method[];
  /** Needs an {offset} segment. */
  offset: boolean;
  body(method: Method): "text" | "frames" | "none";
  guards(method: Method): Guard[];
  /** What a person should know before sending. */
  hint: string;
}

const ALL_STREAM_GUARDS: Guard[] = ["seq", "producer", "incarnation", "closed", "ttl"];

export const ENDPOINTS: Record<Endpoint, EndpointSpec> = {
  stream: {
    label: "/{bucket}/{stream}",
    methods: ["POST", "PUT", "GET", "HEAD", "DELETE"],
    offset: false,
    body: (m) => (m === "POST" || m === "PUT" ? "text" : "none"),
    guards: (m) => (m === "PUT" ? ALL_STREAM_GUARDS : m === "POST" ? ["seq", "producer", "incarnation", "closed"] : ["incarnation"]),
    hint: "The stream: append, create, read, HEAD, delete.",
  },
  "append-batch": {
    label: "…/append-batch",
    methods: ["POST"],
    offset: false,
    body: () => "frames",
    guards: () => ["seq", "producer", "closed", "incarnation", "prefer-minimal"],
    hint: "Each frame is its own append, decided in order; one ack per frame. Stream-Seq, Producer-* and Stream-Closed cannot apply to separate frames: the server answers 400 UNSUPPORTED_HEADER.",
  },
  attrs: {
    label: "…/attrs",
    methods: ["GET", "PUT", "HEAD"],
    offset: false,
    body: (m) => (m === "PUT" ? "text" : "none"),
    guards: () => ["incarnation"],
    hint: "A title and a metadata object; a PUT replaces them whole ({} clears them) and moves no offset.",
  },
  snapshot: {
    label: "…/snapshot",
    methods: ["GET", "HEAD"],
    offset: false,
    body: () => "none",
    guards: () => ["incarnation"],
    hint: "Answers 307 to the latest snapshot. The browser follows the redirect itself, so the answer shown is the snapshot's own; curl -i shows the 307.",
  },
  "snapshot-at": {
    label: "…/snapshot/{offset}",
    methods: ["PUT", "GET", "HEAD", "DELETE"],
    offset: true,
    body: (m) => (m === "PUT" ? "text" : "none"),
    guards: (m) => (m === "PUT" ? ["snapshot-match", "incarnation"] : ["incarnation"]),
    hint: "PUT publishes a snapshot at a message boundary (its own Content-Type); GET reads it; DELETE never deletes the latest (409).",
  },
  retention: {
    label: "…/retention/{offset}",
    methods: ["PUT"],
    offset: true,
    body: () => "none",
    guards: () => ["incarnation"],
    hint: "Raises the floor, at most to the snapshot: reads below it answer 410 from then on, offset=-1 too. Needs the admin scope.",
  },
  bootstrap: {
    label: "…/bootstrap",
    methods: ["GET", "HEAD"],
    offset: false,
    body: () => "none",
    guards: () => ["incarnation"],
    hint: "multipart/mixed: the snapshot part, then one part per message after it; read on from Stream-Next-Offset.",
  },
};

export const ENDPOINT_ORDER: Endpoint[] = ["stream", "append-batch", "attrs", "snapshot", "snapshot-at", "retention", "bootstrap"];

export function isEndpoint(s: string | null): s is Endpoint {
  return s !== null && (ENDPOINT_ORDER as string[]).includes(s);
}

/** The path segment(s) after the stream's path. */
export function endpointSuffix(e: Endpoint, offset: string): string {
  switch (e) {
    case "stream":
      return "";
    case "snapshot-at":
      return `/snapshot/${offset.trim()}`;
    case "retention":
      return `/retention/${offset.trim()}`;
    default:
      return `/${e}`;
  }
}

// The console's words, each defined once in plain language. The glossary page lists them in
// this order; <Term> links the first use of a word on a page to its entry here, with the first
// sentence as its tooltip, so nobody meets "prefix count" or "floor" undefined.

export interface GlossaryEntry {
  term: string;
  /** The headers or names the term goes by on the wire, if any. */
  wire?: string;
  text: string;
  /** Ids of the entries worth reading next (glossary.test.ts checks that they exist). */
  see?: string[];
}

export const GLOSSARY = {
  stream: {
    term: "stream",
    text: "A named sequence of bytes at a URL such as /orders/run-42 that only ever grows at its end. Writers append to it; what was written never changes. Readers read it from any offset, or follow it live as it grows.",
    see: ["bucket", "offset", "tail"],
  },
  bucket: {
    term: "bucket",
    text: "The first part of a stream's path (orders in /orders/run-42): a namespace that groups streams. Access tokens are granted per bucket.",
  },
  message: {
    term: "message",
    text: "What an append adds, kept with its boundaries. On an application/json stream each element of the posted JSON array is one message; a commit of three events is three messages written together.",
    see: ["append"],
  },
  append: {
    term: "append",
    wire: "POST /{bucket}/{stream}",
    text: "A write that adds one or more messages at the tail. It commits all or nothing: either every message of the request is written, or none is.",
    see: ["stream-seq", "producer"],
  },
  offset: {
    term: "offset",
    wire: "Stream-Next-Offset",
    text: "A position in a stream, counted in bytes from its start and written as a 33-character token such as 0000000000000000_0000000000000042. A read starts at an offset, and every answer says the offset to read on from.",
  },
  tail: {
    term: "tail",
    text: "The end of a stream: the offset where the next append will land. A read that reaches it says so with Stream-Up-To-Date: true.",
    see: ["live-tail"],
  },
  "live-tail": {
    term: "live tail",
    wire: "SSE, long-poll",
    text: "Following a stream as it grows. A long-poll read waits at the tail for the next append; an SSE read keeps one connection open and is sent every append.",
  },
  "stream-seq": {
    term: "Stream-Seq",
    wire: "Stream-Seq, Stream-Last-Seq",
    text: "A value a writer may send with an append. The stream keeps the last one it accepted and takes an append carrying a new one only if it is bytewise greater; otherwise it answers 409, writes nothing, and says the stored value in Stream-Last-Seq.",
    see: ["bytewise", "prefix-count"],
  },
  bytewise: {
    term: "bytewise",
    text: "Compared byte by byte, like text, not like numbers: \"10\" comes before \"9\". Stream-Seq values that are numbers must be zero-padded to one fixed width, such as 20 digits.",
  },
  "prefix-count": {
    term: "prefix count",
    text: "The number of events a writer has read, from the start of the stream to its tail, sent as the Stream-Seq of its next append. If another writer appended in between, the count is too small and the append answers 409, so an accepted append was checked against the whole log before it.",
    see: ["n-plus-k", "stream-seq"],
  },
  "n-plus-k": {
    term: "n + k",
    text: "The retry after a Stream-Seq 409. The writer had read n events; another writer's commit added k more. It reads those k, checks its own commit against them, and appends again with the count n + k.",
  },
  producer: {
    term: "producer",
    wire: "Producer-Id, Producer-Seq",
    text: "A writer that names itself with Producer-Id and numbers its appends 0, 1, 2… with Producer-Seq. The stream remembers each producer's last number, so a retry of an append it already took is answered as a duplicate instead of being written twice.",
    see: ["duplicate", "epoch"],
  },
  duplicate: {
    term: "duplicate",
    text: "The answer to a retry of an append the stream already accepted from the same Producer-Id, Producer-Epoch and Producer-Seq: a success that writes nothing again. It makes a lost answer safe to retry.",
  },
  epoch: {
    term: "epoch",
    wire: "Producer-Epoch",
    text: "Which owner of a producer is writing. A new owner takes over with a higher epoch and numbers its appends from 0 again.",
    see: ["fencing"],
  },
  fencing: {
    term: "fencing",
    text: "Shutting out an old owner: once an append with the new epoch is accepted, appends with an older epoch answer 403, so a writer that lost ownership cannot write late.",
  },
  incarnation: {
    term: "incarnation",
    wire: "Stream-Incarnation",
    text: "One life of a stream. A stream deleted and recreated at the same URL is a new incarnation with a new token. Send the token you were given back with a request, and the server answers 412 with the new token instead of applying your offsets or producer state to a different stream.",
  },
  fork: {
    term: "fork",
    wire: "Stream-Forked-From",
    text: "A new stream that starts with another stream's bytes up to an offset and then grows on its own.",
  },
  snapshot: {
    term: "snapshot",
    wire: "PUT …/snapshot/{offset}",
    text: "A document published at an offset that stands for everything before it, such as the state and the event count so far. Readers can start from it instead of from the first message.",
    see: ["retention", "bootstrap"],
  },
  retention: {
    term: "retention",
    wire: "PUT …/retention/{offset}",
    text: "Deleting the start of a stream, up to an offset a snapshot covers, to free space. The offsets stay as they were; only the bytes before the floor are gone.",
    see: ["floor"],
  },
  floor: {
    term: "floor",
    wire: "Stream-Retained-Offset",
    text: "The first offset retention kept. A read from below the floor answers 410 Gone.",
  },
  bootstrap: {
    term: "bootstrap",
    wire: "GET …/bootstrap",
    text: "One request that answers the latest snapshot and every message after it, so a new reader can start after retention trimmed the stream.",
  },
  lifetime: {
    term: "TTL and expiry",
    wire: "Stream-TTL, Stream-Expires-At",
    text: "How long a stream lives unless deleted: Stream-TTL deletes it after that many seconds without use, Stream-Expires-At at a fixed time.",
  },
  closed: {
    term: "closed",
    wire: "Stream-Closed",
    text: "A stream that takes no more appends; an append answers 409 with Stream-Closed: true. It can still be read.",
  },
  subscription: {
    term: "subscription",
    wire: "…/__ds/subscriptions/{id}",
    text: "A standing request to be told when streams of a bucket are appended to, by a pattern (* is one path segment) or a list of streams. A webhook subscription POSTs each wake, signed, to a URL; a pull-wake one appends it to a wake stream for workers to claim.",
    see: ["wake"],
  },
  wake: {
    term: "wake",
    text: "A subscription's notice that its streams hold messages past what was acked, numbered by a generation. One is outstanding at a time; an answer naming another generation is refused (FENCED). A pull-wake worker's claim gives it a lease on the wake until the time shown.",
    see: ["subscription"],
  },
} satisfies Record<string, GlossaryEntry>;

export type GlossaryId = keyof typeof GLOSSARY;

export const GLOSSARY_IDS = Object.keys(GLOSSARY) as GlossaryId[];

/** The entry's first sentence: short enough for a tooltip. */
export function shortDefinition(id: GlossaryId): string {
  const text = GLOSSARY[id].text;
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

// An in-memory stand-in for the server, for unit tests of the lab state machines only. It
// follows the write-guard order of spec §5.1 for JSON streams (404, 412, producer, closed,
// content type, Stream-Seq), serves array-mode reads with max_bytes, and keeps one snapshot and
// a retained floor: reads below it answer 410, bootstrap answers multipart/mixed. Not used by
// the app; the labs run against the real binary in e2e/console-*.spec.ts.
import type { Exchange, HeaderList, ProtocolRequest } from "../../api/types";
import type { Transport } from "../transport";
import { offsetToken, offsetPosition } from "../../api/offsets";
import { parsePath } from "../../api/paths";

interface FakeStream {
  ct: string;
  msgs: string[];
  ends: number[]; // byte end of each message
  lastSeq: string | null;
  inc: string;
  closed: boolean;
  producers: Map<string, { epoch: number; seq: number; end: number }>;
  snapshot: { offset: number; ct: string; body: string; digest: string } | null;
  floor: number;
}

const BOUNDARY = "fake-boundary";

export function fakeServer() {
  const streams = new Map<string, FakeStream>();
  let inc = 100;
  let id = 0;
  const tail = (s: FakeStream) => s.ends[s.ends.length - 1] ?? 0;

  const transport: Transport = async (req: ProtocolRequest) => {
    const [path, qs] = req.path.split("?") as [string, string | undefined];
    const q = new URLSearchParams(qs ?? "");
    const h = (n: string) => req.headers.find(([k]) => k.toLowerCase() === n.toLowerCase())?.[1];
    const out = (status: number, headers: HeaderList = [], body = "", code?: string): Exchange => ({
      id: String(++id),
      origin: "http://fake",
      request: req,
      startedAt: 0,
      durationMs: 0,
      response: { status, statusText: "", headers, bodyText: code ? JSON.stringify({ error: { code, message: code } }) : body },
      errorCode: code,
    });
    const target = parsePath(path);
    if (target?.sub && target.streamPath) return subResource(req, target.streamPath, target.sub, target.arg, out);
    let s = streams.get(path);
    const incIn = h("Stream-Incarnation");
    if (req.method === "PUT") {
      if (s) return incIn && incIn !== s.inc ? out(412, [["stream-incarnation", s.inc]], "", "STREAM_INCARNATION_MISMATCH") : out(200, [["stream-incarnation", s.inc]]);
      if (incIn) return out(412, [], "", "STREAM_INCARNATION_MISMATCH");
      s = { ct: h("Content-Type") ?? "application/octet-stream", msgs: [], ends: [], lastSeq: h("Stream-Seq") ?? null, inc: String(++inc), closed: false, producers: new Map(), snapshot: null, floor: 0 };
      streams.set(path, s);
      return out(201, [["stream-incarnation", s.inc], ["stream-next-offset", offsetToken(0)]]);
    }
    if (!s) return out(404, [], "", "STREAM_NOT_FOUND");
    if (incIn && incIn !== s.inc) return out(412, [["stream-incarnation", s.inc]], "", "STREAM_INCARNATION_MISMATCH");
    const base: HeaderList = [["stream-incarnation", s.inc]];
    if (req.method === "DELETE") {
      streams.delete(path);
      return out(204);
    }
    if (req.method === "HEAD") return out(200, [...base, ["content-type", s.ct], ["stream-next-offset", offsetToken(tail(s))]]);
    if (req.method === "GET") {
      const o = q.get("offset") ?? "-1";
      const from = o === "-1" ? 0 : o === "now" ? tail(s) : offsetPosition(o)!;
      if (from < s.floor) return out(410, [["stream-earliest-offset", offsetToken(s.floor)], ["stream-next-offset", offsetToken(s.floor)]], "", "STREAM_GONE");
      const max = Number(q.get("max_bytes") ?? 1e9);
      const parts: string[] = [];
      let end = from;
      let used = 0;
      for (let i = 0; i < s.msgs.length; i++) {
        const start = i === 0 ? 0 : s.ends[i - 1]!;
        if (start < from) continue;
        const size = s.ends[i]! - start;
        if (parts.length && used + size > max) break;
        parts.push(s.msgs[i]!);
        used += size;
        end = s.ends[i]!;
      }
      const hs: HeaderList = [...base, ["content-type", s.ct], ["stream-next-offset", offsetToken(end)]];
      if (end === tail(s)) hs.push(["stream-up-to-date", "true"]);
      return out(200, hs, `[${parts.join(",")}]`);
    }
    // POST
    const pid = h("Producer-Id");
    let producer: { id: string; epoch: number; seq: number } | undefined;
    if (pid !== undefined) {
      const epoch = Number(h("Producer-Epoch"));
      const seq = Number(h("Producer-Seq"));
      const p = s.producers.get(pid);
      if (p && epoch < p.epoch) return out(403, [["producer-epoch", String(p.epoch)]], "", "PRODUCER_EPOCH_STALE");
      // A repeat of the newest write carries where it ended; an older one carries no offset.
      if (p && epoch === p.epoch && seq <= p.seq)
        return out(204, [...base, ["producer-epoch", String(p.epoch)], ["producer-seq", String(p.seq)], ...(seq === p.seq ? ([["stream-next-offset", offsetToken(p.end)]] as HeaderList) : [])]);
      const expected = !p || epoch > p.epoch ? 0 : p.seq + 1;
      if (seq !== expected) return out(409, [["producer-expected-seq", String(expected)], ["producer-received-seq", String(seq)]], "", "PRODUCER_SEQ_CONFLICT");
      producer = { id: pid, epoch, seq };
    }
    if (s.closed) return out(409, [["stream-closed", "true"]], "", "STREAM_CLOSED");
    if ((h("Content-Type") ?? "") !== s.ct) return out(409, [["stream-next-offset", offsetToken(tail(s))]], "", "CONTENT_TYPE_MISMATCH");
    const seq = h("Stream-Seq");
    if (seq !== undefined && s.lastSeq !== null && !(seq > s.lastSeq))
      return out(409, [["stream-next-offset", offsetToken(tail(s))], ["stream-last-seq", s.lastSeq]], "", "STREAM_SEQ_CONFLICT");
    const values = (JSON.parse(req.body ?? "null") as unknown[]).map((v) => JSON.stringify(v));
    for (const v of values) {
      s.msgs.push(v);
      s.ends.push(tail(s) + new TextEncoder().encode(v).length + 1);
    }
    if (seq !== undefined) s.lastSeq = seq;
    const hs: HeaderList = [...base, ["stream-next-offset", offsetToken(tail(s))]];
    if (producer) {
      s.producers.set(producer.id, { epoch: producer.epoch, seq: producer.seq, end: tail(s) });
      hs.push(["producer-epoch", String(producer.epoch)], ["producer-seq", String(producer.seq)]);
      return out(200, hs);
    }
    return out(204, hs);
  };

  const starts = (s: FakeStream) => [0, ...s.ends];

  function subResource(req: ProtocolRequest, path: string, sub: string, arg: string | null, out: (status: number, headers?: HeaderList, body?: string, code?: string) => Exchange): Exchange {
    const s = streams.get(path);
    if (!s) return out(404, [], "", "STREAM_NOT_FOUND");
    const base: HeaderList = [["stream-incarnation", s.inc]];
    const at = offsetPosition(arg);
    if (sub === "snapshot" && req.method === "PUT" && at !== undefined) {
      if (at < s.floor) return out(410, [], "", "STREAM_GONE");
      if (at > tail(s) || (s.snapshot && s.snapshot.offset > at)) return out(409, [], "", "SNAPSHOT_CONFLICT");
      if (!starts(s).includes(at)) return out(400, [], "", "INVALID_SNAPSHOT");
      const body = req.body ?? "";
      s.snapshot = { offset: at, ct: req.headers.find(([k]) => k.toLowerCase() === "content-type")?.[1] ?? "application/octet-stream", body, digest: `digest-${at}-${body.length}` };
      return out(204, [...base, ["stream-snapshot-offset", offsetToken(at)], ["stream-snapshot-digest", s.snapshot.digest]]);
    }
    if (sub === "retention" && req.method === "PUT" && at !== undefined) {
      if (at < s.floor || !s.snapshot || at > s.snapshot.offset) return out(409, [], "", "SNAPSHOT_CONFLICT");
      s.floor = at;
      return out(204, [...base, ["stream-retained-offset", offsetToken(at)]]);
    }
    if (sub === "bootstrap" && req.method === "GET") {
      const from = s.snapshot?.offset ?? s.floor;
      const parts = [`--${BOUNDARY}\r\nContent-Type: ${s.snapshot?.ct ?? "application/octet-stream"}\r\n\r\n${s.snapshot?.body ?? ""}\r\n`];
      s.msgs.forEach((m, i) => {
        if (starts(s)[i]! >= from) parts.push(`--${BOUNDARY}\r\nContent-Type: ${s.ct}\r\n\r\n${m}\r\n`);
      });
      const hs: HeaderList = [
        ...base,
        ["content-type", `multipart/mixed; boundary=${BOUNDARY}`],
        ["stream-snapshot-offset", s.snapshot ? offsetToken(s.snapshot.offset) : "-1"],
        ["stream-next-offset", offsetToken(tail(s))],
        ["stream-up-to-date", "true"],
      ];
      if (s.snapshot) hs.push(["stream-snapshot-digest", s.snapshot.digest]);
      return out(200, hs, `${parts.join("")}--${BOUNDARY}--\r\n`);
    }
    return out(405, [], "", "METHOD_NOT_ALLOWED");
  }

  return { transport, streams };
}

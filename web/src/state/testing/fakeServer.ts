// An in-memory stand-in for the server, for unit tests of the lab state machines only. It
// follows the write-guard order of spec §5.1 for JSON streams (404, 412, producer, closed,
// content type, Stream-Seq) and serves array-mode reads with max_bytes. Not used by the app.
import type { Exchange, HeaderList, ProtocolRequest } from "../../api/types";
import type { Transport } from "../transport";
import { offsetToken, offsetPosition } from "../../api/offsets";

interface FakeStream {
  ct: string;
  msgs: string[];
  ends: number[]; // byte end of each message
  lastSeq: string | null;
  inc: string;
  closed: boolean;
  producers: Map<string, { epoch: number; seq: number }>;
}

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
    let s = streams.get(path);
    const incIn = h("Stream-Incarnation");
    if (req.method === "PUT") {
      if (s) return incIn && incIn !== s.inc ? out(412, [["stream-incarnation", s.inc]], "", "STREAM_INCARNATION_MISMATCH") : out(200, [["stream-incarnation", s.inc]]);
      if (incIn) return out(412, [], "", "STREAM_INCARNATION_MISMATCH");
      s = { ct: h("Content-Type") ?? "application/octet-stream", msgs: [], ends: [], lastSeq: h("Stream-Seq") ?? null, inc: String(++inc), closed: false, producers: new Map() };
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
    if (req.method === "HEAD") return out(200, [...base, ["stream-next-offset", offsetToken(tail(s))]]);
    if (req.method === "GET") {
      const o = q.get("offset") ?? "-1";
      const from = o === "-1" ? 0 : o === "now" ? tail(s) : offsetPosition(o)!;
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
      const hs: HeaderList = [...base, ["stream-next-offset", offsetToken(end)]];
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
      if (p && epoch === p.epoch && seq <= p.seq) return out(204, [...base, ["producer-epoch", String(p.epoch)], ["producer-seq", String(p.seq)]]);
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
      s.producers.set(producer.id, { epoch: producer.epoch, seq: producer.seq });
      hs.push(["producer-epoch", String(producer.epoch)], ["producer-seq", String(producer.seq)]);
      return out(200, hs);
    }
    return out(204, hs);
  };
  return { transport, streams };
}

// An in-memory JSON stream for the message-window tests: the message index and NDJSON reads
// answered the way the server answers them. Not used by the app.
import type { IndexAt, MessageIndexPage, MessageMeta } from "../../api/introspection";
import type { ReadResult, WindowDeps } from "../messageWindow";

const utf8 = new TextEncoder();

export function fakeStream(texts: string[], atMs: (i: number) => number | null = (i) => 1000 + i * 10) {
  const metas: MessageMeta[] = [];
  const parts: Uint8Array[] = [];
  let pos = 0;
  texts.forEach((t, i) => {
    const b = utf8.encode(t + "\n");
    metas.push({ offset: pos, size: b.length, at_ms: atMs(i) });
    parts.push(b);
    pos += b.length;
  });
  const all = new Uint8Array(pos);
  let o = 0;
  for (const p of parts) (all.set(p, o), (o += p.length));
  const calls = { index: [] as IndexAt[], read: [] as [number, number][] };
  const tail = () => pos;

  const deps: WindowDeps = {
    async index(at, limit): Promise<{ ok: true; data: MessageIndexPage }> {
      calls.index.push(at);
      let list: MessageMeta[];
      if ("before" in at) {
        const before = metas.filter((m) => m.offset < at.before);
        list = before.slice(Math.max(0, before.length - limit));
      } else {
        const i = "from" in at ? metas.findIndex((m) => m.offset + m.size > at.from) : metas.findIndex((m) => (m.at_ms ?? -Infinity) >= at.atMs);
        list = i < 0 ? [] : metas.slice(i, i + limit);
      }
      const first = list[0];
      const last = list[list.length - 1];
      return {
        ok: true,
        data: {
          messages: list,
          tail_offset: tail(),
          has_before: first ? first.offset > 0 : metas.length > 0 && !("before" in at) && "atMs" in at,
          has_after: last ? last.offset + last.size < tail() : false,
        },
      };
    },
    async read(offset, maxBytes): Promise<ReadResult> {
      calls.read.push([offset, maxBytes]);
      const end = Math.min(tail(), offset + maxBytes);
      return { ok: true, bytes: all.slice(offset, end), next: end };
    },
  };
  return { deps, metas, calls, bytes: all };
}

// Incarnation lab (Ursula v0.9.0, Conditional Writes, §Guarding against a recreated stream): keep
// a token, delete and recreate the stream, replay an append, a read and a HEAD with the old token
// and get 412 carrying the new one; a missing stream still answers 404 with the header. Then start
// over the way the rule says: read the new stream from its start with the new token, and append.
// The client is an ursa-client UrsaStream: it keeps the token and sends it on every request, and
// a recreated stream throws IncarnationMismatch; the lab says what each answer meant.
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { IncarnationMismatch, StreamNotFound, UrsaStream } from "../api/ursaClient";
import { ScriptedLab, type LabOptions, type ScriptStep, type StepIO, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";
import type { LabLesson } from "./labLesson";
import { INCARNATION_CODE } from "./labCode";

export interface IncarnationCtx {
  path: string;
  missingPath: string;
  oldToken?: string;
  newToken?: string;
  /** The requests with the old token the server refused with 412 carrying the new one. */
  refused: string[];
  /** After starting over: what a read of the new stream from its start found, and the append with the new token. */
  restart?: { events: unknown[]; appended?: number };
}

const token = (ex: Exchange | undefined) => getHeader(ex?.response?.headers, "stream-incarnation");
const answered = (io: StepIO) => {
  const ex = io.exchanges.at(-1);
  return `${ex?.response?.status ?? ex?.networkError} ${ex?.errorCode ?? ""}`.trim();
};

/** A call the old token must make fail with 412 carrying the new token. */
async function expect412(ctx: IncarnationCtx, io: StepIO, what: string, call: () => Promise<unknown>): Promise<StepResult> {
  try {
    await call();
    return { ok: false, note: `expected 412, got ${answered(io)}` };
  } catch (error) {
    if (!(error instanceof IncarnationMismatch)) return { ok: false, note: `expected 412, got ${answered(io)}` };
    if (error.incarnation !== ctx.newToken) return { ok: false, note: `412, but it carries ${error.incarnation ?? "no token"} instead of the new ${ctx.newToken}` };
    ctx.refused.push(what);
    return { ok: true, note: `412: the ${what} was refused. It carries the new token ${error.incarnation}; start over from the new stream and keep it.` };
  }
}

/** A call that must answer 404, the token notwithstanding. */
async function expect404(io: StepIO, note: string, call: () => Promise<unknown>): Promise<StepResult> {
  try {
    await call();
  } catch (error) {
    if (error instanceof StreamNotFound) return { ok: true, note };
  }
  return { ok: false, note: `expected 404, got ${answered(io)}` };
}

export function incarnationSteps(): ScriptStep<IncarnationCtx>[] {
  // The client's stream keeps the token it saw; "someone else" is another client of the same URL.
  let client: UrsaStream | null = null;
  let other: UrsaStream | null = null;
  const mine = (ctx: IncarnationCtx, io: StepIO) => (client ??= new UrsaStream(ctx.path, { fetch: io.fetch }));
  const theirs = (ctx: IncarnationCtx, io: StepIO) => (other ??= new UrsaStream(ctx.path, { fetch: io.fetch }));
  const missing = (ctx: IncarnationCtx, io: StepIO, incarnation?: string) => new UrsaStream(ctx.missingPath, { fetch: io.fetch, incarnation });
  const JSON_STREAM = { contentType: "application/json" };
  return [
    {
      actor: "client",
      title: "Create the stream and keep its token",
      explain: "Every successful response that addresses a stream, except a DELETE, carries Stream-Incarnation. Keep it with whatever you derive from the stream.",
      expectStatus: 201,
      code: INCARNATION_CODE.create,
      run: async (ctx, io) => {
        const s = mine(ctx, io);
        const { created } = await s.create(JSON_STREAM);
        ctx.oldToken = s.incarnation ?? undefined;
        return created && ctx.oldToken
          ? { ok: true, note: `Created. Stream-Incarnation: ${ctx.oldToken} — the token we keep.` }
          : { ok: false, halt: true, note: `expected 201 with a token, got ${answered(io)}` };
      },
    },
    {
      actor: "client",
      title: "Append with the kept token",
      explain: "Sent back as a request header, the token is compared for equality with the stream's current incarnation, atomically with the write.",
      expectStatus: 204,
      code: INCARNATION_CODE.append,
      run: async (ctx, io) => {
        await mine(ctx, io).append([{ step: "first life" }]);
        return { ok: true, note: "Accepted: the token matches the stream's incarnation." };
      },
    },
    {
      actor: "someone else",
      title: "Delete the stream",
      explain: "DELETE ends the incarnation. Its 204 carries no Stream-Incarnation: there is no stream left to name.",
      expectStatus: 204,
      code: INCARNATION_CODE.delete,
      run: async (ctx, io) => {
        await theirs(ctx, io).delete();
        const none = token(io.exchanges.at(-1)) === undefined;
        return { ok: none, note: none ? "Deleted; no Stream-Incarnation on a DELETE." : "Deleted, but the 204 carried Stream-Incarnation" };
      },
    },
    {
      actor: "someone else",
      title: "Recreate it at the same URL",
      explain: "A PUT after a delete starts a new incarnation. Stream-Seq and producer state start empty, so they cannot tell you the stream you knew is gone. The token can.",
      expectStatus: 201,
      code: INCARNATION_CODE.recreate,
      run: async (ctx, io) => {
        const s = theirs(ctx, io);
        const { created } = await s.create(JSON_STREAM);
        ctx.newToken = s.incarnation ?? undefined;
        if (!created) return { ok: false, halt: true, note: `expected 201, got ${answered(io)}` };
        return ctx.newToken && ctx.newToken !== ctx.oldToken
          ? { ok: true, note: `Recreated with a new token ${ctx.newToken} (was ${ctx.oldToken}).` }
          : { ok: false, note: `the new incarnation reuses token ${ctx.newToken}` };
      },
    },
    {
      actor: "client",
      title: "Replay the append with the old token",
      explain: "A refused write applies nothing: the append does not land in a stream the client never read.",
      expectStatus: 412,
      code: INCARNATION_CODE.replayAppend,
      run: (ctx, io) => expect412(ctx, io, "append", () => mine(ctx, io).append([{ step: "replayed" }])),
    },
    {
      actor: "client",
      title: "Read with the old token",
      explain: "Reads honour the header too (catch-up, long-poll and SSE), so cached offsets are never applied to the new stream.",
      expectStatus: 412,
      code: INCARNATION_CODE.replayRead,
      run: (ctx, io) => expect412(ctx, io, "read", () => mine(ctx, io).readToTail()),
    },
    {
      actor: "client",
      title: "HEAD with the old token",
      explain: "HEAD is the cheap way to check a kept token before doing anything else.",
      expectStatus: 412,
      code: INCARNATION_CODE.replayHead,
      run: (ctx, io) => expect412(ctx, io, "HEAD", () => mine(ctx, io).head()),
    },
    {
      actor: "client",
      title: "Read a missing stream with the token",
      explain: "A request that would answer 404 without the header still does: the header never turns “missing” into 412.",
      expectStatus: 404,
      code: INCARNATION_CODE.missingRead,
      run: (ctx, io) => expect404(io, "404 STREAM_NOT_FOUND, although the request carried Stream-Incarnation.", () => missing(ctx, io, ctx.oldToken).readToTail()),
    },
    {
      actor: "client",
      title: "PUT a missing stream with the token",
      explain: "The one exception: a PUT with the header for a missing stream answers 412 and creates nothing.",
      expectStatus: 412,
      code: INCARNATION_CODE.missingPut,
      run: async (ctx, io) => {
        try {
          await missing(ctx, io, ctx.oldToken).create(JSON_STREAM);
        } catch (error) {
          if (error instanceof IncarnationMismatch) return { ok: true, note: "412: the PUT was refused because the token names a stream that is not there." };
        }
        return { ok: false, note: `expected 412, got ${answered(io)}` };
      },
    },
    {
      actor: "client",
      title: "Check that nothing was created",
      explain: "HEAD without the header: still 404.",
      expectStatus: 404,
      code: INCARNATION_CODE.missingHead,
      run: (ctx, io) => expect404(io, "404: the refused PUT created nothing.", () => missing(ctx, io).head()),
    },
    {
      actor: "client",
      title: "Start over: keep the new token and read the new stream from its start",
      explain: "Discard what was derived from the old stream (offsets, producer state, cache) and read the new one from offset=-1, with its token.",
      expectStatus: 200,
      code: INCARNATION_CODE.startOver,
      run: async (ctx, io) => {
        const s = mine(ctx, io);
        s.startOver(ctx.newToken);
        let events: unknown[];
        try {
          events = (await s.readToTail()).messages;
        } catch {
          return { ok: false, halt: true, note: `expected 200, got ${answered(io)}` };
        }
        ctx.restart = { events };
        return events.length === 0
          ? { ok: true, note: "200, and empty: the first life's event went with the old stream, and the replayed append never landed." }
          : { ok: false, note: `the new stream holds ${events.length} event(s): ${JSON.stringify(events)}` };
      },
    },
    {
      actor: "client",
      title: "Append to the new stream with the new token",
      explain: "With the new token the client acts on the stream it has now read: the guard passes.",
      expectStatus: 204,
      code: INCARNATION_CODE.appendNew,
      run: async (ctx, io) => {
        try {
          await mine(ctx, io).append([{ step: "second life" }]);
        } catch {
          // The verdict says what the answer was.
        }
        const status = io.exchanges.at(-1)?.response?.status;
        if (ctx.restart) ctx.restart.appended = status;
        return status === 204 ? { ok: true, note: "Accepted: the client started over and works with the new stream." } : { ok: false, note: `expected 204, got ${answered(io)}` };
      },
    },
  ];
}

export function createIncarnationLab(transport: Transport, bucket: string, { name = () => `inc-${Date.now().toString(36)}`, cleanup }: LabOptions = {}) {
  return new ScriptedLab<IncarnationCtx>(
    transport,
    () => {
      const n = name();
      return { path: `/${bucket}/${n}`, missingPath: `/${bucket}/${n}-missing`, refused: [] };
    },
    incarnationSteps,
    cleanup,
  );
}

/** The verdict, from the refusals the server gave the old token and what starting over found. */
export function incarnationLesson(ctx: IncarnationCtx): LabLesson {
  const restarted = ctx.restart !== undefined && ctx.restart.events.length === 0 && ctx.restart.appended === 204;
  const ok = ctx.refused.length === 3 && restarted;
  const remember = "Keep Stream-Incarnation with everything you derive from a stream and send it back. A 412 means start over: drop offsets, producer state and cache, read the new stream from its start, keep the new token.";
  if (!ok)
    return {
      ok,
      happened: `${ctx.refused.length} of 3 requests with the old token were refused with 412 and the new token${restarted ? "" : "; starting over did not go as planned"}.`,
      prevented: ctx.refused.length === 3 ? "The old token's requests were refused." : "Not every request with the old token was refused.",
      remember,
    };
  return {
    ok,
    happened: `The client kept token ${ctx.oldToken}. Someone deleted the stream and recreated it at the same URL (token ${ctx.newToken}). Its ${ctx.refused.slice(0, -1).join(", ")} and ${ctx.refused.at(-1)} with the old token each answered 412 with the new token. It started over: the new stream was empty, and its append with the new token was accepted.`,
    prevented: "Acting on a stranger: the replayed append would have landed in a stream the client had never read, and its offsets would have been applied to another stream. Stream-Seq and producer state could not tell: they start empty with the new stream.",
    remember,
  };
}

// Incarnation lab (Ursula v0.9.0, Conditional Writes, §Guarding against a recreated stream): keep
// a token, delete and recreate the stream, replay an append, a read and a HEAD with the old token
// and get 412 carrying the new one; a missing stream still answers 404 with the header. Then start
// over the way the rule says: read the new stream from its start with the new token, and append.
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { ScriptedLab, type LabOptions, type ScriptStep, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";
import type { LabLesson } from "./labLesson";

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

const token = (ex: Exchange) => getHeader(ex.response?.headers, "stream-incarnation");

function expect412(ctx: IncarnationCtx, ex: Exchange, what: string): StepResult {
  const got = token(ex);
  if (ex.response?.status !== 412) return { ok: false, note: `expected 412, got ${ex.response?.status ?? ex.networkError}` };
  if (got !== ctx.newToken) return { ok: false, note: `412, but it carries ${got ?? "no token"} instead of the new ${ctx.newToken}` };
  ctx.refused.push(what);
  return { ok: true, note: `412: the ${what} was refused. It carries the new token ${got}; start over from the new stream and keep it.` };
}

export function incarnationSteps(): ScriptStep<IncarnationCtx>[] {
  const withOld = (ctx: IncarnationCtx): [string, string][] => [["Stream-Incarnation", ctx.oldToken ?? ""]];
  return [
    {
      actor: "client",
      title: "Create the stream and keep its token",
      explain: "Every successful response that addresses a stream, except a DELETE, carries Stream-Incarnation. Keep it with whatever you derive from the stream.",
      expectStatus: 201,
      build: (ctx) => ({ method: "PUT", path: ctx.path, headers: [["Content-Type", "application/json"]] }),
      after: (ctx, ex) => {
        ctx.oldToken = token(ex);
        return ex.response?.status === 201 && ctx.oldToken
          ? { ok: true, note: `Created. Stream-Incarnation: ${ctx.oldToken} — the token we keep.` }
          : { ok: false, halt: true, note: `expected 201 with a token, got ${ex.response?.status}` };
      },
    },
    {
      actor: "client",
      title: "Append with the kept token",
      explain: "Sent back as a request header, the token is compared for equality with the stream's current incarnation, atomically with the write.",
      expectStatus: 204,
      okNote: "Accepted: the token matches the stream's incarnation.",
      build: (ctx) => ({ method: "POST", path: ctx.path, headers: [["Content-Type", "application/json"], ...withOld(ctx)], body: '[{"step":"first life"}]' }),
    },
    {
      actor: "someone else",
      title: "Delete the stream",
      explain: "DELETE ends the incarnation. Its 204 carries no Stream-Incarnation: there is no stream left to name.",
      expectStatus: 204,
      build: (ctx) => ({ method: "DELETE", path: ctx.path, headers: [] }),
      after: (_ctx, ex) =>
        ex.response?.status === 204
          ? { ok: token(ex) === undefined, note: token(ex) === undefined ? "Deleted; no Stream-Incarnation on a DELETE." : "Deleted, but the 204 carried Stream-Incarnation" }
          : { ok: false, halt: true, note: `expected 204, got ${ex.response?.status}` },
    },
    {
      actor: "someone else",
      title: "Recreate it at the same URL",
      explain: "A PUT after a delete starts a new incarnation. Stream-Seq and producer state start empty, so they cannot tell you the stream you knew is gone. The token can.",
      expectStatus: 201,
      build: (ctx) => ({ method: "PUT", path: ctx.path, headers: [["Content-Type", "application/json"]] }),
      after: (ctx, ex) => {
        ctx.newToken = token(ex);
        if (ex.response?.status !== 201) return { ok: false, halt: true, note: `expected 201, got ${ex.response?.status}` };
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
      build: (ctx) => ({ method: "POST", path: ctx.path, headers: [["Content-Type", "application/json"], ...withOld(ctx)], body: '[{"step":"replayed"}]' }),
      after: (ctx, ex) => expect412(ctx, ex, "append"),
    },
    {
      actor: "client",
      title: "Read with the old token",
      explain: "Reads honour the header too (catch-up, long-poll and SSE), so cached offsets are never applied to the new stream.",
      expectStatus: 412,
      build: (ctx) => ({ method: "GET", path: `${ctx.path}?offset=-1`, headers: withOld(ctx) }),
      after: (ctx, ex) => expect412(ctx, ex, "read"),
    },
    {
      actor: "client",
      title: "HEAD with the old token",
      explain: "HEAD is the cheap way to check a kept token before doing anything else.",
      expectStatus: 412,
      build: (ctx) => ({ method: "HEAD", path: ctx.path, headers: withOld(ctx) }),
      after: (ctx, ex) => expect412(ctx, ex, "HEAD"),
    },
    {
      actor: "client",
      title: "Read a missing stream with the token",
      explain: "A request that would answer 404 without the header still does: the header never turns “missing” into 412.",
      expectStatus: 404,
      okNote: "404 STREAM_NOT_FOUND, although the request carried Stream-Incarnation.",
      build: (ctx) => ({ method: "GET", path: `${ctx.missingPath}?offset=-1`, headers: withOld(ctx) }),
    },
    {
      actor: "client",
      title: "PUT a missing stream with the token",
      explain: "The one exception: a PUT with the header for a missing stream answers 412 and creates nothing.",
      expectStatus: 412,
      okNote: "412: the PUT was refused because the token names a stream that is not there.",
      build: (ctx) => ({ method: "PUT", path: ctx.missingPath, headers: [["Content-Type", "application/json"], ...withOld(ctx)] }),
    },
    {
      actor: "client",
      title: "Check that nothing was created",
      explain: "HEAD without the header: still 404.",
      expectStatus: 404,
      okNote: "404: the refused PUT created nothing.",
      build: (ctx) => ({ method: "HEAD", path: ctx.missingPath, headers: [] }),
    },
    {
      actor: "client",
      title: "Start over: keep the new token and read the new stream from its start",
      explain: "Discard what was derived from the old stream (offsets, producer state, cache) and read the new one from offset=-1, with its token.",
      expectStatus: 200,
      build: (ctx) => ({ method: "GET", path: `${ctx.path}?offset=-1`, headers: [["Stream-Incarnation", ctx.newToken ?? ""]] }),
      after: (ctx, ex) => {
        if (ex.response?.status !== 200) return { ok: false, halt: true, note: `expected 200, got ${ex.response?.status ?? ex.networkError} ${ex.errorCode ?? ""}` };
        const events = JSON.parse(ex.response.bodyText || "[]") as unknown[];
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
      build: (ctx) => ({ method: "POST", path: ctx.path, headers: [["Content-Type", "application/json"], ["Stream-Incarnation", ctx.newToken ?? ""]], body: '[{"step":"second life"}]' }),
      after: (ctx, ex) => {
        if (ctx.restart) ctx.restart.appended = ex.response?.status;
        return ex.response?.status === 204
          ? { ok: true, note: "Accepted: the client started over and works with the new stream." }
          : { ok: false, note: `expected 204, got ${ex.response?.status ?? ex.networkError} ${ex.errorCode ?? ""}` };
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

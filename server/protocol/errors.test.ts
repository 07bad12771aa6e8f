import { describe, expect, test } from "bun:test";
import { fail, protocolError, type ProtocolError } from "./errors";

// The lines marked @ts-expect-error are the test: `npx tsc -b` (npm test's typecheck) fails if
// any of them compiles, that is, if a code could be given a context it never renders.
describe("an error's context is typed by its code", () => {
  test("a code carries exactly the fields it renders", () => {
    const closed = protocolError("STREAM_CLOSED", "closed", { closed: true, nextOffset: 4, incarnation: "1" });
    expect(closed.context).toEqual({ closed: true, nextOffset: 4, incarnation: "1" });
    // @ts-expect-error a 404 carries no context
    protocolError("STREAM_NOT_FOUND", "missing", { nextOffset: 1 });
    // @ts-expect-error a 405 must say what is allowed
    protocolError("METHOD_NOT_ALLOWED", "no");
    // @ts-expect-error Stream-Last-Seq belongs to the Stream-Seq 409 alone (spec §5.2)
    protocolError("STREAM_CLOSED", "closed", { closed: true, nextOffset: 4, incarnation: "1", lastSeq: "a" });
    // @ts-expect-error a soft-deleted path says whether a create met it (409) or not (410)
    protocolError("STREAM_SOFT_DELETED", "deleted");
    // @ts-expect-error a context is given for one known code, not for one of several
    fail("STREAM_NOT_FOUND" as "STREAM_NOT_FOUND" | "OFFSET_OUT_OF_RANGE", "x", { nextOffset: 1 });
  });

  test("narrowing the code narrows the context", () => {
    const e: ProtocolError = protocolError("STREAM_SEQ_CONFLICT", "seq", { nextOffset: 2, lastSeq: "b", incarnation: "1" });
    const lastSeq: string | undefined = e.code === "STREAM_SEQ_CONFLICT" ? e.context.lastSeq : undefined;
    expect(lastSeq).toBe("b");
    // Fields a code never carries read as absent.
    expect(protocolError("STREAM_NOT_FOUND", "missing").context.nextOffset).toBeUndefined();
  });
});

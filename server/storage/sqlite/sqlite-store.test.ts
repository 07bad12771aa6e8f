import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CreateRequest } from "../../protocol/create";
import { createRequest } from "../../protocol/testing-state";
import { inTempDir } from "../../testing/temp-dir";
import { DatabaseInUseError } from "./database-lock";
import { SqliteStore } from "./sqlite-store";

const create = (name: string, overrides: Partial<CreateRequest> = {}) =>
  createRequest({ bucket: "store-t", name, contentType: "text/plain", ...overrides });
const bytes = (s: string) => new TextEncoder().encode(s);

describe("SqliteStore on disk", () => {
  test("everything acknowledged is there after reopening: bytes, Stream-Seq, producers, closure, incarnation", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      let store = new SqliteStore({ path, sync: "full" });
      const created = await store.create("store-t/a", create("a", { streamSeq: "001" }));
      expect(created.kind).toBe("created");
      const req = { contentType: "text/plain", messages: [bytes("hello")], close: false, streamSeq: "002", producer: { id: "p", epoch: 3, seq: 0 }, incarnation: null };
      expect((await store.append("store-t/a", req)).kind).toBe("accepted");
      expect((await store.append("store-t/a", { ...req, messages: [], contentType: null, close: true, streamSeq: null, producer: null })).kind).toBe("accepted");
      const before = (await store.get("store-t/a"))!;
      await store.close();

      store = new SqliteStore({ path, sync: "full" });
      const after = (await store.get("store-t/a"))!;
      expect(after).toMatchObject({ tail: 5, closed: true, lastSeq: "002", incarnation: before.incarnation, messageCount: 1 });
      expect(after.producers.get("p")).toMatchObject({ epoch: 3, lastSeq: 0, lastStart: 0, lastNext: 5 });
      expect(new TextDecoder().decode((await store.readRange(after, 0, 100, false)).chunks[0])).toBe("hello");
      // A new incarnation after reopening is still strictly greater than every earlier one.
      await store.delete("store-t/a", null);
      const again = await store.create("store-t/a", create("a"));
      expect(again.kind === "created" && BigInt(again.state.incarnation) > BigInt(before.incarnation)).toBe(true);
      await store.close();
    });
  });

  test("the live stream count follows creates, deletes and soft deletes, and survives reopening", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      let store = new SqliteStore({ path, sync: "full" });
      for (const name of ["a", "b", "c"]) await store.create(`store-t/${name}`, create(name));
      await store.append("store-t/a", { contentType: "text/plain", messages: [bytes("x")], close: false, streamSeq: null, producer: null, incarnation: null });
      await store.create("store-t/f", create("f", { fork: { sourceKey: "store-t/a", offset: null, subOffset: null } }));
      expect((await store.counts()).streams).toBe(4);
      await store.delete("store-t/a", null); // soft: its fork still holds its bytes
      await store.delete("store-t/b", null);
      expect((await store.counts()).streams).toBe(2);
      await store.close();
      store = new SqliteStore({ path, sync: "full" });
      expect((await store.counts()).streams).toBe(2);
      await store.delete("store-t/f", null); // the last fork takes its soft-deleted source with it
      expect((await store.counts()).streams).toBe(1);
      await store.close();
    });
  });

  test("a second store on the same database is refused while the first is open, and opens once it is closed", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      const first = new SqliteStore({ path, sync: "full" });
      expect(() => new SqliteStore({ path, sync: "full" })).toThrow(DatabaseInUseError);
      await first.create("store-t/a", create("a"));
      await first.close();
      const second = new SqliteStore({ path, sync: "full" });
      expect(await second.get("store-t/a")).toBeDefined();
      await second.close();
    });
  });
});

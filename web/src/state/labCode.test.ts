// The code a lab step shows must be ursa-client's real API: every class it constructs, function
// it calls, error it checks and method it calls on a package object exists in the package.
import { describe, expect, test } from "bun:test";
import * as client from "../api/ursaClient";
import { COMPACTION_CODE, INCARNATION_CODE, OUTBOX_CODE, RACE_CODE } from "./labCode";

const TABLES = { RACE_CODE, OUTBOX_CODE, INCARNATION_CODE, COMPACTION_CODE };
const exported = client as unknown as Record<string, unknown>;
const methods = new Set(
  [client.UrsaStream, client.PrefixCountWriter, client.OutboxPublisher].flatMap((c) => Object.getOwnPropertyNames(c.prototype)),
);
/** Names in the snippets that are the user's own code, not the package's. */
const USERS_OWN = new Set(["decide", "validate", "fold", "stopPublishing"]);

describe("lab code tables", () => {
  for (const [name, table] of Object.entries(TABLES)) {
    test(`${name}: every package name a step shows exists in ursa-client`, () => {
      for (const [step, text] of Object.entries(table)) {
        // Comments explain in words; only the code must be the package's.
        const code = text.replace(/\/\/.*$/gm, "").replace(/\/\*.*?\*\//g, "");
        const constructed = [...code.matchAll(/new (\w+)\(/g)].map((m) => m[1]!);
        const checked = [...code.matchAll(/instanceof (\w+)/g)].map((m) => m[1]!);
        for (const cls of [...constructed, ...checked]) expect(typeof exported[cls], `${name}.${step}: ${cls}`).toBe("function");
        const called = [...code.matchAll(/(?<![.\w])(\w+)\(/g)].map((m) => m[1]!).filter((f) => !USERS_OWN.has(f) && !constructed.includes(f) && f !== "catch" && f !== "if");
        for (const fn of called) expect(typeof exported[fn], `${name}.${step}: ${fn}()`).toBe("function");
        const onObjects = [...code.matchAll(/\.(\w+)\(/g)].map((m) => m[1]!);
        for (const m of onObjects) expect(methods.has(m), `${name}.${step}: .${m}()`).toBe(true);
      }
    });
  }

  test("each step names at least one package call", () => {
    for (const table of Object.values(TABLES))
      for (const code of Object.values(table)) expect(code.replace(/\/\/.*$/gm, "")).toMatch(/new \w+\(|\.\w+\(|await \w+\(/);
  });
});

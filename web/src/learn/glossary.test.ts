import { describe, expect, test } from "bun:test";
import { GLOSSARY, GLOSSARY_IDS, shortDefinition } from "./glossary";

describe("glossary", () => {
  test("every cross-reference names an entry", () => {
    for (const id of GLOSSARY_IDS) for (const see of (GLOSSARY[id] as { see?: string[] }).see ?? []) expect({ id, see, exists: see in GLOSSARY }).toEqual({ id, see, exists: true });
  });

  test("ids can be URL fragments as they are", () => {
    for (const id of GLOSSARY_IDS) expect(id).toMatch(/^[a-z][a-z-]*$/);
  });

  test("a tooltip is the first sentence, whole", () => {
    expect(shortDefinition("floor")).toBe("The first offset retention kept.");
    expect(shortDefinition("bytewise")).toBe('Compared byte by byte, like text, not like numbers: "10" comes before "9".');
    for (const id of GLOSSARY_IDS) {
      const s = shortDefinition(id);
      expect(s.endsWith(".")).toBe(true);
      expect(GLOSSARY[id].text.startsWith(s)).toBe(true);
    }
  });
});

import { describe, expect, test } from "bun:test";
import { hostUrls, withoutPassword } from "./hosts";

describe("hosts of a --postgres URL", () => {
  test("a libpq-style host list becomes one URL per host, user, database and options kept", () => {
    expect(hostUrls("postgres://u:pw@h1:5432,h2:5433/db?sslmode=disable")).toEqual([
      "postgres://u:pw@h1:5432/db?sslmode=disable",
      "postgres://u:pw@h2:5433/db?sslmode=disable",
    ]);
    expect(hostUrls("postgresql://10.0.0.1,10.0.0.2:6000/ursa")).toEqual(["postgresql://10.0.0.1/ursa", "postgresql://10.0.0.2:6000/ursa"]);
  });

  test("a URL with one host, or one that is no URL, is kept as it is", () => {
    expect(hostUrls("postgres://u@h:5432/db")).toEqual(["postgres://u@h:5432/db"]);
    expect(hostUrls("not a url")).toEqual(["not a url"]);
  });

  test("a password is hidden, whatever the number of hosts", () => {
    expect(withoutPassword("postgres://u:secret@h1:1,h2:2/db")).toBe("postgres://u:***@h1:1,h2:2/db");
    expect(withoutPassword("postgres://u@h/db")).toBe("postgres://u@h/db");
    expect(withoutPassword("mysql://x")).toBe("postgres (unparsable URL)");
  });
});

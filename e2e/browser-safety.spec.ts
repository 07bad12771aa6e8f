// Attacks a web page can make on an ursa running next to the browser, made by pages on other
// local origins in Chromium: a page on http://localhost:P (another site than 127.0.0.1) and one on
// http://127.0.0.1:P (the same site, another origin). Each tries to read, write with and without
// a preflight, post a form, and delete; the server's state is then checked over HTTP, not from
// what the page saw. Then: stream bytes served as HTML or SVG cannot script the console's origin,
// and the console runs under its own strict CSP.
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures.ts";
import { pageServer, type PageServer } from "./page-server.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

type Outcome = { ok: boolean; status: number; body: string } | { error: string };

/** Runs fetches from the attacker page; each outcome is what the page could see. */
async function attack(page: Page, target: string, token?: string, remove = true): Promise<Record<string, Outcome>> {
  return page.evaluate(
    async ({ target, token, remove }) => {
      const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
      const tries: Record<string, () => Promise<Response>> = {
        read: () => fetch(`${target}/demo/s1?offset=-1`, { headers: auth }),
        listing: () => fetch(`${target}/__ursula/api/buckets`, { headers: auth }),
        info: () => fetch(`${target}/__ursula/api/info`, { headers: auth }),
        // application/json is not a simple content type: the browser asks first.
        "write-json": () => fetch(`${target}/demo/s1`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: '"json"' }),
        // A simple request: no preflight, so only the server can refuse it. (no-cors allows only
        // GET, HEAD and POST, and strips every header but the simple ones.)
        "write-no-cors": () => fetch(`${target}/demo/t1`, { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: "nocors" }),
        create: () => fetch(`${target}/demo/created`, { method: "PUT", headers: { ...auth, "Content-Type": "text/plain" }, body: "c" }),
        ...(remove ? { delete: () => fetch(`${target}/demo/s1`, { method: "DELETE", headers: auth }) } : {}),
      };
      const out: Record<string, unknown> = {};
      for (const [name, run] of Object.entries(tries)) {
        try {
          const r = await run();
          out[name] = { ok: r.ok, status: r.status, body: r.type === "opaque" ? "" : await r.text() };
        } catch (e) {
          out[name] = { error: String(e) };
        }
      }
      // A form post is a navigation: no CORS at all, only the server can refuse it.
      const frame = document.createElement("iframe");
      frame.name = `sink-${Math.random()}`;
      document.body.append(frame);
      const form = Object.assign(document.createElement("form"), { method: "POST", action: `${target}/demo/t1`, enctype: "text/plain", target: frame.name });
      form.append(Object.assign(document.createElement("input"), { name: "form", value: "post" }));
      document.body.append(form);
      // A 204 does not navigate, so the frame may never load: give the post a moment instead.
      const loaded = new Promise((r) => frame.addEventListener("load", r, { once: true }));
      form.submit();
      await Promise.race([loaded, new Promise((r) => setTimeout(r, 1500))]);
      return out as Record<string, Outcome>;
    },
    { target, token, remove },
  );
}

/** s1, a JSON stream, takes the preflighted writes; t1, a text stream, the simple ones. */
async function seed(u: UrsaProcess, headers: Record<string, string> = {}) {
  const json = await fetch(`${u.url}/demo/s1`, { method: "PUT", headers: { "Content-Type": "application/json", ...headers }, body: '["hello"]' });
  const text = await fetch(`${u.url}/demo/t1`, { method: "PUT", headers: { "Content-Type": "text/plain", ...headers }, body: "hello" });
  expect([json.status, text.status]).toEqual([201, 201]);
}

const HELLO = '["hello"]';

const streamText = async (u: UrsaProcess, path = "/demo/s1") => {
  const r = await fetch(`${u.url}${path}?offset=-1`);
  return r.status === 200 ? r.text() : r.status;
};

test.describe("a page on another origin", () => {
  let site: PageServer;
  let trustedSite: PageServer;
  let plain: UrsaProcess;
  let listing: UrsaProcess;
  let tokened: UrsaProcess;
  const TOKEN = "page-given-token-0123456789";

  test.beforeAll(async () => {
    site = await pageServer();
    trustedSite = await pageServer();
    plain = await startUrsa();
    listing = await startUrsa({ args: ["--cors-origins", `http://localhost:${trustedSite.port}`] });
    tokened = await startUrsa({ args: ["--token", TOKEN] });
  });
  test.afterAll(async () => {
    for (const u of [plain, listing, tokened]) {
      await u.stop();
      u.cleanup();
    }
    await site.close();
    await trustedSite.close();
  });

  for (const origin of ["localhost", "127.0.0.1"] as const) {
    test(`on ${origin} (${origin === "localhost" ? "another site" : "the same site"}) may read streams, and nothing else`, async ({ page }) => {
      await seed(plain);
      await page.goto(`http://${origin}:${site.port}/`);
      const out = await attack(page, plain.url);
      expect(out.read).toEqual({ ok: true, status: 200, body: HELLO });
      for (const denied of ["listing", "info", "write-json", "create", "delete"]) expect([denied, "error" in out[denied]!]).toEqual([denied, true]);
      // The server's state, asked over HTTP: nothing was written, created or deleted.
      expect(await streamText(plain)).toBe(HELLO);
      expect(await streamText(plain, "/demo/t1")).toBe("hello");
      expect(await streamText(plain, "/demo/created")).toBe(404);
      for (const s of ["s1", "t1"]) expect((await fetch(`${plain.url}/demo/${s}`, { method: "DELETE" })).status).toBe(204);
    });
  }

  test("listed with --cors-origins may write and delete; an unlisted one still may not", async ({ page }) => {
    await seed(listing);
    await page.goto(`http://localhost:${trustedSite.port}/`);
    const trusted = await attack(page, listing.url);
    expect(trusted["write-json"]).toMatchObject({ ok: true, status: 204 });
    expect(trusted.create).toMatchObject({ ok: true, status: 201 });
    expect(trusted.listing).toMatchObject({ ok: true, status: 200 });
    expect(trusted.delete).toMatchObject({ ok: true, status: 204 });
    expect(await streamText(listing)).toBe(404);
    // The form's 204 does not load its frame, so its arrival is waited for here.
    await expect.poll(() => streamText(listing, "/demo/t1")).toBe("hellonocorsform=post\r\n");

    expect((await fetch(`${listing.url}/demo/t1`, { method: "DELETE" })).status).toBe(204);
    await seed(listing);
    await page.goto(`http://localhost:${site.port}/`);
    const other = await attack(page, listing.url);
    expect("error" in other.read!).toBe(true);
    expect(await streamText(listing)).toBe(HELLO);
  });

  test("carrying a valid bearer token may write as the token allows; without it, or with a simple request, it may not", async ({ page }) => {
    await seed(tokened, { Authorization: `Bearer ${TOKEN}` });
    await page.goto(`http://localhost:${site.port}/`);
    const anonymous = await attack(page, tokened.url);
    expect(anonymous.read).toMatchObject({ ok: false, status: 401 });
    const read = () => fetch(`${tokened.url}/demo/s1?offset=-1`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.text());
    expect(await read()).toBe(HELLO);
    const text = () => fetch(`${tokened.url}/demo/t1?offset=-1`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then((r) => r.text());
    const given = await attack(page, tokened.url, TOKEN, false);
    expect(given.read).toEqual({ ok: true, status: 200, body: HELLO });
    expect(given["write-json"]).toMatchObject({ ok: true, status: 204 });
    expect(given.create).toMatchObject({ ok: true, status: 201 });
    // The no-cors requests and the form carry no token: refused.
    expect(await read()).toBe('["hello","json"]');
    expect(await text()).toBe("hello");
    // The token may delete too: the page was given it.
    expect((await attack(page, tokened.url, TOKEN)).delete).toMatchObject({ ok: true, status: 204 });
    expect(await read()).toContain("STREAM_NOT_FOUND");
    expect("error" in given.listing!).toBe(true);
  });
});

test.describe("stream bytes opened in the browser", () => {
  for (const [type, body] of [
    ["text/html", `<!doctype html><p id="p">page</p><script>SCRIPT</script>`],
    ["image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>SCRIPT</script></svg>`],
  ] as const) {
    test(`${type}: its script does not run as the console's origin`, async ({ page, ursa }) => {
      const name = type === "text/html" ? "html" : "svg";
      const marker = `/xss-test/marker-${name}`;
      const script = `document.title = "pwned"; fetch("/__ursula/api/info").then((r) => r.text()).then((t) => fetch("${marker}", { method: "PUT", headers: { "Content-Type": "text/plain" }, body: t }));`;
      const created = await fetch(`${ursa.url}/xss-test/${name}`, { method: "PUT", headers: { "Content-Type": type }, body: body.replace("SCRIPT", script) });
      expect(created.status).toBe(201);
      const blocked: string[] = [];
      page.on("console", (m) => blocked.push(m.text()));
      const res = await page.goto(`${ursa.url}/xss-test/${name}?offset=-1`);
      expect(res?.headers()["content-security-policy"]).toBe("sandbox");
      await page.waitForTimeout(500);
      expect(await page.title()).not.toBe("pwned");
      expect(await streamText(ursa, marker)).toBe(404);
      expect(blocked.join("\n")).toContain("sandboxed");
    });
  }
});

test("the console loads and works under its CSP, with no violation", async ({ page, ursa }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { violations: string[] };
    w.violations = [];
    document.addEventListener("securitypolicyviolation", (e) => w.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await fetch(`${ursa.url}/csp-tour/events`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: '[{"n":1}]' });

  const script = page.waitForResponse((r) => /\/ui\/assets\/.*\.js$/.test(r.url()));
  const res = await page.goto("/ui/");
  expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
  expect((await script).headers()["content-encoding"]).toBe("br");
  await expect(page.locator("h1")).toContainText("ursa", { ignoreCase: true });
  await page.goto("/ui/b/csp-tour");
  await expect(page.getByText("events").first()).toBeVisible();
  await page.goto("/ui/s/csp-tour/events?tab=tail");
  await page.getByRole("button", { name: "Start live tail" }).click();
  await expect(page.getByTestId("tail-status")).toHaveAttribute("data-status", "live");
  await fetch(`${ursa.url}/csp-tour/events`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '[{"n":2}]' });
  await expect(page.getByRole("list", { name: "Live messages, newest first" }).locator("li").first()).toContainText('"n": 2');
  await page.goto(`/ui/compose?target=${encodeURIComponent("/csp-tour/events")}`);
  await page.getByRole("textbox", { name: "Body", exact: true }).fill('[{"n":3}]');
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("204");
  await page.goto("/ui/lab/race");
  await expect(page.locator("h1")).toBeVisible();

  expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
  expect(errors).toEqual([]);
  expect(await (await fetch(`${ursa.url}/csp-tour/events?offset=-1`)).text()).toBe('[{"n":1},{"n":2},{"n":3}]');
});

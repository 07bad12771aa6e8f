import { describe, expect, test } from "bun:test";
import { LAB_TTL_SECONDS, LabStreams, withLabTtl } from "./labStreams";
import { isAway, type LabSite } from "./labJanitor";
import { parseRoute } from "./router";
import { fakeServer } from "./testing/fakeServer";
import type { ProtocolRequest } from "../api/types";

const put = (path: string, headers: [string, string][] = []): ProtocolRequest => ({ method: "PUT", path, headers: [["Content-Type", "application/json"], ...headers] });

describe("lab streams", () => {
  test("a create carries Stream-TTL of at most a day; sub-resources and other methods do not", () => {
    expect(LAB_TTL_SECONDS).toBeLessThanOrEqual(86_400);
    expect(withLabTtl(put("/labs/a")).headers).toContainEqual(["Stream-TTL", String(LAB_TTL_SECONDS)]);
    expect(withLabTtl(put("/labs/a", [["Stream-Expires-At", "2030-01-01T00:00:00Z"]])).headers.filter(([k]) => k === "Stream-TTL")).toEqual([]);
    const snapshot: ProtocolRequest = { method: "PUT", path: "/labs/a/snapshot/0000000000000000_0000000000000004", headers: [] };
    expect(withLabTtl(snapshot)).toBe(snapshot);
    const post: ProtocolRequest = { method: "POST", path: "/labs/a", headers: [], body: "[1]" };
    expect(withLabTtl(post)).toBe(post);
  });

  test("discard deletes what the lab created, with its token, and nothing else", async () => {
    const { transport, streams } = fakeServer();
    await transport(put("/labs/other"));
    const lab = new LabStreams(transport);
    await lab.transport(put("/labs/run-1"));
    await lab.transport(put("/labs/run-2"));
    await lab.transport({ method: "DELETE", path: "/labs/run-2", headers: [] });
    expect([...lab.owned.value.keys()]).toEqual(["/labs/run-1"]);
    expect(lab.owns("/labs/run-1")).toBe(true);
    await lab.discard();
    expect([...streams.keys()]).toEqual(["/labs/other"]);
    expect(lab.owned.value.size).toBe(0);
  });

  test("a stream recreated by someone else since is not deleted: the token says it is another one", async () => {
    const { transport, streams } = fakeServer();
    const lab = new LabStreams(transport);
    await lab.transport(put("/labs/run-1"));
    await transport({ method: "DELETE", path: "/labs/run-1", headers: [] });
    await transport(put("/labs/run-1"));
    const recreated = streams.get("/labs/run-1")!.inc;
    await lab.discard();
    expect(streams.get("/labs/run-1")?.inc).toBe(recreated);
  });

  test("on unload the deletes go out as keepalive fetches", () => {
    const sent: [string, RequestInit][] = [];
    const lab = new LabStreams(fakeServer().transport);
    lab.owned.value = new Map([["/labs/run-1", "101"]]);
    lab.discardOnUnload((async (url: string, init: RequestInit) => {
      sent.push([url, init]);
      return new Response(null, { status: 204 });
    }) as typeof fetch, "http://ursa");
    expect(sent.map(([u, i]) => [u, i.method, i.keepalive, new Headers(i.headers).get("stream-incarnation")])).toEqual([["http://ursa/labs/run-1", "DELETE", true, "101"]]);
    expect(lab.owned.value.size).toBe(0);
  });
});

describe("leaving a lab", () => {
  const streams = new LabStreams(fakeServer().transport);
  streams.owned.value = new Map([["/labs/race-1", "101"]]);
  const site: LabSite = { route: "race", streams, leave: () => {} };
  test("another page is away; the lab and its own stream's page are not", () => {
    expect(isAway(site, parseRoute("/ui/lab/race", ""))).toBe(false);
    expect(isAway(site, parseRoute("/ui/s/labs/race-1", ""))).toBe(false);
    expect(isAway(site, parseRoute("/ui/s/labs/race-2", ""))).toBe(true);
    expect(isAway(site, parseRoute("/ui/lab/outbox", ""))).toBe(true);
    expect(isAway(site, parseRoute("/ui/", ""))).toBe(true);
  });
});

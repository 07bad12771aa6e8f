import { expect, test } from "bun:test";
import { openFileLimit } from "./descriptors";
import { Logger } from "./log";
import { LoopLagMonitor } from "./loop-lag";
import { Exposition, Histogram } from "./metrics";

test("a histogram's buckets are cumulative, with +Inf, sum and count", () => {
  const h = new Histogram([1, 5, 10]);
  for (const v of [0.5, 1, 3, 7, 50]) h.observe(v);
  expect(new Exposition().histogram("x_seconds", "Some times.", h).text()).toBe(
    [
      "# HELP x_seconds Some times.",
      "# TYPE x_seconds histogram",
      'x_seconds_bucket{le="1"} 2',
      'x_seconds_bucket{le="5"} 3',
      'x_seconds_bucket{le="10"} 4',
      'x_seconds_bucket{le="+Inf"} 5',
      "x_seconds_sum 61.5",
      "x_seconds_count 5",
      "",
    ].join("\n"),
  );
});

test("label values are escaped as the text format requires", () => {
  const text = new Exposition().counter("c_total", "Things.", [[{ code: 'a"b\\c\nd' }, 3]]).gauge("g", "A gauge.", 1.5).text();
  expect(text).toBe('# HELP c_total Things.\n# TYPE c_total counter\nc_total{code="a\\"b\\\\c\\nd"} 3\n# HELP g A gauge.\n# TYPE g gauge\ng 1.5\n');
});

test("log lines: text quotes only what needs it and stays one line; JSON is one object; levels filter", () => {
  const lines: string[] = [];
  const text = new Logger("info", "text", (l) => void lines.push(l));
  text.info("request", { path: "/a b", n: 3, ok: true, skip: undefined, nl: "x\ny", empty: "" });
  text.debug("hidden");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z info  request path="\/a b" n=3 ok=true nl="x\\ny" empty=""\n$/);
  const json = new Logger("warn", "json", (l) => void lines.push(l));
  json.info("hidden");
  json.warn("disk", { error: "full" });
  expect(lines).toHaveLength(2);
  expect(JSON.parse(lines[1]!)).toEqual({ time: expect.any(String), level: "warn", msg: "disk", error: "full" });
  expect([json.enabled("error"), json.enabled("warn"), json.enabled("info")]).toEqual([true, true, false]);
});

test("the lag monitor sees a blocked event loop", async () => {
  const lag = new LoopLagMonitor(20).start();
  try {
    await new Promise((r) => setTimeout(r, 50));
    const until = performance.now() + 200;
    while (performance.now() < until);
    await new Promise((r) => setTimeout(r, 50));
    expect(lag.max).toBeGreaterThanOrEqual(0.1);
    expect(lag.histogram.snapshot().count).toBeGreaterThan(1);
  } finally {
    lag.stop();
  }
});

test("the open-file limit is read from /proc/self/limits", () => {
  const limits = "Limit                     Soft Limit           Hard Limit           Units\nMax cpu time              unlimited            unlimited            seconds\nMax open files            1024                 524288               files\n";
  expect(openFileLimit(limits)).toBe(1024);
  expect(openFileLimit(null)).toBeNull();
  expect(openFileLimit("nothing here")).toBeNull();
  if (process.platform === "linux") expect(openFileLimit()).toBeGreaterThan(0);
});

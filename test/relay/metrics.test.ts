import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * GET /metrics as Prometheus scrapes it: the text format parsed line by line, the series the
 * operator's dashboards need, and counters that move with what the relay did.
 */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format: `# HELP`/`# TYPE` comments, then `name{label="value",…} number`. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) types.set(type[1] as string, type[2] as string);
    if (line.startsWith("#")) continue;
    // prom-client writes NaN as "Nan"; Prometheus reads any case of it (Go's ParseFloat).
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|[Nn]a[Nn]|[+-]Inf)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[k as string] = (v as string).replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe("GET /metrics", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "1" });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const r = await t.get("/metrics");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    return parseExposition(r.text);
  };

  test("needs the relay token", async () => {
    const r = await t.relay.app.inject({ method: "GET", url: "/metrics" });
    expect(r.statusCode).toBe(401);
  });

  test("serves the process defaults and the relay's series, each with its type", async () => {
    const { samples, types } = await scrape();
    for (const [name, type] of [
      ["process_cpu_user_seconds_total", "counter"],
      ["process_resident_memory_bytes", "gauge"],
      ["process_start_time_seconds", "gauge"],
      ["nodejs_heap_size_used_bytes", "gauge"],
      ["nodejs_eventloop_lag_seconds", "gauge"],
      ["str_relay_requests_total", "counter"],
      ["str_relay_request_duration_seconds", "histogram"],
      ["str_relay_upstream_duration_seconds", "histogram"],
      ["str_relay_items_total", "counter"],
      ["str_relay_cache_hits_total", "counter"],
      ["str_relay_cache_misses_total", "counter"],
      ["str_relay_cache_hit_ratio", "gauge"],
      ["str_relay_budget_remaining_usd", "gauge"],
      ["str_relay_upstream_calls_total", "counter"],
      ["str_relay_call_outcomes_total", "counter"],
      ["str_relay_billed_usd_total", "counter"],
      ["str_relay_upstream_queue_depth", "gauge"],
    ] as const)
      expect([name, types.get(name)]).toEqual([name, type]);
    expect(value(samples, "process_resident_memory_bytes")).toBeGreaterThan(1e6);
    expect(value(samples, "str_relay_budget_remaining_usd")).toBe(1);
  });

  test("counters, histograms and gauges move with what the relay does", async () => {
    const before = (await scrape()).samples;
    const created = await t.post(BUY_PATH, buyBody(50));
    expect(created.status).toBe(200);
    expect((await t.post(BUY_PATH, buyBody(50))).json.relay.cached).toBe(true);
    expect((await t.post(BUY_PATH, { ...buyBody(51), bedrooms: "x" })).status).toBe(400);
    // A stored analysis by its id: counted under the route pattern, never the id.
    expect((await t.get(`/v1/analyses/${created.json.data._id}`)).status).toBe(200);
    const after = (await scrape()).samples;
    const moved = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);

    expect(moved("str_relay_items_total", { code: "OK" })).toBe(2);
    expect(moved("str_relay_items_total", { code: "STR_VALIDATION" })).toBe(1);
    expect(moved("str_relay_cache_hits_total")).toBe(1);
    expect(moved("str_relay_cache_misses_total")).toBe(1);
    expect(value(after, "str_relay_cache_hit_ratio")).toBeCloseTo(
      value(after, "str_relay_cache_hits_total") /
        (value(after, "str_relay_cache_hits_total") + value(after, "str_relay_cache_misses_total")),
    );
    expect(moved("str_relay_billed_usd_total")).toBeCloseTo(0.2);
    expect(moved("str_relay_budget_remaining_usd")).toBeCloseTo(-0.2);
    expect(moved("str_relay_call_outcomes_total", { state: "billed" })).toBe(1);
    expect(moved("str_relay_upstream_calls_total", { status: "200" })).toBe(1);
    expect(moved("str_relay_upstream_duration_seconds_count", { operation: "buy", status: "200" })).toBe(1);
    expect(moved("str_relay_upstream_duration_seconds_bucket", { operation: "buy", status: "200", le: "+Inf" })).toBe(
      1,
    );
    expect(moved("str_relay_request_duration_seconds_count", { route: BUY_PATH, status: "200" })).toBe(2);
    expect(moved("str_relay_request_duration_seconds_count", { route: BUY_PATH, status: "400" })).toBe(1);
    expect(moved("str_relay_requests_total", { route: "/v1/analyses/:id", status: "200" })).toBe(1);
    expect(after.some((s) => JSON.stringify(s.labels).includes(created.json.data._id))).toBe(false);
    // Buckets are cumulative: each at least the one below, +Inf equal to the count.
    const buckets = after.filter(
      (s) =>
        s.name === "str_relay_request_duration_seconds_bucket" &&
        s.labels.route === BUY_PATH &&
        s.labels.status === "200",
    );
    expect(buckets.map((b) => b.value)).toEqual([...buckets.map((b) => b.value)].sort((a, b) => a - b));
    expect(buckets.at(-1)).toMatchObject({ labels: expect.objectContaining({ le: "+Inf" }), value: 2 });
    expect(moved("process_cpu_user_seconds_total")).toBeGreaterThan(0);
  });

  test("a joined identical call counts as shared", async () => {
    const before = (await scrape()).samples;
    const both = await Promise.all([t.post(BUY_PATH, buyBody(60)), t.post(BUY_PATH, buyBody(60))]);
    expect(both.map((b) => b.status)).toEqual([200, 200]);
    const after = (await scrape()).samples;
    expect(value(after, "str_relay_shared_calls_total") - value(before, "str_relay_shared_calls_total")).toBe(1);
  });
});

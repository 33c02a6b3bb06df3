import { AddressInfo } from "node:net";
import { request } from "undici";
import { Comparable, OPERATION_PATHS, normalizeEnvelope } from "../../src/contract";
import { sandboxOptionsFromEnv } from "../../src/sandbox/sandbox-options";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { BODIES, CREATE_OPS, KEY, billedCents, call, create, makeSandbox } from "./helpers";

/**
 * The fault knobs make the sandbox misbehave the way a real service can (docs/service/observed-behaviour.md):
 * unavailable, dropped connections before or after the work, drifted shapes, text error bodies,
 * object warnings. Each is checked for what it does to the answer and to the bill.
 */

describe("injected failures, in process", () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox();
  });
  afterEach(() => sandbox.app.close());

  test("unavailableRate 1: every call is 503, nothing is created or billed", async () => {
    sandbox.setFaults({ unavailableRate: 1 });
    for (const op of CREATE_OPS) {
      const r = await call(sandbox, op, BODIES[op]);
      expect(r.status).toBe(503);
      expect(r.json).toEqual({ success: false, error: expect.stringMatching(/unavailable/i) });
    }
    expect(billedCents(sandbox)).toBe(0);
    expect(sandbox.state.analyses.size).toBe(0);
    expect(sandbox.state.statuses.get(503)).toBe(4);
  });

  test("unavailableRate 1 also refuses enhance, leaving the analysis as it was", async () => {
    const created = await create(sandbox, "buy");
    sandbox.setFaults({ unavailableRate: 1 });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(r.status).toBe(503);
    expect(billedCents(sandbox)).toBe(20);
    expect(sandbox.analysis(created._id)).toEqual(created);
  });

  test("the service comes back when the rate is set to 0", async () => {
    sandbox.setFaults({ unavailableRate: 1 });
    expect((await call(sandbox, "cohost", BODIES.cohost)).status).toBe(503);
    sandbox.setFaults({ unavailableRate: 0 });
    expect((await call(sandbox, "cohost", BODIES.cohost)).status).toBe(200);
  });

  describe("textErrors: error bodies are plain text", () => {
    beforeEach(() => {
      sandbox.setFaults({ textErrors: true });
    });

    test("400 names each bad field and its rule", async () => {
      const r = await call(sandbox, "buy", { ...BODIES.buy, bedrooms: 2.5, interestRatePercentage: 20 });
      expect(r.status).toBe(400);
      expect(String(r.headers["content-type"])).toMatch(/^text\/plain/);
      expect(r.json).toBeUndefined();
      expect(r.text).toBe(
        "Validation failed: bedrooms must be a whole number from 0 to 50; got 2.5; interestRatePercentage must be a number from 0 to 15 (percent); got 20",
      );
    });

    test("401, 404 and 503 are text too", async () => {
      const noKey = await call(sandbox, "buy", BODIES.buy, null);
      expect(noKey.status).toBe(401);
      expect(String(noKey.headers["content-type"])).toMatch(/^text\/plain/);
      expect(noKey.text).toMatch(/API key/);
      const unknown = await call(sandbox, "enhance", { analysisId: "nope", addAIComps: true });
      expect(unknown.status).toBe(404);
      expect(unknown.text).toBe("Analysis nope not found");
      sandbox.setFaults({ unavailableRate: 1 });
      const down = await call(sandbox, "buy", BODIES.buy);
      expect(down.status).toBe(503);
      expect(String(down.headers["content-type"])).toMatch(/^text\/plain/);
    });

    test("success is still JSON", async () => {
      const r = await call(sandbox, "buy", BODIES.buy);
      expect(r.status).toBe(200);
      expect(r.json.success).toBe(true);
    });

    test("normalizeEnvelope reads a text error as a failure without throwing", async () => {
      const r = await call(sandbox, "buy", { ...BODIES.buy, bedrooms: -1 });
      const n = normalizeEnvelope(r.text, r.status);
      expect(n.success).toBe(false);
      expect(n.data).toBeUndefined();
    });
  });

  test("extraLatencyMs delays every answer by real milliseconds", async () => {
    sandbox.setFaults({ extraLatencyMs: 60 });
    const started = performance.now();
    await call(sandbox, "cohost", BODIES.cohost);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  });
});

describe("drift: the shapes integrators report", () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox();
  });
  afterEach(() => sandbox.app.close());

  async function pair(op: (typeof CREATE_OPS)[number]) {
    const plain = await create(sandbox, op);
    sandbox.setFaults({ driftRate: 1 });
    const r = await call(sandbox, op, BODIES[op]);
    sandbox.setFaults({ driftRate: 0 });
    return { plain, drifted: r.json.data, raw: r.json };
  }

  test("driftRate 1: no percentile objects, quartiles with an average, fractional occupancy, old comparable names, extra fields", async () => {
    const { plain, drifted } = await pair("buy");
    expect(drifted).not.toHaveProperty("revenue");
    expect(drifted).not.toHaveProperty("adr");
    expect(drifted).not.toHaveProperty("occupancy");
    expect(drifted.quartiles.average).toEqual({
      average_daily_rate: plain.adr.avg,
      occupancy_rate: expect.any(Number),
      revenue: plain.revenue.avg,
    });
    expect(drifted.occupancyRatePercentage).toBeLessThanOrEqual(1);
    expect(drifted.occupancyRatePercentage).toBeCloseTo(plain.occupancyRatePercentage / 100, 4);
    const c = drifted.comparables[0];
    expect(c).toHaveProperty("airbnbId");
    expect(c).toHaveProperty("thumbnail");
    expect(c).toHaveProperty("distanceMeters");
    expect(c).toHaveProperty("ttmRevenue");
    for (const gone of ["platformId", "photo_urls", "distanceMiles", "annualRevenueUSD"])
      expect(c).not.toHaveProperty(gone);
    expect(drifted).toMatchObject({
      county: expect.any(String),
      marketId: expect.stringMatching(/^mkt_/),
      revenueData: expect.any(Object),
    });
    expect(Object.keys(drifted.revenueData)).toHaveLength(12);
    expect(drifted.simulated).toBe(true);
  });

  test.each(CREATE_OPS)("%s: normalizeEnvelope repairs a drifted answer to the undrifted numbers", async (op) => {
    const { plain, raw } = await pair(op);
    const n = normalizeEnvelope(raw, 200);
    expect(n.success).toBe(true);
    const data = n.data!;
    for (const metric of ["revenue", "adr", "occupancy"] as const) {
      for (const k of ["p25", "p50", "p75", "p90", "avg"] as const) {
        expect(`${metric}.${k}=${data[metric][k]}`).toBe(`${metric}.${k}=${plain[metric][k]}`);
      }
    }
    expect(data.occupancyRatePercentage).toBeCloseTo(plain.occupancyRatePercentage, 2);
    expect(data.comparables).toHaveLength(plain.comparables.length);
    data.comparables.forEach((c: Comparable, i: number) => {
      const original = plain.comparables[i];
      expect(c.platformId).toBe(original.platformId);
      expect(c.annualRevenueUSD).toBe(original.annualRevenueUSD);
      expect(Math.abs((c.distanceMiles ?? NaN) - original.distanceMiles)).toBeLessThan(0.001);
      expect(c.photo_urls?.[0]).toBe(original.photo_urls[0]);
    });
    // The drift's own extra fields are kept.
    expect(data).toMatchObject({
      county: expect.any(String),
      marketId: expect.any(String),
      revenueData: expect.any(Object),
    });
    expect(n.notes.length).toBeGreaterThan(0);
    expect(n.notes.join("\n")).toMatch(/revenue was missing/);
    // The strategy fields are not touched by drift.
    expect(data.yearOneRevenueUSD).toBe(plain.yearOneRevenueUSD);
  });

  test("drift is billed like any answer", async () => {
    sandbox.setFaults({ driftRate: 1 });
    await call(sandbox, "cohost", { ...BODIES.cohost, addAIExpenseEstimates: true });
    expect(billedCents(sandbox)).toBe(30);
  });

  test("warnings-only enhance answers are not drifted", async () => {
    const created = await create(sandbox, "cohost", { fullAddress: "10 Rue de Rivoli, Paris, France" });
    sandbox.setFaults({ driftRate: 1 });
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIComps: true });
    expect(Object.keys(r.json)).toEqual(["warnings"]);
  });
});

describe("every analysis says it is simulated", () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = makeSandbox();
  });
  afterAll(() => sandbox.app.close());

  test.each(CREATE_OPS)("%s answers carry simulated: true", async (op) => {
    const data = await create(sandbox, op);
    expect(data.simulated).toBe(true);
    expect(data.dataSource).toBe("Simulated by the STR sandbox: not market data.");
    for (const c of data.comparables) expect(c.name).toMatch(/\(sandbox\)$/);
  });

  test("enhanced answers carry it too", async () => {
    const created = await create(sandbox, "buy");
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(r.json.data.simulated).toBe(true);
  });

  test("the report page is HTML that says SIMULATED and shows the address, escaped", async () => {
    const fullAddress = `12 Main St & 3rd <Unit "A">, Austin, TX`;
    const data = await create(sandbox, "buy", { fullAddress });
    const path = new URL(data.url).pathname;
    expect(path).toBe(`/reports/${data._id}`);
    const page = await sandbox.app.inject({ method: "GET", url: path });
    expect(page.statusCode).toBe(200);
    expect(String(page.headers["content-type"])).toMatch(/^text\/html/);
    expect(page.body).toMatch(/^<!doctype html>/);
    expect(page.body).toContain("SIMULATED");
    expect(page.body).toContain("12 Main St &amp; 3rd &lt;Unit &quot;A&quot;&gt;, Austin, TX");
    expect(page.body).not.toContain("<Unit");
    expect(page.body).toContain(data._id);
    // A percent field is shown as a percent: the cap rate of the answer, to one decimal.
    expect(page.body).toContain(`${data.yearOneCapRatePercentage.toFixed(1)} %`);
  });

  test("the report page needs no key; an unknown report is 404", async () => {
    const missing = await sandbox.app.inject({ method: "GET", url: "/reports/doesnotexist" });
    expect(missing.statusCode).toBe(404);
  });

  test("listing pages and photos say they are simulated", async () => {
    const data = await create(sandbox, "cohost");
    const comp = data.comparables[0];
    const listing = await sandbox.app.inject({ method: "GET", url: new URL(comp.listingUrl).pathname });
    expect(listing.statusCode).toBe(200);
    expect(listing.body).toContain("SIMULATED");
    const photo = await sandbox.app.inject({ method: "GET", url: new URL(comp.photo_urls[0]).pathname });
    expect(photo.statusCode).toBe(200);
    expect(String(photo.headers["content-type"])).toMatch(/^image\/svg\+xml/);
    expect(photo.body).toContain("SANDBOX");
  });
});

describe("dropped connections, over a real socket", () => {
  let sandbox: Sandbox;
  let base: string;
  beforeAll(async () => {
    sandbox = makeSandbox();
    await sandbox.app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(sandbox.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => sandbox.app.close());
  beforeEach(() => {
    sandbox.state.reset();
    sandbox.setFaults({ dropBeforeProcessRate: 0, dropAfterProcessRate: 0 });
  });

  const send = (op: (typeof CREATE_OPS)[number]) =>
    request(`${base}${OPERATION_PATHS[op]}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bnbcalc-api-key": KEY },
      body: JSON.stringify(BODIES[op]),
    });

  test("a well-behaved call answers over the socket, with report links on the listening port", async () => {
    const r = await send("cohost");
    expect(r.statusCode).toBe(200);
    const body = (await r.body.json()) as any;
    expect(body.data.url).toBe(`${base}/reports/${body.data._id}`);
    const page = await request(body.data.url);
    expect(page.statusCode).toBe(200);
    expect(await page.body.text()).toContain("SIMULATED");
  });

  test("dropAfterProcessRate 1: the connection is destroyed, yet the report was created and billed", async () => {
    sandbox.setFaults({ dropAfterProcessRate: 1 });
    await expect(send("buy")).rejects.toMatchObject({ code: expect.stringMatching(/^UND_ERR_SOCKET$|ECONNRESET/) });
    expect(sandbox.state.dropped).toEqual({ beforeProcess: 0, afterProcess: 1 });
    expect(sandbox.state.analyses.size).toBe(1);
    expect(sandbox.state.totals(KEY)).toMatchObject({ calls: 1, reports: 1, cents: 20 });
  });

  test("dropBeforeProcessRate 1: the connection is destroyed and nothing is created or billed", async () => {
    sandbox.setFaults({ dropBeforeProcessRate: 1 });
    await expect(send("buy")).rejects.toMatchObject({ code: expect.stringMatching(/^UND_ERR_SOCKET$|ECONNRESET/) });
    expect(sandbox.state.dropped).toEqual({ beforeProcess: 1, afterProcess: 0 });
    expect(sandbox.state.analyses.size).toBe(0);
    expect(billedCents(sandbox)).toBe(0);
  });

  test("the server keeps serving after a dropped connection", async () => {
    sandbox.setFaults({ dropAfterProcessRate: 1 });
    await expect(send("cohost")).rejects.toBeDefined();
    sandbox.setFaults({ dropAfterProcessRate: 0 });
    expect((await send("cohost")).statusCode).toBe(200);
    expect(billedCents(sandbox)).toBe(40);
  });
});

describe("fault controls", () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox();
  });
  afterEach(() => sandbox.app.close());

  test("PATCH /__sandbox/faults changes knobs and answers the full set", async () => {
    const r = await sandbox.app.inject({
      method: "PATCH",
      url: "/__sandbox/faults",
      payload: { unavailableRate: 1, warningStyle: "object" },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      unavailableRate: 1,
      warningStyle: "object",
      rateLimitPerSecond: 100,
      aiFailureRate: 0,
    });
    expect((await call(sandbox, "cohost", BODIES.cohost)).status).toBe(503);
  });

  test("a patch changes only the knobs it names; the others keep their current values", async () => {
    sandbox.setFaults({ rateLimitPerSecond: 7, aiFailureRate: 0.5, driftRate: 0.25 });
    const r = await sandbox.app.inject({ method: "PATCH", url: "/__sandbox/faults", payload: { textErrors: true } });
    expect(r.json()).toMatchObject({
      textErrors: true,
      rateLimitPerSecond: 7,
      aiFailureRate: 0.5,
      driftRate: 0.25,
      aiTimeoutRate: 0,
    });
    expect(sandbox.options.faults).toMatchObject({ textErrors: true, rateLimitPerSecond: 7, aiFailureRate: 0.5 });
    const empty = await sandbox.app.inject({ method: "PATCH", url: "/__sandbox/faults", payload: {} });
    expect(empty.json()).toEqual(r.json());
  });

  test("a bad knob is 400 naming it, and nothing changes", async () => {
    const r = await sandbox.app.inject({
      method: "PATCH",
      url: "/__sandbox/faults",
      payload: { unavailableRate: 2, colour: "red" },
    });
    expect(r.statusCode).toBe(400);
    expect(
      r
        .json()
        .fields.map((f: { path: string }) => f.path)
        .sort(),
    ).toEqual(["colour", "unavailableRate"]);
    expect(sandbox.options.faults.unavailableRate).toBe(0);
  });

  test("setFaults refuses a rate above 1", () => {
    expect(() => sandbox.setFaults({ aiFailureRate: 1.5 })).toThrow();
    expect(sandbox.options.faults.aiFailureRate).toBe(0);
  });

  test("options come from SANDBOX_* variables", () => {
    const options = sandboxOptionsFromEnv({
      SANDBOX_TIME_SCALE: "0",
      SANDBOX_API_KEYS: " sk_one_12345678 , sk_two_12345678 ,",
      SANDBOX_UNAVAILABLE_RATE: "0.25",
      SANDBOX_RATE_LIMIT: "7",
      SANDBOX_TEXT_ERRORS: "true",
      SANDBOX_WARNING_STYLE: "object",
      SANDBOX_SEED: "replay-1",
    });
    expect(options).toMatchObject({ timeScale: 0, apiKeys: ["sk_one_12345678", "sk_two_12345678"], seed: "replay-1" });
    expect(options.faults).toMatchObject({
      unavailableRate: 0.25,
      rateLimitPerSecond: 7,
      textErrors: true,
      warningStyle: "object",
      aiFailureRate: 0.04,
    });
  });

  test("no variables give a well-behaved service with the documented defaults", () => {
    const options = sandboxOptionsFromEnv({});
    expect(options.timeScale).toBe(0.05);
    expect(options.faults).toMatchObject({
      unavailableRate: 0,
      dropBeforeProcessRate: 0,
      dropAfterProcessRate: 0,
      driftRate: 0,
      rateLimitPerSecond: 100,
      textErrors: false,
    });
  });

  test("a bad variable fails naming the variable and its value", () => {
    expect(() => sandboxOptionsFromEnv({ SANDBOX_DRIFT_RATE: "2" })).toThrow(/SANDBOX_DRIFT_RATE .*; got "2"/);
    expect(() => sandboxOptionsFromEnv({ SANDBOX_RATE_LIMIT: "lots" })).toThrow(/SANDBOX_RATE_LIMIT .*; got "lots"/);
  });
});

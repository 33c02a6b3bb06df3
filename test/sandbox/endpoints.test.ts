import { Analysis, OPERATION_PATHS, fieldsOf } from "../../src/contract";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { SPEC_COMMON_FIELDS, SPEC_COMPARABLE_FIELDS, SPEC_STRATEGY_FIELDS } from "../fixtures/spec-fields";
import { AUSTIN, BODIES, CREATE_OPS, KEY, OTHER_KEY, billedCents, call, create, makeSandbox } from "./helpers";

/**
 * Every endpoint answers the spec's envelope and fields; keys, validation and determinism behave
 * as the live service's do (spec; docs/service/observed-behaviour.md, "Transport").
 */

const COMMON = SPEC_COMMON_FIELDS;
const ADDITIONAL: Readonly<Record<string, readonly string[]>> = SPEC_STRATEGY_FIELDS;
const COMPARABLE = SPEC_COMPARABLE_FIELDS;

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => sandbox.app.close());

describe("every create endpoint answers 200 with the spec's fields", () => {
  describe.each(CREATE_OPS)("%s", (op) => {
    let answer: { status: number; json: any; headers: Record<string, unknown> };
    beforeEach(async () => {
      answer = await call(sandbox, op, BODIES[op]);
    });

    test("200, JSON, success true, data, no warnings", () => {
      expect(answer.status).toBe(200);
      expect(String(answer.headers["content-type"])).toMatch(/^application\/json/);
      expect(answer.json.success).toBe(true);
      expect(answer.json.data).toEqual(expect.any(Object));
      expect(answer.json).not.toHaveProperty("warnings");
    });

    test("all the common fields, with their types", () => {
      for (const [field, type] of Object.entries(COMMON)) {
        expect(`${field}: ${typeof answer.json.data[field]}`).toBe(`${field}: ${type}`);
      }
      expect(answer.json.data.currency).toBe("USD");
      expect(answer.json.data.fullAddress).toBe(AUSTIN);
    });

    test("the request's property details are echoed", () => {
      const body = BODIES[op];
      expect(answer.json.data).toMatchObject({
        bedrooms: body.bedrooms,
        bathrooms: body.bathrooms,
        accomodates: body.accomodates,
      });
    });

    test("the strategy's additional fields, all numbers", () => {
      for (const field of ADDITIONAL[op] ?? []) {
        const value = answer.json.data[field];
        expect(`${field}: ${typeof value}`).toBe(`${field}: number`);
        expect(Number.isFinite(value)).toBe(true);
      }
    });

    test("no other strategy's fields", () => {
      const others = new Set(CREATE_OPS.filter((o) => o !== op).flatMap((o) => ADDITIONAL[o] ?? []));
      for (const field of ADDITIONAL[op] ?? []) others.delete(field);
      for (const field of others) expect(answer.json.data).not.toHaveProperty(field);
    });

    test("location is a GeoJSON point, longitude first", () => {
      const { location } = answer.json.data;
      expect(location.type).toBe("Point");
      expect(location.coordinates).toHaveLength(2);
      const [lng, lat] = location.coordinates;
      // Austin, TX is near 30.27 N, 97.74 W.
      expect(Math.abs(lat - 30.27)).toBeLessThan(0.1);
      expect(Math.abs(lng + 97.74)).toBeLessThan(0.1);
    });

    test("percentile objects have p25, p50, p75, p90 and avg, all numbers", () => {
      for (const metric of ["revenue", "adr", "occupancy"]) {
        const p = answer.json.data[metric];
        expect(Object.keys(p).sort()).toEqual(["avg", "p25", "p50", "p75", "p90"]);
        for (const v of Object.values(p)) expect(typeof v).toBe("number");
      }
    });

    test("quartiles have the four percentiles, each with ADR, occupancy rate and revenue", () => {
      const q = answer.json.data.quartiles;
      expect(Object.keys(q).sort()).toEqual([
        "25th_percentile",
        "50th_percentile",
        "75th_percentile",
        "90th_percentile",
      ]);
      for (const entry of Object.values(q) as Record<string, unknown>[]) {
        expect(Object.keys(entry).sort()).toEqual(["average_daily_rate", "occupancy_rate", "revenue"]);
        for (const v of Object.values(entry)) expect(typeof v).toBe("number");
      }
    });

    test("1 to 50 comparables, each with the spec's fields", () => {
      const comps = answer.json.data.comparables;
      expect(Array.isArray(comps)).toBe(true);
      expect(comps.length).toBeGreaterThan(0);
      expect(comps.length).toBeLessThanOrEqual(50);
      for (const c of comps) {
        for (const [field, type] of Object.entries(COMPARABLE))
          expect(`${field}: ${typeof c[field]}`).toBe(`${field}: ${type}`);
        expect(c.photo_urls.length).toBeGreaterThan(0);
        for (const url of c.photo_urls) expect(typeof url).toBe("string");
      }
    });

    test("says it is simulated", () => {
      expect(answer.json.data.simulated).toBe(true);
      expect(answer.json.data.dataSource).toMatch(/simulated/i);
    });

    test("every catalogue field of the strategy has a value in the answer, or derives one from it", () => {
      const analysis = answer.json.data as Analysis;
      for (const field of fieldsOf(op)) {
        // Investor metrics the service does not return (DSCR, break-even…) are computed from the answer.
        const value = field.derive
          ? field.derive(analysis)
          : field.path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], analysis);
        expect(`${field.path}: ${value === undefined ? "missing" : "present"}`).toBe(`${field.path}: present`);
      }
    });

    test("kept by its inputs, the analysis is built again by its id exactly as it was answered", () => {
      expect(sandbox.analysis(answer.json.data._id)).toEqual(answer.json.data);
    });

    test("the report url is the sandbox's /reports/<id>", () => {
      expect(answer.json.data.url).toMatch(new RegExp(`/reports/${answer.json.data._id}$`));
    });
  });

  test("coordinates alone locate the analysis and name its market in fullAddress", async () => {
    const data = await create(sandbox, "cohost", { fullAddress: undefined, lat: 36.1627, lng: -86.7816 });
    expect(data.location.coordinates).toEqual([-86.7816, 36.1627]);
    expect(data.fullAddress).toContain("Nashville, TN");
    expect(data.market).toBe("Nashville, TN");
  });

  test("enhance answers 200 with the same analysis, recalculated", async () => {
    const created = await create(sandbox, "buy");
    const r = await call(sandbox, "enhance", { analysisId: created._id, addAIExpenseEstimates: true });
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
    expect(r.json.data._id).toBe(created._id);
    for (const field of [...Object.keys(COMMON), ...(ADDITIONAL.buy ?? [])]) expect(r.json.data).toHaveProperty(field);
    expect(r.json.data.simulated).toBe(true);
  });
});

describe("the API key", () => {
  test.each(CREATE_OPS)("%s without a key is 401 and nothing is created or billed", async (op) => {
    const r = await call(sandbox, op, BODIES[op], null);
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ success: false });
    expect(r.json.error).toMatch(/x-service-api-key/);
    expect(sandbox.state.analyses.size).toBe(0);
    expect(billedCents(sandbox)).toBe(0);
  });

  test("enhance without a key is 401", async () => {
    expect((await call(sandbox, "enhance", { analysisId: "abc", addAIComps: true }, null)).status).toBe(401);
  });

  test.each([
    ["without the sk_ prefix", "pk_live_12345678"],
    ["too short", "sk_1234567"],
    ["with a space", "sk_1234 5678"],
    ["empty", ""],
  ])("a malformed key (%s) is 401", async (_name, key) => {
    const r = await call(sandbox, "buy", BODIES.buy, key);
    expect(r.status).toBe(401);
    expect(billedCents(sandbox)).toBe(0);
  });

  test("the key is checked before the body: a bad body without a key is 401, not 400", async () => {
    expect((await call(sandbox, "buy", { nonsense: true }, null)).status).toBe(401);
  });

  test("with configured keys, only those are accepted", async () => {
    const strict = makeSandbox({ apiKeys: [KEY] });
    try {
      expect((await call(strict, "cohost", BODIES.cohost, KEY)).status).toBe(200);
      expect((await call(strict, "cohost", BODIES.cohost, OTHER_KEY)).status).toBe(401);
    } finally {
      await strict.app.close();
    }
  });

  test("a 401 never shows the key back", async () => {
    const r = await call(sandbox, "buy", BODIES.buy, "sk_bad key with spaces");
    expect(r.text).not.toContain("sk_bad key");
  });
});

describe("invalid input", () => {
  test.each(CREATE_OPS)("%s: a 400 JSON body lists each bad field, and nothing is billed", async (op) => {
    const { fullAddress: _omit, ...rest } = BODIES[op];
    const r = await call(sandbox, op, { ...rest, lat: 30.27, bedrooms: 2.5 });
    expect(r.status).toBe(400);
    expect(String(r.headers["content-type"])).toMatch(/^application\/json/);
    expect(r.json.success).toBe(false);
    expect(typeof r.json.error).toBe("string");
    expect(r.json.fields).toEqual(
      expect.arrayContaining([
        { path: "bedrooms", message: "must be a whole number from 0 to 50; got 2.5" },
        { path: "lng", message: "is required with lat: give lat and lng together, or fullAddress alone" },
      ]),
    );
    expect(r.json.fields).toHaveLength(2);
    expect(billedCents(sandbox)).toBe(0);
    expect(sandbox.state.analyses.size).toBe(0);
  });

  test("a misspelt field is 400 with a suggestion (observed: address for fullAddress)", async () => {
    const { fullAddress, ...rest } = BODIES.buy;
    const r = await call(sandbox, "buy", { ...rest, address: fullAddress });
    expect(r.status).toBe(400);
    expect(r.json.fields).toContainEqual({
      path: "address",
      message: "is not a field of this request (did you mean fullAddress?)",
    });
  });

  test("an out-of-range interest rate is 400 naming the range", async () => {
    const r = await call(sandbox, "owned", { ...BODIES.owned, interestRatePercentage: 16 });
    expect(r.status).toBe(400);
    expect(r.json.fields).toEqual([
      { path: "interestRatePercentage", message: "must be a number from 0 to 15 (percent); got 16" },
    ]);
  });

  test.each([
    ["a JSON list", "[1,2]"],
    ["JSON null", "null"],
    ["a JSON string", '"12 Main St"'],
  ])("a body that is %s is 400 at body", async (_name, payload) => {
    const r = await sandbox.app.inject({
      method: "POST",
      url: OPERATION_PATHS.buy,
      headers: { "x-service-api-key": KEY, "content-type": "application/json" },
      payload,
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().fields).toEqual([{ path: "body", message: expect.stringMatching(/^must be a JSON object; got /) }]);
  });

  test("a body that is not JSON at all is 400 and not billed", async () => {
    const r = await sandbox.app.inject({
      method: "POST",
      url: OPERATION_PATHS.buy,
      headers: { "x-service-api-key": KEY, "content-type": "application/json" },
      payload: "{fullAddress:",
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ success: false });
    expect(billedCents(sandbox)).toBe(0);
  });

  test("enhance with no AI function is 400 and not billed", async () => {
    const created = await create(sandbox, "cohost");
    const r = await call(sandbox, "enhance", { analysisId: created._id });
    expect(r.status).toBe(400);
    expect(r.json.fields).toEqual([
      { path: "addAIComps", message: expect.stringContaining("at least one AI function") },
    ]);
    expect(billedCents(sandbox)).toBe(20);
  });

  test("an unknown route is 404", async () => {
    const r = await sandbox.app.inject({
      method: "POST",
      url: "/v1/external/analysis/create/flip",
      headers: { "x-service-api-key": KEY },
    });
    expect(r.statusCode).toBe(404);
  });

  test("every status is counted", async () => {
    await call(sandbox, "cohost", BODIES.cohost);
    await call(sandbox, "cohost", {});
    await call(sandbox, "cohost", BODIES.cohost, null);
    expect(Object.fromEntries(sandbox.state.statuses)).toEqual({ 200: 1, 400: 1, 401: 1 });
  });
});

describe("determinism", () => {
  test.each(CREATE_OPS)("%s: the same input gives the same numbers and a new _id each time", async (op) => {
    const a = await create(sandbox, op);
    const b = await create(sandbox, op);
    expect(a._id).not.toBe(b._id);
    expect(a._id).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
    const { _id: _a, url: _ua, ...restA } = a;
    const { _id: _b, url: _ub, ...restB } = b;
    expect(restA).toEqual(restB);
  });

  test("a fresh sandbox gives the same numbers too", async () => {
    const a = await create(sandbox, "buy");
    const other = makeSandbox();
    try {
      const b = await create(other, "buy");
      expect(b.yearOneCashFlowUSD).toBe(a.yearOneCashFlowUSD);
      expect(b.comparables).toEqual(a.comparables);
    } finally {
      await other.app.close();
    }
  });

  test("the address is read the same whatever its case or spacing", async () => {
    const a = await create(sandbox, "cohost", { fullAddress: "12 Main St, Austin, TX 78701" });
    const b = await create(sandbox, "cohost", { fullAddress: "  12 MAIN ST ,Austin,  TX 78701 " });
    expect(b.revenue).toEqual(a.revenue);
    expect(b.location).toEqual(a.location);
  });

  test("a different address or bedroom count gives different comparables", async () => {
    const a = await create(sandbox, "cohost");
    const b = await create(sandbox, "cohost", { fullAddress: "14 Main St, Austin, TX 78701" });
    const c = await create(sandbox, "cohost", { bedrooms: 3 });
    expect(b.comparables).not.toEqual(a.comparables);
    expect(c.comparables).not.toEqual(a.comparables);
  });

  test("one analysis is stored per create, under the key that made it", async () => {
    const a = await create(sandbox, "arb");
    const b = await create(sandbox, "arb", {}, OTHER_KEY);
    expect(sandbox.state.analyses.get(a._id)?.apiKey).toBe(KEY);
    expect(sandbox.state.analyses.get(b._id)?.apiKey).toBe(OTHER_KEY);
    expect(sandbox.state.analyses.size).toBe(2);
  });
});

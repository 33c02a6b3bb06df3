import { Comparable, normalizeEnvelope, warningText } from "../../src/contract";

/**
 * The drift integrators report (docs/service/observed-behaviour.md, "Shape drift") is repaired into one shape,
 * nothing the service sent is lost, and no answer, however odd, makes normalisation throw.
 */

const METERS_PER_MILE = 1609.344;

/** Quartiles as the spec has them: occupancy_rate in percent. */
const QUARTILES = {
  "25th_percentile": { average_daily_rate: 150, occupancy_rate: 48, revenue: 26_280 },
  "50th_percentile": { average_daily_rate: 200, occupancy_rate: 60, revenue: 43_800 },
  "75th_percentile": { average_daily_rate: 260, occupancy_rate: 71, revenue: 67_379 },
  "90th_percentile": { average_daily_rate: 320, occupancy_rate: 80, revenue: 93_440 },
};

function normalized(data: Record<string, unknown>, envelope: Record<string, unknown> = {}) {
  const out = normalizeEnvelope({ success: true, data, ...envelope });
  if (!out.data) throw new Error("no data after normalisation");
  return { ...out, data: out.data };
}

describe("missing percentile objects are derived from quartiles", () => {
  test("revenue, adr and occupancy come from the four quartiles; occupancy_rate percent becomes a fraction", () => {
    const { data } = normalized({ quartiles: QUARTILES });
    expect(data.revenue).toMatchObject({ p25: 26_280, p50: 43_800, p75: 67_379, p90: 93_440 });
    expect(data.adr).toMatchObject({ p25: 150, p50: 200, p75: 260, p90: 320 });
    expect(data.occupancy).toMatchObject({ p25: 0.48, p50: 0.6, p75: 0.71, p90: 0.8 });
  });

  test("the quartiles themselves are kept as sent", () => {
    const { data } = normalized({ quartiles: QUARTILES });
    expect(data.quartiles).toEqual(QUARTILES);
  });

  test("an `average` quartile gives avg", () => {
    const { data } = normalized({
      quartiles: { ...QUARTILES, average: { average_daily_rate: 214.5, occupancy_rate: 61.25, revenue: 47_000 } },
    });
    expect(data.revenue.avg).toBe(47_000);
    expect(data.adr.avg).toBe(214.5);
    expect(data.occupancy.avg).toBe(0.6125);
  });

  test("without `average`, avg comes from the headline fields: ADR, occupancy and ADR × occupancy × 365", () => {
    const { data, notes } = normalized({ quartiles: QUARTILES, ratePerNightUSD: 210, occupancyRatePercentage: 62 });
    expect(data.adr.avg).toBe(210);
    expect(data.occupancy.avg).toBe(0.62);
    // 210 × 0.62 × 365 = 47,523
    expect(data.revenue.avg).toBeCloseTo(47_523, 2);
    expect(notes.join("\n")).toMatch(/avg from the headline fields/);
  });

  test("with neither, avg and missing percentiles come from the comparables (PERCENTILE.INC, mean)", () => {
    const comparables = [10_000, 20_000, 30_000, 40_000, 50_000].map((r, i) => ({
      platformId: `c${i}`,
      annualRevenueUSD: r,
      averageDailyRateUSD: 100 + 10 * i,
      occupancyRatePercentage: 40 + 5 * i,
    }));
    const { data } = normalized({ comparables });
    // Five sorted values: p25 at rank 1, p50 at rank 2, p75 at rank 3, p90 at rank 3.6.
    expect(data.revenue).toEqual({ p25: 20_000, p50: 30_000, p75: 40_000, p90: 46_000, avg: 30_000 });
    expect(data.adr).toEqual({ p25: 110, p50: 120, p75: 130, p90: 136, avg: 120 });
    expect(data.occupancy).toEqual({ p25: 0.45, p50: 0.5, p75: 0.55, p90: 0.58, avg: 0.5 });
  });

  test("values that were sent are never overwritten: only the gaps are filled", () => {
    const { data, notes } = normalized({ quartiles: QUARTILES, revenue: { p50: 50_000 } });
    expect(data.revenue).toMatchObject({ p25: 26_280, p50: 50_000, p75: 67_379, p90: 93_440 });
    expect(notes).toContainEqual(
      expect.stringMatching(/^revenue was incomplete: p25 from quartiles, p75 from quartiles, p90 from quartiles/),
    );
  });

  test("a note says what was missing and where each value came from", () => {
    const { notes } = normalized({ quartiles: QUARTILES });
    expect(notes).toContain(
      "revenue was missing: p25 from quartiles, p50 from quartiles, p75 from quartiles, p90 from quartiles",
    );
    expect(notes).toContain(
      "adr was missing: p25 from quartiles, p50 from quartiles, p75 from quartiles, p90 from quartiles",
    );
    expect(notes).toContain(
      "occupancy was missing: p25 from quartiles, p50 from quartiles, p75 from quartiles, p90 from quartiles",
    );
  });

  test("quartiles whose occupancy_rate came as fractions are read as fractions, and noted", () => {
    const fractions = Object.fromEntries(
      Object.entries(QUARTILES).map(([k, q]) => [k, { ...q, occupancy_rate: q.occupancy_rate / 100 }]),
    );
    const { data, notes } = normalized({ quartiles: fractions });
    expect(data.occupancy).toMatchObject({ p25: 0.48, p50: 0.6, p75: 0.71, p90: 0.8 });
    expect(data.quartiles?.["50th_percentile"]?.occupancy_rate).toBe(60);
    expect(notes).toContain(
      "quartiles' occupancy_rate given as fractions, read as p25 48 %, p50 60 %, p75 71 %, p90 80 %",
    );
  });

  test("an answer with nothing to derive from has empty percentile objects and no invented values", () => {
    const { data, notes } = normalized({ _id: "x" });
    expect(data.revenue).toEqual({});
    expect(data.adr).toEqual({});
    expect(data.occupancy).toEqual({});
    expect(data.comparables).toEqual([]);
    expect(notes).toEqual([]);
  });
});

describe("percent or fraction occupancy", () => {
  test("an occupancy object sent in percents is converted to fractions, and noted", () => {
    const { data, notes } = normalized({ occupancy: { p25: 45, p50: 58.5, p75: 70, p90: 81, avg: 59.2 } });
    expect(data.occupancy).toEqual({ p25: 0.45, p50: 0.585, p75: 0.7, p90: 0.81, avg: 0.592 });
    expect(notes).toContain("occupancy given in percent, read as p25 45 %, p50 58.5 %, p75 70 %, p90 81 %, avg 59.2 %");
  });

  test("an occupancy object in fractions is left as sent, with no note", () => {
    const occupancy = { p25: 0.45, p50: 0.585, p75: 0.7, p90: 0.81, avg: 0.592 };
    const { data, notes } = normalized({ occupancy });
    expect(data.occupancy).toEqual(occupancy);
    expect(notes).toEqual([]);
  });

  test("occupancyRatePercentage sent as a fraction is converted to a percent, and noted", () => {
    const { data, notes } = normalized({ occupancyRatePercentage: 0.6425 });
    expect(data.occupancyRatePercentage).toBe(64.25);
    expect(notes).toContain("occupancy given as a fraction (0.6425), read as 64.25 %");
  });

  test("occupancyRatePercentage as a percent is kept", () => {
    const { data, notes } = normalized({ occupancyRatePercentage: 64.25 });
    expect(data.occupancyRatePercentage).toBe(64.25);
    expect(notes.filter((n) => n.startsWith("occupancyRatePercentage"))).toEqual([]);
    // …and it gives the occupancy average, as a fraction.
    expect(data.occupancy.avg).toBe(0.6425);
  });

  test("a comparable's occupancy sent as a fraction becomes a percent", () => {
    const { data } = normalized({ comparables: [{ platformId: "1", occupancyRatePercentage: 0.71 }] });
    expect(data.comparables[0]?.occupancyRatePercentage).toBe(71);
  });
});

describe("older comparable field names", () => {
  const old = {
    airbnbId: 53_812_345,
    name: "Cozy 2BR Bungalow",
    thumbnail: "https://img.example/53812345.jpg",
    distanceMeters: 2_414,
    ttmRevenue: 61_250,
    bedrooms: 2,
    bathrooms: 1,
    accommodates: 4,
    averageDailyRateUSD: 240,
    occupancyRatePercentage: 70,
  };

  test("are mapped to the spec's names: id as text, thumbnail as the photo list, meters to miles, TTM revenue", () => {
    const c = normalized({ comparables: [old] }).data.comparables[0];
    expect(c?.platformId).toBe("53812345");
    expect(c?.photo_urls).toEqual(["https://img.example/53812345.jpg"]);
    expect(c?.distanceMiles).toBeCloseTo(2_414 / METERS_PER_MILE, 3);
    expect(c?.distanceMiles).toBeCloseTo(1.5, 2);
    expect(c?.annualRevenueUSD).toBe(61_250);
  });

  test("the old fields are kept beside the new ones", () => {
    const c = normalized({ comparables: [old] }).data.comparables[0] as Record<string, unknown>;
    expect(c).toMatchObject({
      airbnbId: 53_812_345,
      thumbnail: old.thumbnail,
      distanceMeters: 2_414,
      ttmRevenue: 61_250,
    });
    expect(c).not.toHaveProperty("__renamed");
  });

  test("the spec's own name wins when both are sent", () => {
    const c = normalized({ comparables: [{ ...old, platformId: "P-1", annualRevenueUSD: 1, distanceMiles: 9 }] }).data
      .comparables[0];
    expect(c).toMatchObject({ platformId: "P-1", annualRevenueUSD: 1, distanceMiles: 9 });
  });

  test("a note counts the comparables that used older names", () => {
    const { notes } = normalized({ comparables: [old, { ...old, airbnbId: 2 }, { platformId: "3" }] });
    expect(notes).toContain("2 comparables used older field names; mapped to the spec's names");
  });

  test("the comparables' mapped revenue feeds derived percentiles", () => {
    const { data } = normalized({ comparables: [{ ttmRevenue: 10_000 }, { ttmRevenue: "30000" }] });
    expect(data.revenue).toMatchObject({ p50: 20_000, avg: 20_000 });
  });

  test("comparables that are not objects are dropped, the rest kept in order", () => {
    const { data } = normalized({ comparables: ["junk", null, 7, { platformId: "a" }, { platformId: "b" }] });
    expect(data.comparables.map((c: Comparable) => c.platformId)).toEqual(["a", "b"]);
  });
});

describe("nothing is dropped", () => {
  test("unknown fields of the analysis are kept: county, marketId, revenueData", () => {
    const revenueData = { "2026-01": 3_100.5, "2026-02": 2_980 };
    const { data } = normalized({ quartiles: QUARTILES, county: "Travis", marketId: "mkt_austin", revenueData });
    expect(data).toMatchObject({ county: "Travis", marketId: "mkt_austin", revenueData });
  });

  test("unknown fields of the envelope are kept in `extra`", () => {
    const out = normalizeEnvelope({ success: true, data: {}, requestId: "r-1", credits: { left: 12 } });
    expect(out.extra).toEqual({ requestId: "r-1", credits: { left: 12 } });
  });

  test("unknown fields inside a quartile and a comparable are kept", () => {
    const { data } = normalized({
      quartiles: { ...QUARTILES, "50th_percentile": { ...QUARTILES["50th_percentile"], nights: 219 } },
      comparables: [{ platformId: "1", superhost: true }],
    });
    expect(data.quartiles?.["50th_percentile"]).toMatchObject({ nights: 219 });
    expect(data.comparables[0]).toMatchObject({ superhost: true });
  });
});

describe("numeric strings and wrong types", () => {
  test("numeric strings are read as numbers everywhere", () => {
    const { data } = normalized({
      ratePerNightUSD: "199.5",
      bedrooms: "3",
      occupancyRatePercentage: " 61 ",
      revenue: { p50: "45000" },
      quartiles: { "50th_percentile": { average_daily_rate: "200", occupancy_rate: "60", revenue: "43800" } },
      comparables: [{ platformId: 77, annualRevenueUSD: "51000", distanceMiles: "0.8" }],
    });
    expect(data.ratePerNightUSD).toBe(199.5);
    expect(data.bedrooms).toBe(3);
    expect(data.occupancyRatePercentage).toBe(61);
    expect(data.revenue.p50).toBe(45_000);
    expect(data.adr.p50).toBe(200);
    expect(data.occupancy.p50).toBe(0.6);
    expect(data.comparables[0]).toMatchObject({ platformId: "77", annualRevenueUSD: 51_000, distanceMiles: 0.8 });
  });

  test("text that is not a number reads as absent, not as NaN", () => {
    const { data } = normalized({ ratePerNightUSD: "about 200", bedrooms: "" });
    expect(data.ratePerNightUSD).toBeUndefined();
    expect(data.bedrooms).toBeUndefined();
  });

  test("wrong-typed fields never throw; they read as absent", () => {
    const weird = {
      revenue: 5,
      adr: "x",
      occupancy: [0.5],
      quartiles: 7,
      comparables: { a: 1 },
      location: "here",
      bedrooms: {},
      fullAddress: ["12 Main"],
      url: null,
      yearOneCashFlowUSD: true,
    };
    let out: ReturnType<typeof normalizeEnvelope> | undefined;
    expect(() => (out = normalizeEnvelope({ success: true, data: weird }))).not.toThrow();
    expect(out?.data).toMatchObject({ revenue: {}, adr: {}, occupancy: {}, comparables: [] });
    expect(out?.data?.bedrooms).toBeUndefined();
    expect(out?.data?.location).toBeUndefined();
    expect(out?.data?.yearOneCashFlowUSD).toBeUndefined();
  });

  test("wrong types inside quartiles and comparables never throw", () => {
    expect(() =>
      normalizeEnvelope({
        data: {
          quartiles: { "25th_percentile": "x", "50th_percentile": { revenue: {} }, average: [] },
          comparables: [{ photo_urls: "not a list", distanceMeters: "far", airbnbId: {} }],
        },
      }),
    ).not.toThrow();
  });

  test.each([
    ["null", null],
    ["a string", "Internal Server Error"],
    ["a number", 500],
    ["a list", [1, 2]],
    ["undefined", undefined],
  ])("a body that is %s never throws and has no data", (_name, raw) => {
    const out = normalizeEnvelope(raw, 200);
    expect(out.data).toBeUndefined();
    expect(out.warnings).toBeUndefined();
    expect(out.notes).toEqual([]);
  });

  test("success follows the HTTP status when the body does not say", () => {
    expect(normalizeEnvelope({ warnings: ["x"] }, 200).success).toBe(true);
    expect(normalizeEnvelope("Service Unavailable", 503).success).toBe(false);
    expect(normalizeEnvelope({}, 400).success).toBe(false);
    expect(normalizeEnvelope({ success: false, data: {} }, 200).success).toBe(false);
    expect(normalizeEnvelope({ success: "yes" }, 200).success).toBe(true);
  });
});

describe("warnings", () => {
  test("strings and objects are kept as sent, in order; other items are dropped", () => {
    const objectWarning = { function: "addAIComps", code: "AI_COMPS_US_ONLY", message: "skipped" };
    const out = normalizeEnvelope({
      success: true,
      data: {},
      warnings: ["AI expense estimates timed out", objectWarning, 3, null, ["x"]],
    });
    expect(out.warnings).toEqual(["AI expense estimates timed out", objectWarning]);
  });

  test("enhance's warnings-only answer keeps its warnings and has no data", () => {
    const out = normalizeEnvelope({ warnings: ["addAIComps skipped"] });
    expect(out).toMatchObject({ success: true, warnings: ["addAIComps skipped"] });
    expect(out.data).toBeUndefined();
  });

  test("an empty or malformed warnings field leaves no warnings", () => {
    expect(normalizeEnvelope({ data: {}, warnings: [] }).warnings).toBeUndefined();
    expect(normalizeEnvelope({ data: {}, warnings: 7 }).warnings).toBeUndefined();
  });

  test("warnings in any shape are read: one text, one object, a list, or under `warning`", () => {
    expect(normalizeEnvelope({ warnings: "AI comps skipped" }).warnings).toEqual(["AI comps skipped"]);
    expect(normalizeEnvelope({ warnings: { message: "skipped" } }).warnings).toEqual([{ message: "skipped" }]);
    expect(normalizeEnvelope({ warning: "AI expenses timed out" }).warnings).toEqual(["AI expenses timed out"]);
    expect(normalizeEnvelope({ warnings: ["a"], warning: [{ message: "b" }] }).warnings).toEqual([
      "a",
      { message: "b" },
    ]);
    // `warning` is read into `warnings`, not kept beside it as an extra field.
    expect(normalizeEnvelope({ warning: "x" }).extra).toEqual({});
  });

  test("warningText reads a string as itself", () => {
    expect(warningText("AI comps skipped")).toBe("AI comps skipped");
  });

  test.each([
    [{ message: "from message" }, "from message"],
    [{ warning: "from warning" }, "from warning"],
    [{ detail: "from detail", code: "X" }, "from detail"],
    [{ reason: "from reason" }, "from reason"],
    [{ description: "from description" }, "from description"],
    [{ error: "from error" }, "from error"],
    [{ msg: "from msg" }, "from msg"],
    [{ message: "message first", detail: "not this" }, "message first"],
    [{ message: "  ", detail: "blank message skipped" }, "blank message skipped"],
  ])("warningText of %j is %j", (warning, text) => {
    expect(warningText(warning)).toBe(text);
  });

  test("warningText of an object without text is its JSON", () => {
    expect(warningText({ code: "AI_STEP_FAILED", function: "addAIComps" })).toBe(
      '{"code":"AI_STEP_FAILED","function":"addAIComps"}',
    );
  });
});

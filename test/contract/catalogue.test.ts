import {
  COMPARABLE_COLUMNS,
  FIELD_CATALOGUE,
  STRATEGIES,
  STRATEGY_FIELDS,
  UNIT_FORMATS,
  UNIT_SCALE,
  Unit,
  fieldsOf,
  findField,
} from "../../src/contract";
import { SPEC_COMMON_SCALARS, SPEC_COMPARABLE_FIELDS, SPEC_STRATEGY_FIELDS } from "../fixtures/spec-fields";

/**
 * The field catalogue: every answer field a user can put in a cell, with its label, unit and
 * Excel format. Checked against the spec's tables (test/fixtures/spec-fields.ts).
 */

const SPEC_FIELDS = SPEC_STRATEGY_FIELDS;

const PERCENTILE_PATHS = ["revenue", "adr", "occupancy"].flatMap((m) =>
  ["p25", "p50", "p75", "p90", "avg"].map((k) => `${m}.${k}`),
);
/** The spec's `quartiles`: four percentiles, each with revenue, nightly rate and occupancy. */
const QUARTILE_PATHS = ["25th", "50th", "75th", "90th"].flatMap((p) =>
  ["revenue", "average_daily_rate", "occupancy_rate"].map((k) => `quartiles.${p}_percentile.${k}`),
);

describe("the strategy fields are the spec's", () => {
  test.each(STRATEGIES)("STRATEGY_FIELDS.%s lists exactly the spec's additional fields", (strategy) => {
    expect([...STRATEGY_FIELDS[strategy]].sort()).toEqual([...SPEC_FIELDS[strategy]].sort());
  });
});

describe("the catalogue covers every answer field", () => {
  test.each(STRATEGIES)("every field of STRATEGY_FIELDS.%s is in the catalogue for that strategy", (strategy) => {
    const paths = fieldsOf(strategy).map((f) => f.path);
    for (const field of STRATEGY_FIELDS[strategy]) expect(paths).toContain(field);
  });

  test.each(STRATEGIES)("%s: the common fields and every percentile are there too", (strategy) => {
    const paths = fieldsOf(strategy).map((f) => f.path);
    for (const field of [...SPEC_COMMON_SCALARS, ...PERCENTILE_PATHS, ...QUARTILE_PATHS])
      expect(paths).toContain(field);
    // location, as its two coordinates.
    expect(paths).toEqual(expect.arrayContaining(["latitude", "longitude"]));
  });

  test.each(STRATEGIES)("%s: nothing is offered that its answers do not have", (strategy) => {
    const allowed = new Set([...SPEC_COMMON_SCALARS, ...PERCENTILE_PATHS, ...QUARTILE_PATHS, ...SPEC_FIELDS[strategy]]);
    // Investor metrics are computed from the answer (they carry `derive`), not read from it.
    for (const f of fieldsOf(strategy).filter((f) => !f.derive))
      expect(allowed.has(f.path) ? f.path : `${f.path} (not in a ${strategy} answer)`).toBe(f.path);
  });

  test("cohost answers offer no mortgage or rent fields", () => {
    const paths = fieldsOf("cohost").map((f) => f.path);
    for (const p of ["yearOneMorgageAndTaxesUSD", "monthlyRentUSD", "totalCashInvestment", "yearOneCapRatePercentage"])
      expect(paths).not.toContain(p);
  });

  test("fieldsOf keeps the card order", () => {
    const order = FIELD_CATALOGUE.map((f) => f.path);
    const paths = fieldsOf("arb").map((f) => f.path);
    expect(paths.map((p) => order.indexOf(p))).toEqual([...paths.map((p) => order.indexOf(p))].sort((a, b) => a - b));
  });

  test("paths and labels are unique", () => {
    expect(new Set(FIELD_CATALOGUE.map((f) => f.path)).size).toBe(FIELD_CATALOGUE.length);
    expect(new Set(FIELD_CATALOGUE.map((f) => f.label)).size).toBe(FIELD_CATALOGUE.length);
  });
});

describe("findField", () => {
  test("finds a field by its path, ignoring case and punctuation", () => {
    expect(findField("yearOneCashFlowUSD")?.path).toBe("yearOneCashFlowUSD");
    expect(findField("Revenue.P50")?.path).toBe("revenue.p50");
    expect(findField("revenue p50")?.path).toBe("revenue.p50");
    expect(findField("_id")?.path).toBe("_id");
  });

  test("finds a field by its label", () => {
    expect(findField("Cash-on-cash return")?.path).toBe("yearOneCashOnCashPercentage");
    expect(findField("cap rate")?.path).toBe("yearOneCapRatePercentage");
    expect(findField("Occupancy, median")?.path).toBe("occupancy.p50");
    expect(findField("Guests")?.path).toBe("accomodates");
    expect(findField("HOST RETURN")?.path).toBe("yearOneCohostReturnUSD");
  });

  test("finds a field by its short name, without USD or Percentage", () => {
    expect(findField("yearOneCashFlow")?.path).toBe("yearOneCashFlowUSD");
    expect(findField("yearOneCapRate")?.path).toBe("yearOneCapRatePercentage");
    expect(findField("ratePerNight")?.path).toBe("ratePerNightUSD");
    expect(findField("monthlyRent")?.path).toBe("monthlyRentUSD");
  });

  test.each(FIELD_CATALOGUE.map((f) => [f.path, f.label]))(
    "%s is found by its path and by its label %j",
    (path, label) => {
      expect(findField(path)?.path).toBe(path);
      expect(findField(label)?.path).toBe(path);
    },
  );

  test("an unknown name finds nothing", () => {
    expect(findField("profitability")).toBeUndefined();
    expect(findField("")).toBeUndefined();
  });
});

describe("units, formats and scales", () => {
  const unitOf = (path: string) => FIELD_CATALOGUE.find((f) => f.path === path)?.unit;

  test.each([
    ["yearOneCashFlowUSD", "usd"],
    ["revenue.p50", "usd"],
    ["adr.avg", "usd"],
    ["occupancy.p50", "fraction"],
    ["occupancyRatePercentage", "percent"],
    ["yearOneCapRatePercentage", "percent"],
    ["interestRatePercentage", "percent"],
    ["mortgageLength", "years"],
    ["bedrooms", "count"],
    ["url", "url"],
    ["_id", "id"],
    ["fullAddress", "text"],
  ])("%s is in %s", (path, unit) => {
    expect(unitOf(path)).toBe(unit);
  });

  test("every field ending in USD is in dollars and every one ending in Percentage is a percent", () => {
    for (const f of FIELD_CATALOGUE) {
      if (f.path.endsWith("USD")) expect(`${f.path}:${f.unit}`).toBe(`${f.path}:usd`);
      if (f.path.endsWith("Percentage")) expect(`${f.path}:${f.unit}`).toBe(`${f.path}:percent`);
    }
  });

  test("a percent from the service (72.5) becomes a fraction in the cell (0.725), shown with %", () => {
    expect(72.5 * UNIT_SCALE.percent).toBeCloseTo(0.725, 12);
    expect(UNIT_FORMATS.percent).toBe("0.0%");
  });

  test("a fraction from the service (0.725) stays as it is, shown with the same % format", () => {
    expect(UNIT_SCALE.fraction).toBe(1);
    expect(UNIT_FORMATS.fraction).toBe(UNIT_FORMATS.percent);
  });

  test("everything but percents keeps its value", () => {
    const units: Unit[] = ["usd", "fraction", "count", "years", "miles", "text", "url", "id"];
    for (const u of units) expect(UNIT_SCALE[u]).toBe(1);
  });

  test.each([
    ["usd", "$#,##0"],
    ["count", "0"],
    ["years", "0"],
    ["miles", '0.0 "mi"'],
    ["text", "@"],
    ["url", "@"],
    ["id", "@"],
  ] as const)("%s cells are formatted %j", (unit, format) => {
    expect(UNIT_FORMATS[unit]).toBe(format);
  });

  test("the comparables table names the spec's comparable fields, occupancy as a percent", () => {
    // The spec's fields, photo_urls by its first photo (for IMAGE()), then what the live service adds.
    expect(COMPARABLE_COLUMNS.map((c) => c.key).sort()).toEqual(
      [
        ...Object.keys(SPEC_COMPARABLE_FIELDS),
        "photo_urls.0",
        "cleaningFeeUSD",
        "rating",
        "reviews",
        "superhost",
        "latitude",
        "longitude",
      ].sort(),
    );
    expect(COMPARABLE_COLUMNS.find((c) => c.key === "occupancyRatePercentage")?.unit).toBe("percent");
    expect(COMPARABLE_COLUMNS.find((c) => c.key === "distanceMiles")?.unit).toBe("miles");
  });
});

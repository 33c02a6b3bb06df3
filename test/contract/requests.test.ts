import {
  FieldIssue,
  Operation,
  describeIssues,
  fieldRule,
  requestFieldNames,
  requiredFieldNames,
  validateRequest,
} from "../../src/contract";

/**
 * The request rules of the five endpoints (spec: "Endpoints", "Limits"), as users meet them: each
 * refusal names the field (`path`) and states the rule in words, and every bad field is reported at once.
 */

type Body = Record<string, unknown>;
type CreateOp = "buy" | "arb" | "owned" | "cohost";

const ADDRESS = "12 Main St, Austin, TX 78701";

/** The smallest valid body of each endpoint (the location given as an address). */
const VALID: Record<Operation, Body> = {
  buy: { fullAddress: ADDRESS, purchasePriceUSD: 450_000, bedrooms: 3, bathrooms: 2, accomodates: 8 },
  arb: { fullAddress: ADDRESS, monthlyRentUSD: 2_500, bedrooms: 2, bathrooms: 1, accomodates: 4 },
  owned: {
    fullAddress: ADDRESS,
    purchasePriceUSD: 500_000,
    downPaymentPercentage: 20,
    interestRatePercentage: 4.5,
    mortgageLength: 30,
    yearsRemainingOnMortgage: 25,
    bedrooms: 3,
    bathrooms: 2.5,
    accomodates: 6,
  },
  cohost: { fullAddress: ADDRESS, bedrooms: 1, bathrooms: 1, accomodates: 2 },
  enhance: { analysisId: "6650a1b2c3d4e5f6a7b8c9d0", addAIComps: true },
};

/** Required fields per endpoint, from the spec's table (the location pair aside). */
const REQUIRED: Record<Operation, string[]> = {
  buy: ["purchasePriceUSD", "bedrooms", "bathrooms", "accomodates"],
  arb: ["monthlyRentUSD", "bedrooms", "bathrooms", "accomodates"],
  owned: [
    "purchasePriceUSD",
    "downPaymentPercentage",
    "interestRatePercentage",
    "mortgageLength",
    "yearsRemainingOnMortgage",
    "bedrooms",
    "bathrooms",
    "accomodates",
  ],
  cohost: ["bedrooms", "bathrooms", "accomodates"],
  enhance: ["analysisId"],
};

const CREATE_OPS: CreateOp[] = ["buy", "arb", "owned", "cohost"];
const ALL_OPS: Operation[] = [...CREATE_OPS, "enhance"];

function body(op: Operation, patch: Body = {}, drop: string[] = []): Body {
  const out: Body = { ...VALID[op], ...patch };
  for (const key of drop) delete out[key];
  return out;
}

function issuesOf(op: Operation, input: unknown): FieldIssue[] {
  const result = validateRequest(op, input);
  return result.ok ? [] : result.issues;
}

function expectValid(op: Operation, input: unknown): void {
  const result = validateRequest(op, input);
  if (!result.ok) throw new Error(`expected ${op} body to be valid, got: ${describeIssues(result.issues)}`);
}

/** Exactly one issue, at `path`, whose message matches `message`. */
function expectOneIssue(op: Operation, input: unknown, path: string, message: RegExp | string): void {
  const issues = issuesOf(op, input);
  expect(issues).toHaveLength(1);
  expect(issues[0]?.path).toBe(path);
  if (typeof message === "string") expect(issues[0]?.message).toContain(message);
  else expect(issues[0]?.message).toMatch(message);
}

describe("valid bodies", () => {
  test.each(ALL_OPS)("the smallest valid %s body passes and comes back as sent", (op) => {
    const result = validateRequest(op, VALID[op]);
    expect(result).toEqual({ ok: true, value: VALID[op] });
  });

  test("every optional parameter of buy is accepted together", () => {
    expectValid(
      "buy",
      body("buy", {
        lat: 30.2672,
        lng: -97.7431,
        state: "TX",
        city: "Austin",
        county: "Travis",
        postalCode: "78701",
        country: "US",
        street: "Main St",
        streetNumber: "12",
        unit: "4B",
        squareFeet: 1850,
        addAIComps: true,
        addAIExpenseEstimates: false,
        monthlyRentUSD: 2_800,
        interestRatePercentage: 7,
      }),
    );
  });

  test("text is trimmed before it is used", () => {
    const result = validateRequest("buy", body("buy", { fullAddress: "  12 Main St, Austin TX \n" }));
    expect(result.ok && result.value.fullAddress).toBe("12 Main St, Austin TX");
  });
});

describe("required fields", () => {
  test.each(ALL_OPS)("%s: the required fields are the spec's", (op) => {
    expect([...requiredFieldNames(op)].sort()).toEqual([...REQUIRED[op]].sort());
  });

  const cases = ALL_OPS.flatMap((op) => REQUIRED[op].map((field) => [op, field] as const));
  test.each(cases)("%s without %s is refused: that field 'is required'", (op, field) => {
    expectOneIssue(op, body(op, {}, [field]), field, /^is required$/);
  });

  test("an empty buy body names every required field and the location rule at once", () => {
    const issues = issuesOf("buy", {});
    expect(issues.map((i) => i.path).sort()).toEqual([
      "accomodates",
      "bathrooms",
      "bedrooms",
      "fullAddress",
      "purchasePriceUSD",
    ]);
    for (const issue of issues.filter((i) => i.path !== "fullAddress")) expect(issue.message).toBe("is required");
  });

  test("owned: the financing terms are required, while buy takes the interest rate as optional", () => {
    expectValid("buy", body("buy", {}, ["interestRatePercentage"]));
    expectOneIssue("owned", body("owned", {}, ["interestRatePercentage"]), "interestRatePercentage", "is required");
  });

  test("arb: the purchase price is optional, the monthly rent is not", () => {
    expectValid("arb", body("arb", { purchasePriceUSD: 300_000 }));
    expectOneIssue("arb", body("arb", {}, ["monthlyRentUSD"]), "monthlyRentUSD", "is required");
  });
});

describe("the location rule: lat and lng together, or fullAddress", () => {
  describe.each(CREATE_OPS)("%s", (op) => {
    const noAddress = body(op, {}, ["fullAddress"]);

    test("lat and lng without an address are accepted", () => {
      expectValid(op, { ...noAddress, lat: 30.2672, lng: -97.7431 });
    });

    test("fullAddress alone is accepted", () => {
      expectValid(op, body(op));
    });

    test("lat, lng and fullAddress together are accepted", () => {
      expectValid(op, body(op, { lat: 30.2672, lng: -97.7431 }));
    });

    test("a lone lat is refused, naming the missing lng", () => {
      expectOneIssue(op, { ...noAddress, lat: 30.2672 }, "lng", /is required with lat.*lat and lng together/);
    });

    test("a lone lng is refused, naming the missing lat", () => {
      expectOneIssue(op, { ...noAddress, lng: -97.7431 }, "lat", /is required with lng.*lat and lng together/);
    });

    test("a lone lat is refused even beside fullAddress", () => {
      expectOneIssue(op, body(op, { lat: 30.2672 }), "lng", "give lat and lng together, or fullAddress alone");
    });

    test("a lone lng is refused even beside fullAddress", () => {
      expectOneIssue(op, body(op, { lng: -97.7431 }), "lat", "give lat and lng together, or fullAddress alone");
    });

    test("neither coordinates nor an address is refused at fullAddress, stating the rule", () => {
      expectOneIssue(op, noAddress, "fullAddress", /is required unless lat and lng are both given/);
    });
  });

  test("a coordinate of the wrong type still counts as given: the range and the pairing are both reported", () => {
    const issues = issuesOf("buy", body("buy", { lat: "30.2" }));
    expect(issues).toEqual([
      { path: "lat", message: 'must be a number from -90 to 90 (degrees); got "30.2"' },
      { path: "lng", message: "is required with lat: give lat and lng together, or fullAddress alone" },
    ]);
  });
});

describe("stated ranges, at and just past their bounds", () => {
  // [operation, field, lowest allowed, just below, highest allowed, just above, rule text]
  const ranges: [CreateOp, string, number, number, number, number, string][] = [
    ["buy", "interestRatePercentage", 0, -0.01, 15, 15.01, "a number from 0 to 15 (percent)"],
    ["owned", "interestRatePercentage", 0, -0.01, 15, 15.01, "a number from 0 to 15 (percent)"],
    ["owned", "downPaymentPercentage", 0, -0.01, 40, 40.01, "a number from 0 to 40 (percent)"],
    ["cohost", "cohostCommissionPercentage", 0, -0.01, 100, 100.01, "a number from 0 to 100 (percent)"],
    ["buy", "lat", -90, -90.000001, 90, 90.000001, "a number from -90 to 90 (degrees)"],
    ["buy", "lng", -180, -180.000001, 180, 180.000001, "a number from -180 to 180 (degrees)"],
    ["buy", "bedrooms", 0, -1, 50, 51, "a whole number from 0 to 50"],
    ["buy", "bathrooms", 0, -0.5, 50, 50.5, "a multiple of 0.5 from 0 to 50"],
    ["buy", "accomodates", 1, 0, 100, 101, "a whole number from 1 to 100 (guests)"],
    [
      "buy",
      "purchasePriceUSD",
      0.01,
      0,
      1_000_000_000,
      1_000_000_001,
      "a number greater than 0 and at most 1,000,000,000 (USD)",
    ],
    [
      "arb",
      "monthlyRentUSD",
      0.01,
      0,
      1_000_000,
      1_000_001,
      "a number greater than 0 and at most 1,000,000 (USD a month)",
    ],
    ["buy", "squareFeet", 1, 0, 1_000_000, 1_000_001, "a number greater than 0 and at most 1,000,000 (square feet)"],
  ];
  const withPair = (field: string, value: number): Body =>
    field === "lat" ? { lat: value, lng: 0 } : field === "lng" ? { lat: 0, lng: value } : { [field]: value };

  describe.each(ranges)("%s %s", (op, field, lo, below, hi, above, rule) => {
    test(`${lo} and ${hi} are accepted`, () => {
      expectValid(op, body(op, withPair(field, lo)));
      expectValid(op, body(op, withPair(field, hi)));
    });

    test(`${below} is refused, the message stating "${rule}" and the value`, () => {
      expectOneIssue(op, body(op, withPair(field, below)), field, `must be ${rule}; got ${below}`);
    });

    test(`${above} is refused, the message stating "${rule}" and the value`, () => {
      expectOneIssue(op, body(op, withPair(field, above)), field, `must be ${rule}; got ${above}`);
    });
  });

  describe("owned: mortgageLength from 0 to 30 years", () => {
    test("0 years (owned outright) and 30 years are accepted", () => {
      expectValid("owned", body("owned", { mortgageLength: 0, yearsRemainingOnMortgage: 0 }));
      expectValid("owned", body("owned", { mortgageLength: 30, yearsRemainingOnMortgage: 30 }));
    });

    test("-0.5 and 30.5 are refused with the rule", () => {
      expectOneIssue(
        "owned",
        body("owned", { mortgageLength: -0.5, yearsRemainingOnMortgage: 0 }),
        "mortgageLength",
        "must be a number from 0 to 30 (years); got -0.5",
      );
      expectOneIssue(
        "owned",
        body("owned", { mortgageLength: 30.5, yearsRemainingOnMortgage: 10 }),
        "mortgageLength",
        "from 0 to 30",
      );
    });
  });

  describe("owned: yearsRemainingOnMortgage must not exceed mortgageLength", () => {
    test("equal to the length is accepted, as is zero", () => {
      expectValid("owned", body("owned", { mortgageLength: 20, yearsRemainingOnMortgage: 20 }));
      expectValid("owned", body("owned", { mortgageLength: 20, yearsRemainingOnMortgage: 0 }));
    });

    test("half a year more than the length is refused, naming the length", () => {
      expectOneIssue(
        "owned",
        body("owned", { mortgageLength: 20, yearsRemainingOnMortgage: 20.5 }),
        "yearsRemainingOnMortgage",
        "must not exceed mortgageLength (20 years); got 20.5",
      );
    });

    test("an out-of-range mortgageLength is not also blamed on the remaining years", () => {
      const issues = issuesOf("owned", body("owned", { mortgageLength: 35, yearsRemainingOnMortgage: 32 }));
      expect(issues).toEqual([
        { path: "mortgageLength", message: "must be a number from 0 to 30 (years); got 35" },
        { path: "yearsRemainingOnMortgage", message: "must be a number from 0 to 30 (years); got 32" },
      ]);
      expectOneIssue(
        "owned",
        body("owned", { mortgageLength: 31, yearsRemainingOnMortgage: 12 }),
        "mortgageLength",
        "got 31",
      );
    });

    test("below zero is refused with its range", () => {
      expectOneIssue(
        "owned",
        body("owned", { yearsRemainingOnMortgage: -1 }),
        "yearsRemainingOnMortgage",
        "must be a number from 0 to 30 (years); got -1",
      );
    });
  });
});

describe("implied bounds", () => {
  test("a negative price is refused", () => {
    expectOneIssue("buy", body("buy", { purchasePriceUSD: -450_000 }), "purchasePriceUSD", "greater than 0");
  });

  test.each([
    ["Infinity", Infinity],
    ["-Infinity", -Infinity],
    ["NaN", NaN],
  ])("a price of %s is refused", (shown, value) => {
    expectOneIssue(
      "buy",
      body("buy", { purchasePriceUSD: value }),
      "purchasePriceUSD",
      `greater than 0 and at most 1,000,000,000 (USD); got ${shown}`,
    );
  });

  test("an infinite latitude is refused", () => {
    expectOneIssue("buy", body("buy", { lat: Infinity, lng: 0 }), "lat", "from -90 to 90 (degrees); got Infinity");
  });

  test("bedrooms must be whole: 2.5 is refused", () => {
    expectOneIssue("buy", body("buy", { bedrooms: 2.5 }), "bedrooms", "must be a whole number from 0 to 50; got 2.5");
  });

  test("bathrooms come in halves: 1.5 passes, 1.25 is refused", () => {
    expectValid("buy", body("buy", { bathrooms: 1.5 }));
    expectOneIssue(
      "buy",
      body("buy", { bathrooms: 1.25 }),
      "bathrooms",
      "must be a multiple of 0.5 from 0 to 50; got 1.25",
    );
  });

  test("at least one guest: accomodates 0 is refused, a fraction too", () => {
    expectOneIssue("cohost", body("cohost", { accomodates: 0 }), "accomodates", "from 1 to 100 (guests); got 0");
    expectOneIssue("cohost", body("cohost", { accomodates: 1.5 }), "accomodates", "a whole number");
  });

  test.each([
    ["empty", ""],
    ["whitespace only", "   \t "],
  ])("an %s address is refused as text of 1 to 300 characters", (_name, value) => {
    expectOneIssue("buy", body("buy", { fullAddress: value }), "fullAddress", "must be text of 1 to 300 characters");
  });

  test("an address of 300 characters passes; 301 is refused, the value shown cut short", () => {
    expectValid("buy", body("buy", { fullAddress: "a".repeat(300) }));
    const issues = issuesOf("buy", body("buy", { fullAddress: "a".repeat(301) }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "fullAddress" });
    expect(issues[0]?.message).toBe(`must be text of 1 to 300 characters; got "${"a".repeat(37)}..."`);
  });

  test.each([
    ["postalCode", 20],
    ["streetNumber", 20],
    ["unit", 50],
    ["state", 100],
    ["city", 100],
    ["county", 100],
    ["country", 100],
    ["street", 200],
  ])("%s takes text of 1 to %d characters", (field, max) => {
    expectValid("arb", body("arb", { [field]: "x".repeat(max) }));
    expectOneIssue(
      "arb",
      body("arb", { [field]: "x".repeat(max + 1) }),
      field,
      `must be text of 1 to ${max} characters`,
    );
    expectOneIssue("arb", body("arb", { [field]: " " }), field, `must be text of 1 to ${max} characters`);
  });

  test("a number given for a text field is refused", () => {
    expectOneIssue(
      "buy",
      body("buy", { postalCode: 78701 }),
      "postalCode",
      "must be text of 1 to 20 characters; got 78701",
    );
  });

  test.each([
    ['"true"', "true"],
    ["1", 1],
    ["null", null],
  ])("an AI flag of %s is refused: it must be true or false", (shown, value) => {
    for (const op of ALL_OPS) {
      const flags =
        op === "enhance" ? { addAIComps: true, addAIExpenseEstimates: value } : { addAIExpenseEstimates: value };
      expectOneIssue(op, body(op, flags), "addAIExpenseEstimates", `must be true or false; got ${shown}`);
    }
  });

  test.each([
    ["purchasePriceUSD", "450000"],
    ["bedrooms", "3"],
    ["lat", "30.2"],
    ["interestRatePercentage", "6"],
  ])("a numeric string is not a number: %s %j is refused", (field, value) => {
    const issues = issuesOf("buy", body("buy", field === "lat" ? { lat: value, lng: -97 } : { [field]: value }));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe(field);
    expect(issues[0]?.message).toMatch(new RegExp(`^must be .*; got "${value}"$`));
  });

  test("an object where a number belongs is refused, described in plain words", () => {
    expectOneIssue(
      "buy",
      body("buy", { bedrooms: { n: 3 } }),
      "bedrooms",
      "must be a whole number from 0 to 50; got an object",
    );
    expectOneIssue("buy", body("buy", { bedrooms: [3] }), "bedrooms", "got a list");
  });
});

describe("unknown fields", () => {
  test("address is refused with a suggestion of fullAddress", () => {
    const issues = issuesOf("buy", { ...body("buy", {}, ["fullAddress"]), address: ADDRESS });
    expect(issues).toContainEqual({
      path: "address",
      message: "is not a field of this request (did you mean fullAddress?)",
    });
    // The address it meant is not taken from the misspelt field.
    expect(issues).toContainEqual({
      path: "fullAddress",
      message: "is required unless lat and lng are both given (the location rule)",
    });
  });

  test("accommodates (the usual spelling) is refused with a suggestion of the service's accomodates", () => {
    const issues = issuesOf("cohost", { ...body("cohost", {}, ["accomodates"]), accommodates: 4 });
    expect(issues).toHaveLength(2);
    expect(issues).toContainEqual({ path: "accomodates", message: "is required" });
    expect(issues).toContainEqual({
      path: "accommodates",
      message: "is not a field of this request (did you mean accomodates?)",
    });
  });

  test.each([
    ["buy", "latitude", "lat"],
    ["buy", "Longitude", "lng"],
    ["buy", "zip", "postalCode"],
    ["buy", "purchase_price", "purchasePriceUSD"],
    ["arb", "rent", "monthlyRentUSD"],
    ["owned", "interest-rate", "interestRatePercentage"],
    ["cohost", "commission", "cohostCommissionPercentage"],
    ["buy", "BEDROOMS", "bedrooms"],
    ["enhance", "id", "analysisId"],
    ["enhance", "aiComps", "addAIComps"],
  ] as const)("%s: %s suggests %s", (op, wrong, right) => {
    const issues = issuesOf(op, body(op, { [wrong]: 1 }));
    expect(issues).toContainEqual({ path: wrong, message: `is not a field of this request (did you mean ${right}?)` });
  });

  test("a field with no likely meaning is refused without a guess", () => {
    expectOneIssue("buy", body("buy", { colour: "blue" }), "colour", /^is not a field of this request$/);
  });

  test("a suggestion is only made when the endpoint has that field: price on cohost gets none", () => {
    expectOneIssue("cohost", body("cohost", { price: 100 }), "price", /^is not a field of this request$/);
  });

  test("enhance takes no create parameters", () => {
    const issues = issuesOf("enhance", body("enhance", { fullAddress: ADDRESS, bedrooms: 3 }));
    expect(issues.map((i) => i.path).sort()).toEqual(["bedrooms", "fullAddress"]);
    for (const issue of issues) expect(issue.message).toMatch(/^is not a field of this request/);
  });

  test("each unknown field is its own issue", () => {
    const issues = issuesOf("buy", body("buy", { foo: 1, bar: 2 }));
    expect(issues.map((i) => i.path).sort()).toEqual(["bar", "foo"]);
  });

  test("requestFieldNames lists what the suggestions choose from", () => {
    expect(requestFieldNames("enhance").sort()).toEqual(["addAIComps", "addAIExpenseEstimates", "analysisId"]);
    expect(requestFieldNames("cohost")).toContain("cohostCommissionPercentage");
    expect(requestFieldNames("cohost")).not.toContain("purchasePriceUSD");
  });
});

describe("enhance", () => {
  test("needs at least one AI function: none is refused at addAIComps, stating the rule", () => {
    const rule = "enhance needs at least one AI function: set addAIComps or addAIExpenseEstimates to true";
    expectOneIssue("enhance", { analysisId: "abc" }, "addAIComps", rule);
    expectOneIssue(
      "enhance",
      { analysisId: "abc", addAIComps: false, addAIExpenseEstimates: false },
      "addAIComps",
      rule,
    );
  });

  test("either AI function alone is enough", () => {
    expectValid("enhance", { analysisId: "abc", addAIExpenseEstimates: true });
    expectValid("enhance", { analysisId: "abc", addAIComps: true, addAIExpenseEstimates: false });
  });

  test("an id of up to 128 letters, digits, - and _ is accepted, its case kept", () => {
    const id = `Ab-_${"z9".repeat(62)}`;
    expect(id).toHaveLength(128);
    const result = validateRequest("enhance", { analysisId: id, addAIComps: true });
    expect(result.ok && result.value.analysisId).toBe(id);
  });

  test.each([
    ["a path", "../../admin"],
    ["a slash", "abc/def"],
    ["a space inside", "abc def"],
    ["a query", "abc?x=1"],
    ["empty", ""],
    ["129 characters", "a".repeat(129)],
  ])("an unsafe id (%s) is refused with the id rule", (_name, id) => {
    expectOneIssue(
      "enhance",
      { analysisId: id, addAIComps: true },
      "analysisId",
      "must be an analysis id: 1 to 128 letters, digits, - or _",
    );
  });

  test("an id that is a number is refused", () => {
    expectOneIssue("enhance", { analysisId: 12345, addAIComps: true }, "analysisId", "got 12345");
  });

  test("a missing id and no AI function are both reported", () => {
    const issues = issuesOf("enhance", {});
    expect(issues.map((i) => i.path).sort()).toEqual(["addAIComps", "analysisId"]);
  });
});

describe("bodies that are not objects", () => {
  const notObjects: [string, unknown, string][] = [
    ["null", null, "null"],
    ["a list", [VALID.buy], "a list"],
    ["text", "fullAddress=12 Main St", "text"],
    ["a number", 42, "a number"],
    ["a boolean", true, "a boolean"],
    ["nothing", undefined, "undefined"],
  ];
  const cases = ALL_OPS.flatMap((op) => notObjects.map(([name, value, shown]) => [op, name, value, shown] as const));
  test.each(cases)("%s: a body of %s is one issue at body", (op, _name, value, shown) => {
    expect(issuesOf(op, value)).toEqual([{ path: "body", message: `must be a JSON object; got ${shown}` }]);
  });
});

describe("every bad field is reported at once", () => {
  test("a fractional bedrooms value and a lone lat are both reported", () => {
    const issues = issuesOf("buy", { ...body("buy", { bedrooms: 2.5 }, ["fullAddress"]), lat: 30.27 });
    expect(issues).toHaveLength(2);
    expect(issues).toContainEqual({ path: "bedrooms", message: "must be a whole number from 0 to 50; got 2.5" });
    expect(issues).toContainEqual({
      path: "lng",
      message: "is required with lat: give lat and lng together, or fullAddress alone",
    });
  });

  test("owned: a range, an unknown field, a missing field and the location rule together", () => {
    const input = { ...body("owned", { interestRatePercentage: 18, address: "x" }, ["fullAddress", "bathrooms"]) };
    const issues = issuesOf("owned", input);
    expect(issues.map((i) => i.path).sort()).toEqual(["address", "bathrooms", "fullAddress", "interestRatePercentage"]);
    expect(issues.find((i) => i.path === "interestRatePercentage")?.message).toBe(
      "must be a number from 0 to 15 (percent); got 18",
    );
  });

  test("the years rule is checked alongside a bad field elsewhere", () => {
    const issues = issuesOf("owned", body("owned", { bedrooms: -1, mortgageLength: 10, yearsRemainingOnMortgage: 12 }));
    expect(issues.map((i) => i.path).sort()).toEqual(["bedrooms", "yearsRemainingOnMortgage"]);
  });
});

describe("describing issues", () => {
  test("describeIssues joins each path and message", () => {
    const issues = issuesOf("buy", body("buy", { interestRatePercentage: 18 }, ["bedrooms"]));
    expect(describeIssues(issues)).toBe(
      "bedrooms is required; interestRatePercentage must be a number from 0 to 15 (percent); got 18",
    );
  });

  test("fieldRule gives the rule text of a field for help", () => {
    expect(fieldRule("owned", "downPaymentPercentage")).toBe("a number from 0 to 40 (percent)");
    expect(fieldRule("buy", "interestRatePercentage")).toBe("a number from 0 to 15 (percent)");
    expect(fieldRule("buy", "bathrooms")).toBe("a multiple of 0.5 from 0 to 50");
    expect(fieldRule("buy", "fullAddress")).toBe("text of 1 to 300 characters");
    expect(fieldRule("buy", "nope")).toBeUndefined();
  });
});

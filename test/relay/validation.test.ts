import {
  ARB_PATH,
  BUY_PATH,
  COHOST_PATH,
  ENHANCE_PATH,
  OWNED_PATH,
  TEST_TOKEN,
  TestRelay,
  buyBody,
  startRelay,
} from "../support/relay";

describe("invalid input is refused before anything is sent or billed", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
  });
  afterAll(() => t.close());
  afterEach(() => expect(t.sandboxStats().arrivals).toBe(0));

  test.each([
    [BUY_PATH, { ...buyBody(), interestRatePercentage: 15.5 }, "interestRatePercentage", /from 0 to 15/],
    [BUY_PATH, { purchasePriceUSD: 1, bedrooms: 1, bathrooms: 1, accomodates: 1 }, "fullAddress", /location rule/],
    [BUY_PATH, { ...buyBody(), fullAddress: undefined, lat: 30.2 }, "lng", /lat and lng together/],
    [BUY_PATH, { ...buyBody(), lat: 91, lng: 0 }, "lat", /from -90 to 90/],
    [BUY_PATH, { ...buyBody(), accommodates: 8 }, "accommodates", /did you mean accomodates/],
    [ARB_PATH, { fullAddress: "Nashville", bedrooms: 1, bathrooms: 1, accomodates: 2 }, "monthlyRentUSD", /required/],
    [
      OWNED_PATH,
      {
        fullAddress: "x",
        purchasePriceUSD: 1,
        downPaymentPercentage: 41,
        interestRatePercentage: 5,
        mortgageLength: 30,
        yearsRemainingOnMortgage: 20,
        bedrooms: 1,
        bathrooms: 1,
        accomodates: 2,
      },
      "downPaymentPercentage",
      /from 0 to 40/,
    ],
    [
      OWNED_PATH,
      {
        fullAddress: "x",
        purchasePriceUSD: 1,
        downPaymentPercentage: 20,
        interestRatePercentage: 5,
        mortgageLength: 15,
        yearsRemainingOnMortgage: 20,
        bedrooms: 1,
        bathrooms: 1,
        accomodates: 2,
      },
      "yearsRemainingOnMortgage",
      /must not exceed mortgageLength/,
    ],
    [
      OWNED_PATH,
      {
        fullAddress: "x",
        purchasePriceUSD: 1,
        downPaymentPercentage: 20,
        interestRatePercentage: 5,
        mortgageLength: 31,
        yearsRemainingOnMortgage: 20,
        bedrooms: 1,
        bathrooms: 1,
        accomodates: 2,
      },
      "mortgageLength",
      /from 0 to 30/,
    ],
    [
      COHOST_PATH,
      { fullAddress: "x", bedrooms: 1, bathrooms: 1, accomodates: 2, addAIComps: "yes" },
      "addAIComps",
      /true or false/,
    ],
    [ENHANCE_PATH, { analysisId: "abc" }, "addAIComps", /at least one AI function/],
    [ENHANCE_PATH, { analysisId: "../../etc/passwd", addAIComps: true }, "analysisId", /letters, digits/],
  ])("%s with a bad %#: 400 naming the field and the rule", async (path, body, field, rule) => {
    const r = await t.post(path, body);
    expect(r.status).toBe(400);
    expect(r.json.success).toBe(false);
    expect(r.json.error.code).toBe("STR_VALIDATION");
    const issue = (r.json.error.fields as { path: string; message: string }[]).find((f) => f.path === field);
    expect(issue?.message).toMatch(rule);
    expect(r.json.error.message).toContain(field);
  });

  test("a body that is not JSON is a 400; not an object, a 400; a non-JSON content type, a 415", async () => {
    const bad = await t.relay.app.inject({
      method: "POST",
      url: BUY_PATH,
      payload: "{nope",
      headers: { authorization: "Bearer test-token-0123456789abcdef", "content-type": "application/json" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe("STR_BAD_REQUEST");
    const list = await t.post(BUY_PATH, [1, 2]);
    expect(list.status).toBe(400);
    expect(list.json.error.fields[0]).toMatchObject({ path: "body" });
    const text = await t.relay.app.inject({
      method: "POST",
      url: BUY_PATH,
      payload: "hello",
      headers: { authorization: "Bearer test-token-0123456789abcdef", "content-type": "text/plain" },
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe("STR_UNSUPPORTED_MEDIA_TYPE");
  });

  test("a body over the limit is a 413", async () => {
    const small = await startRelay({ RELAY_BODY_LIMIT_BYTES: "2048" });
    try {
      const r = await small.post(BUY_PATH, { ...buyBody(), fullAddress: "x".repeat(5000) });
      expect(r.status).toBe(413);
      expect(r.json.error.code).toBe("STR_BODY_TOO_LARGE");
      expect(small.sandboxStats().arrivals).toBe(0);
    } finally {
      await small.close();
    }
  });

  test("an unknown route is a 404 in the relay's error shape", async () => {
    const r = await t.post("/v1/external/analysis/create/villa", buyBody());
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ success: false, error: { code: "STR_NOT_FOUND" } });
  });
});

describe("an empty body without a content type", () => {
  test("gets STR_BAD_REQUEST on every POST route, as errors.md says", async () => {
    const t = await startRelay();
    try {
      for (const url of [BUY_PATH, ARB_PATH, OWNED_PATH, COHOST_PATH, ENHANCE_PATH, "/v1/batch"]) {
        const r = await t.relay.app.inject({ method: "POST", url, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
        expect({ url, status: r.statusCode, code: r.json().error.code }).toEqual({
          url,
          status: 400,
          code: "STR_BAD_REQUEST",
        });
      }
      expect(t.sandboxStats().arrivals).toBe(0);
    } finally {
      await t.close();
    }
  });
});

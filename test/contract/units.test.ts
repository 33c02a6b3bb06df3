import { normalizeEnvelope } from "../../src/contract";
import { analysisOf, warningTexts } from "../../src/sheet";

/**
 * Units are decided value by value, from what each field means and how it sits among its siblings:
 * never a whole object from its largest value, and never a figure 100× off. A value no reading makes
 * plausible is left out, and a note says why.
 */

function normalized(data: Record<string, unknown>, envelope: Record<string, unknown> = {}) {
  const out = normalizeEnvelope({ success: true, data, ...envelope });
  if (!out.data) throw new Error("no data after normalisation");
  return { ...out, data: out.data };
}

describe("occupancy, value by value", () => {
  test("one p90 of 1.05 among fractions is left blank; the median stays 55 %", () => {
    const { data, notes } = normalized({ occupancy: { p25: 0.42, p50: 0.55, p75: 0.68, p90: 1.05, avg: 0.56 } });
    expect(data.occupancy).toEqual({ p25: 0.42, p50: 0.55, p75: 0.68, avg: 0.56 });
    expect(notes.join("\n")).toMatch(/occupancy p90 \(1\.05\) fits neither as a fraction nor as a percent/);
  });

  test("one p90 of 150 among percents is left blank; the others are read as percents", () => {
    const { data, notes } = normalized({ occupancy: { p25: 42, p50: 55, p75: 68, p90: 150 } });
    expect(data.occupancy).toMatchObject({ p25: 0.42, p50: 0.55, p75: 0.68 });
    expect(data.occupancy.p90).toBeUndefined();
    expect(notes).toContain("occupancy p90 (150) is not an occupancy (0–1 or 0–100 %); left blank");
    expect(notes).toContain("occupancy given in percent, read as p25 42 %, p50 55 %, p75 68 %");
  });

  test("a percent among fractions that sits in order is read as a percent, and said", () => {
    const { data, notes } = normalized({ occupancy: { p25: 0.42, p50: 55, p75: 0.68, p90: 0.8 } });
    expect(data.occupancy).toMatchObject({ p25: 0.42, p50: 0.55, p75: 0.68, p90: 0.8 });
    expect(notes).toContain("occupancy given in percent, read as p50 55 %");
  });

  test("a quartile's occupancy_rate of 150 is blank, and occupancy p90 is not made up from the comparables", () => {
    const comparables = [40, 50, 60].map((o, i) => ({ platformId: `c${i}`, occupancyRatePercentage: o }));
    const { data, notes } = normalized({
      quartiles: {
        "25th_percentile": { occupancy_rate: 40 },
        "50th_percentile": { occupancy_rate: 55 },
        "75th_percentile": { occupancy_rate: 68 },
        "90th_percentile": { occupancy_rate: 150 },
      },
      comparables,
    });
    expect(data.occupancy).toMatchObject({ p25: 0.4, p50: 0.55, p75: 0.68 });
    expect(data.occupancy.p90).toBeUndefined();
    expect(data.quartiles?.["90th_percentile"]?.occupancy_rate).toBeUndefined();
    expect(notes.join("\n")).toMatch(/quartiles' occupancy_rate p90 \(150\) is not an occupancy/);
  });

  test("the headline occupancy given as a fraction is read as a percent; one over 100 is blank", () => {
    expect(normalized({ occupancyRatePercentage: 0.55 }).data.occupancyRatePercentage).toBe(55);
    const { data, notes } = normalized({ occupancyRatePercentage: 5500 });
    expect(data.occupancyRatePercentage).toBeUndefined();
    expect(notes).toContain("occupancy (5500) is not an occupancy of 0–100 %; left blank");
  });
});

describe("percent fields sent as fractions", () => {
  const buy = {
    _id: "a1",
    yearOneOperatingIncomeUSD: 38_610,
    yearOneCashFlowUSD: 2_412,
    totalCashInvestment: 112_250,
    yearOnePrincipalPaydownUSD: 5_526,
    yearOneAppreciationUSD: 13_500,
    monthlyTaxesUSD: 375,
  };

  test("interest 0.06, down payment 0.2 and property tax 0.01 are read as 6 %, 20 % and 1 %", () => {
    const { data, notes } = normalized({
      ...buy,
      interestRatePercentage: 0.06,
      downPaymentPercentage: 0.2,
      propertyTaxPercentage: 0.01,
    });
    expect(data).toMatchObject({ interestRatePercentage: 6, downPaymentPercentage: 20, propertyTaxPercentage: 1 });
    expect(notes).toContain("interestRatePercentage given as a fraction (0.06), read as 6 %");
  });

  test("percents stay percents", () => {
    const { data, notes } = normalized({
      ...buy,
      interestRatePercentage: 6.5,
      downPaymentPercentage: 25,
      propertyTaxPercentage: 1.2,
      yearOneCapRatePercentage: 8.58,
      yearOneCashOnCashPercentage: 2.15,
    });
    expect(data).toMatchObject({
      interestRatePercentage: 6.5,
      downPaymentPercentage: 25,
      propertyTaxPercentage: 1.2,
      yearOneCapRatePercentage: 8.58,
      yearOneCashOnCashPercentage: 2.15,
    });
    expect(notes).toEqual([]);
  });

  test("a cap rate of 0.0858 is read as 8.58 % from the operating income and the price", () => {
    const { data, notes } = normalized({ ...buy, yearOneCapRatePercentage: 0.0858 }, {});
    // price from the tax: 375 × 12 ÷ 1 % = 450,000; 38,610 ÷ 450,000 = 8.58 %
    const withRate = normalized({ ...buy, propertyTaxPercentage: 1, yearOneCapRatePercentage: 0.0858 });
    expect(withRate.data.yearOneCapRatePercentage).toBe(8.58);
    // Without the tax rate, the appreciation (3 % a year) gives the price.
    expect(data.yearOneCapRatePercentage).toBe(8.58);
    expect(notes).toContain("cap rate given as a fraction (0.0858), read as 8.58 %");
  });

  test("a small cash-on-cash that is a true percent stays, told apart by the cash flow", () => {
    const { data } = normalized({ ...buy, yearOneCashFlowUSD: 561, yearOneCashOnCashPercentage: 0.5 });
    expect(data.yearOneCashOnCashPercentage).toBe(0.5);
    const drifted = normalized({ ...buy, yearOneCashOnCashPercentage: 0.0215 });
    expect(drifted.data.yearOneCashOnCashPercentage).toBe(2.15);
  });

  test("a small return with nothing to check it against is left blank, and said", () => {
    const { data, notes } = normalized({ _id: "a2", yearOneCapRatePercentage: 0.0858 });
    expect(data.yearOneCapRatePercentage).toBeUndefined();
    expect(notes.join("\n")).toMatch(/cap rate \(0\.0858\) could be 8\.58 % or 0\.09 %.*left blank/);
  });

  test("an interest rate that is neither a plausible percent nor fraction is blank", () => {
    const { data, notes } = normalized({ interestRatePercentage: 600 });
    expect(data.interestRatePercentage).toBeUndefined();
    expect(notes.join("\n")).toMatch(/interestRatePercentage \(600\) is not an interest rate/);
  });
});

describe("envelopes", () => {
  test("empty data, or data with no analysis field, is no analysis", () => {
    expect(normalizeEnvelope({ success: true, data: {} }).data).toBeUndefined();
    expect(normalizeEnvelope({ success: true, data: { foo: 1 } }).data).toBeUndefined();
  });

  test("an analysis wrapped in data.analysis is unwrapped, and said", () => {
    const out = normalizeEnvelope({ success: true, data: { analysis: { _id: "w1", ratePerNightUSD: 200 } } });
    expect(out.data).toMatchObject({ _id: "w1", ratePerNightUSD: 200 });
    expect(out.notes).toContain("the analysis came wrapped in data.analysis; read from there");
  });

  test("success: false with figures keeps them, and its error text is a clearly marked note", () => {
    const out = normalizeEnvelope({ success: false, error: "partial report", data: { _id: "f1", ratePerNightUSD: 1 } });
    expect(out.data?._id).toBe("f1");
    // The relay answers it as an analysis; its own error shape is `success: false` with an `error` object.
    expect(out).toMatchObject({ success: true, extra: { upstream: { success: false, error: "partial report" } } });
    expect(out.notes[0]).toBe(
      'SERVICE ERROR: the service answered success: false ("partial report") with figures; they are shown as it sent them',
    );
  });

  test("text where a number belongs is blank, with a note saying what it was", () => {
    const { data, notes } = normalized({ ratePerNightUSD: "about 200", revenue: { p50: "n/a" } });
    expect(data.ratePerNightUSD).toBeUndefined();
    expect(notes).toContain('ratePerNightUSD ("about 200") is not a number; left blank');
    expect(notes).toContain('revenue p50 ("n/a") is not a number; left blank');
  });

  test("more than 50 comparables are kept, with a note", () => {
    const comparables = Array.from({ length: 60 }, (_, i) => ({ platformId: `c${i}`, distanceMiles: i }));
    const { data, notes } = normalized({ comparables });
    expect(data.comparables).toHaveLength(60);
    expect(notes).toContain("the service sent 60 comparables; the spec says at most 50");
  });
});

describe("normalised once", () => {
  test("the relay's normalised analysis is marked, and the sheet reads it as it is, with its notes as warnings", () => {
    const out = normalizeEnvelope({ success: true, data: { _id: "m1", occupancy: { p25: 42, p50: 55, p75: 68 } } });
    expect(out.data?._normalized?.notes).toEqual(out.notes);
    const answer = {
      success: true,
      data: out.data as Record<string, unknown>,
      relay: { sandbox: false, operation: "buy" as const },
    };
    // Read again, a fraction of 0.55 must not become 0.55 % (nor 55 stay 55).
    expect(analysisOf(answer)?.occupancy).toMatchObject({ p25: 0.42, p50: 0.55, p75: 0.68 });
    expect(warningTexts(answer)).toContain("occupancy given in percent, read as p25 42 %, p50 55 %, p75 68 %");
  });

  test("a marked analysis is never normalised again, even where a second pass would change it", () => {
    const marked = { _id: "m2", occupancyRatePercentage: 0.9, _normalized: { version: 2, notes: [] } };
    expect(analysisOf({ data: marked })?.occupancyRatePercentage).toBe(0.9);
  });

  test("an analysis cached before the months' nightly rate was named ratePerNightUSD (version 2: adrUSD) still shows it", () => {
    const monthly = [{ month: "Jan", adrUSD: 180, occupancy: 0.5, revenueUSD: 2790 }];
    const cached = { _id: "m3", ratePerNightUSD: 200, monthly, _normalized: { version: 2, notes: [] } };
    expect(analysisOf({ data: cached })?.monthly).toEqual([
      { month: "Jan", ratePerNightUSD: 180, occupancy: 0.5, revenueUSD: 2790 },
    ]);
    const current = {
      ...cached,
      monthly: [{ month: "Jan", ratePerNightUSD: 180 }],
      _normalized: { version: 3, notes: [] },
    };
    expect(analysisOf({ data: current })?.monthly).toEqual([{ month: "Jan", ratePerNightUSD: 180 }]);
  });
});

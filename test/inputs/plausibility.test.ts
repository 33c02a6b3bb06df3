import { PLAUSIBILITY_RULES, unusualValues } from "../../src/inputs";

describe("plausibility bounds", () => {
  test("a price of 450 USD and a monthly rent of 4,500,000 are unusual; an ordinary row is not", () => {
    expect(unusualValues({ purchasePriceUSD: 450, bedrooms: 3, bathrooms: 2, accomodates: 6 })).toEqual([
      { field: "purchasePriceUSD", value: 450, rule: "under 10,000 USD" },
    ]);
    expect(unusualValues({ purchasePriceUSD: 450_000, monthlyRentUSD: 4_500_000 }).map((u) => u.rule)).toEqual([
      "over 50,000 USD a month",
      "above the price / 12",
    ]);
    expect(
      unusualValues({
        purchasePriceUSD: 450_000,
        monthlyRentUSD: 2_500,
        bedrooms: 3,
        bathrooms: 2,
        accomodates: 6,
        squareFeet: 1_800,
      }),
    ).toEqual([]);
  });

  test("rent above price / 12 is checked only when both are given", () => {
    expect(unusualValues({ monthlyRentUSD: 40_000 })).toEqual([]);
    expect(unusualValues({ purchasePriceUSD: 120_000, monthlyRentUSD: 10_001 }).map((u) => u.rule)).toEqual([
      "above the price / 12",
    ]);
  });

  test("a commission over half the revenue is unusual", () => {
    expect(unusualValues({ cohostCommissionPercentage: 25 })).toEqual([]);
    expect(unusualValues({ cohostCommissionPercentage: 60 }).map((u) => u.rule)).toEqual(["over 50 %"]);
  });

  test("every rule's field is a request field a user can type, and says its bound in words", () => {
    for (const r of PLAUSIBILITY_RULES) {
      expect([
        "purchasePriceUSD",
        "monthlyRentUSD",
        "bedrooms",
        "bathrooms",
        "accomodates",
        "squareFeet",
        "cohostCommissionPercentage",
      ]).toContain(r.field);
      expect(r.rule).toMatch(/\d/);
    }
  });
});

import { fieldOfHeader, missingLocation, readRow, recognizeColumns } from "../../src/inputs";

describe("columns are recognised by the words real portfolios use", () => {
  test.each([
    ["Address", "fullAddress"],
    ["Property Address", "fullAddress"],
    ["List Price ($)", "purchasePriceUSD"],
    ["purchase_price", "purchasePriceUSD"],
    ["Beds", "bedrooms"],
    ["BR", "bedrooms"],
    ["Baths #", "bathrooms"],
    ["Sleeps", "accomodates"],
    ["Accommodates", "accomodates"],
    ["Zip Code", "postalCode"],
    ["Monthly Rent", "monthlyRentUSD"],
    ["Interest Rate (%)", "interestRatePercentage"],
    ["Strategy", "strategy"],
    ["Latitude", "lat"],
    ["Long", "lng"],
    ["Notes", null],
    ["Type", null],
  ])("%p → %p", (header, field) => expect(fieldOfHeader(header)).toBe(field));

  test("a field is taken by its first column only, and a table without a location says so", () => {
    expect(recognizeColumns(["Beds", "Bedrooms", "Price"])).toEqual(["bedrooms", null, "purchasePriceUSD"]);
    expect(missingLocation(recognizeColumns(["Price", "Beds"]))).toMatch(/Address column/);
    expect(missingLocation(recognizeColumns(["Lat", "Lng"]))).toBeUndefined();
  });
});

describe("a row becomes a request, or the reasons it cannot", () => {
  const headers = ["Address", "Price", "Beds", "Baths", "Sleeps", "Strategy", "Rent", "Notes"];
  const mapping = recognizeColumns(headers);

  test("a messy but valid buy row", () => {
    const row = readRow(["12 Main St, Austin TX", "$415,000", "3 bd", "2", 8, "", "$2,400", "corner lot"], mapping, {
      headers,
    });
    expect(row).toEqual({
      kind: "request",
      op: "buy",
      request: {
        fullAddress: "12 Main St, Austin TX",
        purchasePriceUSD: 415000,
        bedrooms: 3,
        bathrooms: 2,
        accomodates: 8,
        monthlyRentUSD: 2400,
      },
    });
  });

  test("a per-row strategy, and columns that strategy has no use for are left out", () => {
    const row = readRow(["30.26,-97.74", "", "2", "1", "4", "Rental arbitrage", "2100", ""], mapping, { headers });
    expect(row).toEqual({
      kind: "request",
      op: "arb",
      request: { lat: 30.26, lng: -97.74, bedrooms: 2, bathrooms: 1, accomodates: 4, monthlyRentUSD: 2100 },
    });
  });

  test("bad values are reported by the column's own name and the rule, all at once", () => {
    const row = readRow(["12 Main St", "cheap", "2.5", "1", "0", "", "", ""], mapping, { headers });
    expect(row.kind).toBe("invalid");
    if (row.kind !== "invalid") return;
    expect(row.issues).toEqual([
      { path: "Price", message: expect.stringMatching(/^must be an amount such as 415000/) },
    ]);
    const second = readRow(["12 Main St", "100000", "2.5", "1", "0", "", "", ""], mapping, { headers });
    expect(second.kind === "invalid" && second.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "Beds: must be a whole number from 0 to 50; got 2.5",
      "Sleeps: must be a whole number from 1 to 100 (guests); got 0",
    ]);
  });

  test("a row missing its required values names them", () => {
    const row = readRow(["12 Main St", "", "3", "", "", "", "", ""], mapping, { headers });
    expect(row.kind === "invalid" && row.issues.map((i) => i.path)).toEqual(["Price", "Baths", "Sleeps"]);
  });

  test("a blank row is blank, not an error; defaults and extras apply", () => {
    expect(readRow(["", null, undefined, "", "", "", "", "only notes"], mapping)).toEqual({ kind: "blank" });
    const row = readRow(["1 Lake Rd, Asheville NC", "", "2", "1", "4", "", "", ""], mapping, {
      strategy: "cohost",
      extra: { cohostCommissionPercentage: 25, addAIComps: true },
    });
    expect(row).toEqual({
      kind: "request",
      op: "cohost",
      request: {
        fullAddress: "1 Lake Rd, Asheville NC",
        bedrooms: 2,
        bathrooms: 1,
        accomodates: 4,
        cohostCommissionPercentage: 25,
        addAIComps: true,
      },
    });
  });
});

import { propertyRequest } from "../../taskpane/single-analysis";

/** The Start tab's form, read as a table row is: the same readers, messages naming the form's labels. */
describe("one property from the Start tab's form", () => {
  test('"$489,000", "3 bd" and friends read as in a table, into a buy request', () => {
    expect(propertyRequest(["1100 S Lamar Blvd, Austin TX", "$489,000", "3 bd", "2", "6"])).toEqual({
      ok: true,
      params: {
        fullAddress: "1100 S Lamar Blvd, Austin TX",
        purchasePriceUSD: 489000,
        bedrooms: 3,
        bathrooms: 2,
        accomodates: 6,
      },
    });
  });

  test("what is wrong is named by the form's labels; an empty form asks for the address", () => {
    const bad = propertyRequest(["1100 S Lamar Blvd, Austin TX", "$489,000", "2", "two", "6"]);
    expect(bad).toEqual({
      ok: false,
      issues: [{ path: "Bathrooms", message: expect.stringMatching(/^must be a number/) }],
    });
    const missing = propertyRequest(["1100 S Lamar Blvd, Austin TX", "", "2", "2", "6"]);
    expect(missing.ok === false && missing.issues.map((i) => i.path)).toEqual(["Purchase price"]);
    expect(propertyRequest(["", "", "", "", ""])).toEqual({
      ok: false,
      issues: [{ path: "Address", message: "is required" }],
    });
  });
});

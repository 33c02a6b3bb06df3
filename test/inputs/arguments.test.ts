import { optionNames, readLocationArgument, readOptions } from "../../src/inputs";

const r = (x: { ok: boolean; value?: unknown; message?: string }) => (x.ok ? x.value : `ERR ${x.message}`);

describe("the location argument", () => {
  test("an address, lat,lng text, or a 1×2 / 2×1 range of numbers", () => {
    expect(r(readLocationArgument("12 Main St, Austin TX"))).toEqual({ fullAddress: "12 Main St, Austin TX" });
    expect(r(readLocationArgument("30.2672,-97.7431"))).toEqual({ lat: 30.2672, lng: -97.7431 });
    expect(r(readLocationArgument([[30.2672, -97.7431]]))).toEqual({ lat: 30.2672, lng: -97.7431 });
    expect(r(readLocationArgument([[30.2672], [-97.7431]]))).toEqual({ lat: 30.2672, lng: -97.7431 });
    expect(r(readLocationArgument([["12 Main St"]]))).toEqual({ fullAddress: "12 Main St" });
  });
  test("anything else names what it expects", () => {
    expect(r(readLocationArgument(42))).toMatch(/^ERR an address or "lat,lng"; got the number 42/);
    expect(r(readLocationArgument([[1, 2, 3]]))).toMatch(/range of two cells/);
  });
});

describe("the options argument reaches every optional parameter", () => {
  test("name=value text, with spec names or everyday names, values read like cells", () => {
    expect(readOptions("interestRatePercentage=6.5; addAIComps=TRUE; zip=78701; sqft=1,450", "buy")).toEqual({
      ok: true,
      params: { interestRatePercentage: 6.5, addAIComps: true, postalCode: "78701", squareFeet: 1450 },
    });
    expect(readOptions("Interest=7%; Rent=$2,400", "buy")).toEqual({
      ok: true,
      params: { interestRatePercentage: 7, monthlyRentUSD: 2400 },
    });
  });

  test("a two-column range of names and values; blank rows ignored", () => {
    expect(
      readOptions(
        [
          ["commission", 0.25],
          ["", ""],
          ["AI expenses", "yes"],
        ],
        "cohost",
      ),
    ).toEqual({ ok: true, params: { cohostCommissionPercentage: 25, addAIExpenseEstimates: true } });
  });

  test("every optional parameter of every strategy is reachable by its spec name", () => {
    for (const op of ["buy", "arb", "owned", "cohost"] as const) {
      for (const name of optionNames(op)) expect(readOptions(`${name}=`, op)).toEqual({ ok: true, params: {} });
    }
  });

  test("an unknown, repeated, positional or unreadable option is an error naming it", () => {
    expect(readOptions("commission=20", "buy")).toEqual({
      ok: false,
      message: expect.stringMatching(/^"commission" is not an option of buy; options: .*interestRatePercentage/),
    });
    expect(readOptions("interest=6; rate=7", "buy")).toEqual({
      ok: false,
      message: "interestRatePercentage is given twice",
    });
    expect(readOptions("purchasePriceUSD=1", "buy", ["purchasePriceUSD"])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/is not an option of buy/),
    });
    expect(readOptions("interest=high", "buy")).toEqual({
      ok: false,
      message: 'interestRatePercentage must be a percentage such as 6.5%; got "high"',
    });
    expect(readOptions("interest 6", "buy")).toMatchObject({ ok: false, message: expect.stringMatching(/name=value/) });
    expect(readOptions([["a", "b", "c"]], "buy")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/two columns/),
    });
    expect(readOptions([["interest=6.5; ai comps=yes"]], "buy")).toEqual({
      ok: true,
      params: { interestRatePercentage: 6.5, addAIComps: true },
    });
  });

  test("empty options are no options", () => {
    expect(readOptions(undefined, "buy")).toEqual({ ok: true, params: {} });
    expect(readOptions("", "buy")).toEqual({ ok: true, params: {} });
    expect(readOptions([[""]], "buy")).toEqual({ ok: true, params: {} });
    expect(readOptions([["", ""]], "buy")).toEqual({ ok: true, params: {} });
  });
});

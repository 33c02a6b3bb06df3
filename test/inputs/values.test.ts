import { readBoolean, readLocation, readMoney, readNumber, readPercent, readStrategy, readText } from "../../src/inputs";

const value = <T>(r: { ok: true; value: T | undefined } | { ok: false; message: string }) => (r.ok ? r.value : `ERR ${r.message}`);

describe("reading values the way spreadsheets hold them", () => {
  test.each([
    ["$415,000", 415000],
    ["415000", 415000],
    [415000, 415000],
    ["415k", 415000],
    ["1.2M", 1200000],
    ["USD 2,100.50", 2100.5],
    ["  $ 2,100 ", 2100],
    ["(500)", -500],
    ["", undefined],
    [null, undefined],
  ])("money %p → %p", (input, expected) => expect(value(readMoney(input))).toBe(expected));

  test("money that is not an amount names what was expected and what was given", () => {
    expect(value(readMoney("four hundred"))).toBe('ERR an amount such as 415000 or $415,000; got "four hundred"');
    expect(value(readMoney(true))).toMatch(/^ERR an amount/);
  });

  test.each([
    ["6.5%", 6.5],
    ["6.5", 6.5],
    [6.5, 6.5],
    [0.065, 6.5],
    ["0.5%", 0.5],
    [0, 0],
    [20, 20],
  ])("percent %p → %p", (input, expected) => expect(value(readPercent(input))).toBe(expected));

  test.each([
    ["3", 3],
    ["3 bd", 3],
    ["2.5 baths", 2.5],
    ["1,200 sqft", 1200],
    [4, 4],
  ])("number %p → %p", (input, expected) => expect(value(readNumber(input))).toBe(expected));
  test("a number that is not one is refused", () => expect(value(readNumber("three"))).toMatch(/^ERR a number; got "three"/));

  test.each([
    ["TRUE", true],
    ["no", false],
    [1, true],
    [false, false],
    ["", undefined],
  ])("boolean %p → %p", (input, expected) => expect(value(readBoolean(input))).toBe(expected));
  test("a boolean that is not one is refused", () => expect(value(readBoolean("maybe"))).toMatch(/^ERR TRUE or FALSE/));

  test("strategies by their common names, case and punctuation ignored", () => {
    expect(["Buy", "purchase", "Rental Arbitrage", "ARB", "owned", "Co-host", "cohosting"].map((s) => value(readStrategy(s)))).toEqual(["buy", "buy", "arb", "arb", "owned", "cohost", "cohost"]);
    expect(value(readStrategy("flip"))).toMatch(/^ERR one of buy, arb, owned, cohost; got "flip"/);
    expect(value(readStrategy("enhance"))).toMatch(/^ERR/);
    expect(value(readStrategy("enhance", true))).toBe("enhance");
  });

  test("a location is two numbers (latitude first) or an address", () => {
    expect(value(readLocation("30.2672, -97.7431"))).toEqual({ lat: 30.2672, lng: -97.7431 });
    expect(value(readLocation("(30.2672 -97.7431)"))).toEqual({ lat: 30.2672, lng: -97.7431 });
    expect(value(readLocation(" 12 Main St, Austin TX "))).toEqual({ fullAddress: "12 Main St, Austin TX" });
    expect(value(readLocation(42))).toMatch(/^ERR an address or "lat,lng"/);
  });

  test("text is trimmed and a ZIP typed as a number becomes text", () => {
    expect(value(readText(" Austin "))).toBe("Austin");
    expect(value(readText(78701))).toBe("78701");
  });
});

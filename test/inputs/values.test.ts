import {
  CellInput,
  STRATEGY_NAMES,
  isBlank,
  readBoolean,
  readLocation,
  readMoney,
  readNumber,
  readPercent,
  readStrategy,
  readText,
} from "../../src/inputs";

const value = <T>(r: { ok: true; value: T | undefined } | { ok: false; message: string }) =>
  r.ok ? r.value : `ERR ${r.message}`;

/** Text of exactly `length` characters that reads as 1 ("000…01"). */
const digits = (length: number) => `${"0".repeat(length - 1)}1`;

describe("reading values the way spreadsheets hold them", () => {
  test.each([
    ["$415,000", 415000],
    ["415000", 415000],
    [415000, 415000],
    ["415k", 415000],
    ["415 K", 415000],
    ["1.2M", 1200000],
    ["1.2 m", 1200000],
    ["USD 2,100.50", 2100.5],
    ["us$ 2,100", 2100],
    ["2100 usd", 2100],
    ["2100usd", 2100],
    ["415k usd", 415000],
    ["2100.50", 2100.5],
    ["  $ 2,100 ", 2100],
    ["1,234,567.25", 1234567.25],
    [".5", 0.5],
    ["0", 0],
    [0, 0],
    ["(500)", -500],
    [" (500) ", -500],
    ["-$500", -500],
    ["- 500", -500],
    ["$-500", -500],
    ["$ - 500", -500],
    ["", undefined],
    ["   ", undefined],
    [null, undefined],
    [undefined, undefined],
  ])("money %p → %p", (input, expected) => expect(value(readMoney(input))).toBe(expected));

  test.each([
    // Something besides the amount: reading one number out of it would bill a report for a value nobody typed.
    "$415,000 or 12",
    "415,000 - 20,000",
    "$415,000/mo",
    "about 415000",
    "415000 12",
    "415kk",
    "k",
    "$",
    "415.",
    "(500",
    "500)",
    "$(500)",
    "(500)k",
    "1.2.3",
    "12-3",
    // A comma not followed by a group of three digits is a decimal comma or a typo, not thousands.
    "1,5",
    "1,50",
    "1,5000",
    "4,15,000",
    "1234,567",
    ",500",
    "5,.5",
  ])("money %p is refused, not read as some other amount", (input) => {
    expect(value(readMoney(input))).toBe(`ERR an amount such as 415000 or $415,000; got ${JSON.stringify(input)}`);
  });

  test("money that is not an amount names what was expected and what was given", () => {
    expect(value(readMoney("four hundred"))).toBe('ERR an amount such as 415000 or $415,000; got "four hundred"');
    expect(value(readMoney(true))).toBe("ERR an amount such as 415000 or $415,000; got true");
    expect(value(readMoney(Number.NaN))).toBe("ERR an amount; got NaN");
    expect(value(readMoney(Number.POSITIVE_INFINITY))).toBe("ERR an amount; got Infinity");
  });

  test.each([
    ["6.5%", 6.5],
    ["6.5 %", 6.5],
    [" 6.5% ", 6.5],
    ["6.5", 6.5],
    ["6.25%", 6.25],
    [6.5, 6.5],
    // Excel stores a %-formatted cell as its fraction; text copied from one reads the same.
    [0.065, 6.5],
    ["0.065", 6.5],
    [0.07, 7],
    ["0.07", 7],
    [".5", 50],
    ["0.5%", 0.5],
    // 1 is one percent, never 100 % (a co-host commission of 1 stays 1 %).
    [1, 1],
    ["1", 1],
    ["1%", 1],
    [0, 0],
    ["0", 0],
    ["-0.5", -0.5],
    [-0.5, -0.5],
    [-5, -5],
    ["-2%", -2],
    [20, 20],
    ["", undefined],
    [null, undefined],
  ])("percent %p → %p", (input, expected) => expect(value(readPercent(input))).toBe(expected));

  test.each(["6.5%%", "%6.5", "6.5 percent", "six", "6,5%", "1.2.3", "6.5% 7", "6 5"])(
    "percent %p is refused",
    (input) => {
      expect(value(readPercent(input))).toBe(`ERR a percentage such as 6.5%; got ${JSON.stringify(input)}`);
    },
  );

  test("a percentage that is not one names what was given", () => {
    expect(value(readPercent(true))).toBe("ERR a percentage such as 6.5%; got true");
    expect(value(readPercent(Number.NaN))).toBe("ERR a percentage; got NaN");
  });

  test.each([
    ["3", 3],
    [" 3 ", 3],
    ["3.0", 3],
    ["3 bd", 3],
    ["3bd", 3],
    ["2.5 baths", 2.5],
    ["2.25 baths", 2.25],
    ["1,234,567.5 sqft", 1234567.5],
    ["12,345 sqft", 12345],
    ["1,200.25 sqft", 1200.25],
    ["1,200 sqft", 1200],
    ["1,200 sq. ft.", 1200],
    ["1,200 sq/ft", 1200],
    ["-2", -2],
    ["0", 0],
    [".5", 0.5],
    [4, 4],
    [0, 0],
    ["", undefined],
    [null, undefined],
  ])("number %p → %p", (input, expected) => expect(value(readNumber(input))).toBe(expected));

  test.each(["three", "3 or 4", "3-4", "bd 3", "1,5", "1,50", "1,5000", "3 bd!", "1234,567", "3 bd 2 ba", "3_", "#3"])(
    "number %p is refused",
    (input) => {
      expect(value(readNumber(input))).toBe(`ERR a number; got ${JSON.stringify(input)}`);
    },
  );
  test("a number that is not one names what was given", () => {
    expect(value(readNumber(true))).toBe("ERR a number; got true");
    expect(value(readNumber(Number.NaN))).toBe("ERR a number; got NaN");
  });

  test.each([
    ["TRUE", true],
    [" yes ", true],
    ["Y", true],
    ["1", true],
    ["on", true],
    ["no", false],
    ["FALSE", false],
    ["n", false],
    ["0", false],
    ["Off", false],
    [1, true],
    // A 0 in an "AI comps" column is FALSE: read as TRUE it would add 0.10 USD a step.
    [0, false],
    [true, true],
    [false, false],
    ["", undefined],
    [null, undefined],
  ])("boolean %p → %p", (input, expected) => expect(value(readBoolean(input))).toBe(expected));
  test.each([
    ["maybe", '"maybe"'],
    [2, "2"],
    [-1, "-1"],
    ["10", '"10"'],
    ["yess", '"yess"'],
  ])("boolean %p is refused", (input, shown) => {
    expect(value(readBoolean(input))).toBe(`ERR TRUE or FALSE; got ${shown}`);
  });

  test("each strategy's own name reads as itself", () => {
    expect(STRATEGY_NAMES).toEqual(["buy", "arb", "owned", "cohost"]);
    expect(STRATEGY_NAMES.map((s) => value(readStrategy(s)))).toEqual(STRATEGY_NAMES);
  });

  test("strategies by their common names, case and punctuation ignored", () => {
    const names = [
      "Buy",
      "purchase",
      "Acquisition",
      "Rental Arbitrage",
      "ARB",
      "arbitrage",
      "lease",
      "owned",
      "own",
      "Existing",
      "Co-host",
      "cohosting",
      "co-manage",
    ];
    expect(names.map((s) => value(readStrategy(s)))).toEqual([
      "buy",
      "buy",
      "buy",
      "arb",
      "arb",
      "arb",
      "arb",
      "owned",
      "owned",
      "owned",
      "cohost",
      "cohost",
      "cohost",
    ]);
    expect(value(readStrategy("flip"))).toBe('ERR one of buy, arb, owned, cohost; got "flip"');
    expect(value(readStrategy("enhance"))).toBe('ERR one of buy, arb, owned, cohost; got "enhance"');
    expect(value(readStrategy("enhance", true))).toBe("enhance");
    expect(value(readStrategy("buy", true))).toBe("buy");
    expect(value(readStrategy(7))).toBe("ERR one of buy, arb, owned, cohost; got 7");
    expect(value(readStrategy(" "))).toBeUndefined();
  });

  test.each([
    ["30.2672, -97.7431", { lat: 30.2672, lng: -97.7431 }],
    ["(30.2672 -97.7431)", { lat: 30.2672, lng: -97.7431 }],
    [" ( 30.2672 ; -97.7431 ) ", { lat: 30.2672, lng: -97.7431 }],
    ["-33.8688,151.2093", { lat: -33.8688, lng: 151.2093 }],
    ["48.8566, 2.3522", { lat: 48.8566, lng: 2.3522 }],
    ["30 -97", { lat: 30, lng: -97 }],
    ["0,0", { lat: 0, lng: 0 }],
  ])("location %p is coordinates, latitude first", (input, expected) =>
    expect(value(readLocation(input))).toEqual(expected),
  );

  test.each([
    // Only text that is two numbers and nothing else is coordinates: anything more is an address.
    ["12 Main St Unit 4 12", "12 Main St Unit 4 12"],
    [" 12 Main St, Austin TX ", "12 Main St, Austin TX"],
    ["Unit 4, 12", "Unit 4, 12"],
    ["30.2672, -97.7431 Austin", "30.2672, -97.7431 Austin"],
    ["30.2672, -97.7431, 5", "30.2672, -97.7431, 5"],
    ["30., -97.", "30., -97."],
    ["30.2672", "30.2672"],
    ["30.2672,, -97.7431", "30.2672,, -97.7431"],
    ["30.2672 - 97.7431", "30.2672 - 97.7431"],
  ])("location %p is an address", (input, address) =>
    expect(value(readLocation(input))).toEqual({ fullAddress: address }),
  );

  test("a location must be text", () => {
    expect(value(readLocation(42))).toBe('ERR an address or "lat,lng"; got 42');
    expect(value(readLocation(""))).toBeUndefined();
  });

  test("text is trimmed and a ZIP typed as a number becomes text", () => {
    expect(value(readText(" Austin "))).toBe("Austin");
    expect(value(readText(78701))).toBe("78701");
    expect(value(readText(null))).toBeUndefined();
    expect(value(readText(true))).toBe("ERR text; got true");
    expect(value(readText(Number.NaN))).toBe("ERR text; got NaN");
  });

  test("blank is nothing, or only spaces", () => {
    expect([null, undefined, "", "  \t"].map(isBlank)).toEqual([true, true, true, true]);
    expect([" x ", 0, false].map(isBlank)).toEqual([false, false, false]);
  });
});

describe("the 100-character guard: longer text is never read as a number (the patterns would freeze Excel)", () => {
  test.each([
    ["money", readMoney, "an amount such as 415000 or $415,000"],
    ["percent", readPercent, "a percentage such as 6.5%"],
    ["number", readNumber, "a number"],
  ] as const)("%s: 100 characters are read, 101 refused", (_name, read, expected) => {
    expect(value(read(digits(100)))).toBe(1);
    expect(value(read(digits(101)))).toBe(`ERR ${expected}; got "${"0".repeat(37)}..."`);
  });

  test("location: 100 characters can be coordinates; 101 are an address", () => {
    const coordinates = (length: number) => `${"0".repeat(length - 4)}1, 2`;
    expect(value(readLocation(coordinates(100)))).toEqual({ lat: 1, lng: 2 });
    expect(value(readLocation(coordinates(101)))).toEqual({ fullAddress: coordinates(101) });
  });

  test("a refused value is shown whole up to 40 characters, cut to 37 and ... beyond", () => {
    const text = (length: number) => "x".repeat(length);
    expect(value(readNumber(text(40)))).toBe(`ERR a number; got "${text(40)}"`);
    expect(value(readNumber(text(41)))).toBe(`ERR a number; got "${text(37)}..."`);
  });
});

describe("exactly 1 as a percentage depends on what the field allows", () => {
  test.each<[CellInput, number | undefined, number]>([
    [1, 100, 100], // a %-formatted 100 % where 100 % is allowed (a co-host commission)
    [1, 99, 1], // 1 % where it is not
    [1, undefined, 1],
    ["1", 100, 100],
    [0.5, undefined, 50],
    [0.5, 100, 50],
    [1.5, 100, 1.5],
  ])("%p with maxPercent %p reads %p", (input, maxPercent, expected) => {
    expect(value(readPercent(input, maxPercent === undefined ? {} : { maxPercent }))).toBe(expected);
  });
});

test("a unit after a count may be in capitals", () => {
  expect(value(readNumber("3 BD"))).toBe(3);
  expect(value(readNumber("2.5 Baths"))).toBe(2.5);
});

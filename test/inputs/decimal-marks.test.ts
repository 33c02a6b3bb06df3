import {
  CellInput,
  NumberStyle,
  readMoney,
  readNumber,
  readPercent,
  readRow,
  recognizeColumns,
} from "../../src/inputs";

/**
 * Decimal marks: a table written with "," as the decimal mark and "." as the thousands mark (most of
 * Europe) reads by that convention; a text value whose amount depends on a convention that is not
 * known is refused with both readings, never guessed.
 */
const value = (r: { ok: true; value: unknown } | { ok: false; message: string }) =>
  r.ok ? r.value : `ERR ${r.message}`;

describe("a table with decimal commas", () => {
  const comma = { numbers: "comma" } as const;
  test.each([
    ["450.000", 450000],
    ["€ 450.000", "ERR"],
    ["1.234.567,89", 1234567.89],
    ["$450.000", 450000],
    ["450000", 450000],
    ["1,2M", 1200000],
    ["2.100,50 USD", 2100.5],
  ])("money %p → %p", (input, expected) => {
    const got = value(readMoney(input, comma));
    if (expected === "ERR") expect(String(got)).toMatch(/^ERR/);
    else expect(got).toBe(expected);
  });
  test.each([
    ["1,5", 1.5],
    ["2,5 baths", 2.5],
    ["1.200 sqft", 1200],
    [1.5, 1.5],
  ])("number %p → %p", (input, expected) => expect(value(readNumber(input, comma))).toBe(expected));
  test.each([
    ["6,5%", 6.5],
    ["6,5", 6.5],
    ["0,065", 6.5],
  ])("percent %p → %p", (input, expected) => expect(value(readPercent(input, comma))).toBe(expected));

  test("a value written with a decimal point in a decimal-comma table is refused with both readings", () => {
    expect(value(readNumber("6.5", comma))).toMatch(/^ERR .*"6\.5" could mean 6\.5 or 65/);
  });
});

describe("a table with decimal points", () => {
  const point = { numbers: "point" } as const;
  test.each([
    ["$415,000", 415000],
    ["450.000", 450],
    ["1,234.5", 1234.5],
    ["12,34,567", 1234567],
  ])("money %p → %p", (input, expected) => expect(value(readMoney(input, point))).toBe(expected));
  test("1,5 is not read as 15: it is refused with both readings", () => {
    expect(value(readNumber("1,5", point))).toMatch(/^ERR .*"1,5" could mean 1\.5 or 15/);
  });
});

describe("a table whose convention is not known", () => {
  const unknown = { numbers: "unknown" } as const;
  test.each(["450.000", "415,000", "1,5", "2.500", "$1,5", "$450.000"])(
    "%p is refused, naming both readings",
    (input) => {
      const r = readMoney(input, unknown);
      expect(r.ok).toBe(false);
      expect(value(r)).toMatch(/could mean \S+ or \S+/);
    },
  );
  test.each([
    ["415000", 415000],
    ["6.5", 6.5],
    ["1,234.56", 1234.56],
    ["1.234,56", 1234.56],
    ["415k", 415000],
    [450000, 450000],
  ])("%p reads one way only → %p", (input, expected) => expect(value(readMoney(input, unknown))).toBe(expected));
});

/**
 * A currency sign or code before or after commas between groups of three reads as thousands in
 * every convention: as decimal commas it would be money to the tenth of a cent. Hosts without
 * ExcelApi 1.11 read tables in the unknown convention (taskpane/excel/number-style.ts), where
 * "$347,500" was refused.
 */
describe("an amount of money with commas between groups of three", () => {
  test.each<[string, number]>([
    ["$347,500", 347500],
    ["$ 347,500", 347500],
    ["USD 1,234,567", 1234567],
    ["347,500 USD", 347500],
    ["-$347,500", -347500],
    ["($2,100)", -2100],
    ["$347,500k", 347500000],
  ])("%p → %p in every convention", (input, expected) => {
    for (const numbers of ["unknown", "point", "comma"] as const)
      expect(value(readMoney(input, { numbers }))).toBe(expected);
    expect(value(readMoney(input))).toBe(expected);
  });
  test("without the currency, the same digits still depend on the convention", () => {
    expect(value(readMoney("347,500", { numbers: "comma" }))).toBe(347.5);
    expect(value(readMoney("347,500", { numbers: "unknown" }))).toMatch(/could mean/);
  });
});

describe("a row of a ;-separated table", () => {
  const headers: CellInput[] = ["Address", "Price", "Baths", "Beds", "Sleeps"];
  const cells: CellInput[] = ["1 Main St, Austin TX", "450.000", "1,5", "3", "6"];
  test.each<[NumberStyle | undefined, unknown]>([
    ["comma", { purchasePriceUSD: 450000, bathrooms: 1.5 }],
    ["unknown", "invalid"],
  ])("read with numbers %p", (numbers, expected) => {
    const row = readRow(cells, recognizeColumns(headers), { headers, ...(numbers ? { numbers } : {}) });
    if (expected === "invalid") {
      expect(row.kind).toBe("invalid");
      if (row.kind !== "invalid") return;
      expect(row.issues.map((i) => i.path)).toEqual(["Price", "Baths"]);
      expect(row.issues[0]?.message).toMatch(/"450\.000" could mean 450 or 450000|"450\.000" could mean 450000 or 450/);
    } else {
      expect(row.kind).toBe("request");
      if (row.kind === "request") expect(row.request).toMatchObject(expected as object);
    }
  });
});

/**
 * Each case below pins one rule of decimalValue that a looser or stricter pattern would change
 * (found by mutation testing, docs/mutation-testing.md): what reads, what is refused, and what the
 * refusal says.
 */
describe("the edges of each convention", () => {
  const point = { numbers: "point" } as const;
  const comma = { numbers: "comma" } as const;

  test.each<[string, { numbers: NumberStyle }, number]>([
    // Indian grouping, with paise and its mirror: the digits after the mark are not one.
    ["12,34,567.50", point, 1234567.5],
    ["12.34.567,50", comma, 1234567.5],
    // Thousands marks only, of the other convention: the one reading there is.
    ["1.234.567", point, 1234567],
    ["1,234,567", comma, 1234567],
    // Written in the other convention with both marks: no other reading.
    ["1.234,5", point, 1234.5],
  ])("%p in %o reads %p", (input, options, expected) => expect(value(readMoney(input, options))).toBe(expected));

  test.each<[string, { numbers: NumberStyle }, string]>([
    [".5", comma, "0.5 or 5"],
    [",5", point, "0.5 or 5"],
  ])("%p in %o is refused: it could mean %s", (input, options, readings) => {
    expect(value(readNumber(input, options))).toContain(`could mean ${readings}`);
  });

  test("a misplaced mark that no convention writes is refused as not a number", () => {
    expect(value(readNumber("1,2.3", comma))).toBe('ERR a number; got "1,2.3"');
    expect(value(readMoney("1.2.3", point))).toBe('ERR an amount such as 415000 or $415,000; got "1.2.3"');
  });

  test("the refusal names the field's kind, the trimmed text, both readings and how to write it", () => {
    expect(value(readNumber(" 1,5 ", point))).toBe(
      'ERR a number that reads one way only: "1,5" could mean 1.5 or 15 (is "," or "." the decimal mark?); write it as 1.5 or 15, without thousands marks',
    );
    expect(value(readMoney("1,5k", point))).toBe(
      'ERR an amount that reads one way only: "1,5k" could mean 1500 or 15000 (is "," or "." the decimal mark?); write it as 1500 or 15000, without thousands marks',
    );
    expect(value(readMoney("-1,5", point))).toContain("could mean -1.5 or -15");
    expect(value(readPercent("6,5", point))).toBe(
      'ERR a percentage that reads one way only: "6,5" could mean 6.5 or 65 (is "," or "." the decimal mark?); write it as 6.5 or 65, without thousands marks',
    );
  });
});

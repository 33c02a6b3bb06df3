import { CellInput, recognizeColumns } from "../../src/inputs";
import { SourceRow, planRows } from "../../src/screening/plan";
import { readLoanTerms } from "../../taskpane/screen";

/**
 * Loan terms for rows without them (the Screen tab's form): planRows passes them to every row, a
 * row's own column wins, and a strategy that takes no such field is sent without it.
 */
const HEADERS = [
  "Address",
  "Strategy",
  "Price",
  "Beds",
  "Baths",
  "Guests",
  "Down payment",
  "Interest",
  "Term",
  "Years left",
];
const row = (n: number, strategy: string, down: CellInput = ""): SourceRow => ({
  sheetRow: n,
  cells: [`${n} Loan St, Austin TX`, strategy, 400000, 3, 2, 6, down, "", 30, 25],
});

describe("loan terms for rows without them", () => {
  const mapping = recognizeColumns(HEADERS);
  const plan = (defaults?: Record<string, unknown>) =>
    planRows([row(1, "owned"), row(2, "owned", "35%"), row(3, "buy")], mapping, {
      strategy: "buy",
      headers: HEADERS,
      numbers: "point",
      ...(defaults ? { defaults } : {}),
    });

  test("each row gets them; its own column wins; a buy row takes only the interest rate", () => {
    const { items, rows } = plan({ downPaymentPercentage: 20, interestRatePercentage: 6.5, mortgageLength: 15 });
    expect(rows.map((r) => r.kind)).toEqual(["request", "request", "request"]);
    expect(items[0]?.params).toMatchObject({
      downPaymentPercentage: 20,
      interestRatePercentage: 6.5,
      mortgageLength: 30,
    });
    expect(items[1]?.params).toMatchObject({ downPaymentPercentage: 35, interestRatePercentage: 6.5 });
    expect(items[2]?.params).toMatchObject({ interestRatePercentage: 6.5 });
    expect(items[2]?.params).not.toHaveProperty("downPaymentPercentage");
    expect(items[2]?.params).not.toHaveProperty("mortgageLength");
  });

  test("without them an owned row missing its down payment is invalid, as before", () => {
    expect(plan().rows.map((r) => r.kind)).toEqual(["invalid", "invalid", "request"]);
  });

  test("the form's text read as columns are: percents, blanks left out, each bad one named", () => {
    expect(
      readLoanTerms({ downPaymentPercentage: "20%", interestRatePercentage: "6,5", mortgageLength: "" }, "comma"),
    ).toEqual({
      ok: true,
      terms: { downPaymentPercentage: 20, interestRatePercentage: 6.5 },
    });
    const bad = readLoanTerms(
      { downPaymentPercentage: "lots", interestRatePercentage: "6.5%", mortgageLength: "thirty" },
      "point",
    );
    expect(bad.ok === false && bad.issues.map((i) => i.split(" must")[0])).toEqual(["Down payment", "Mortgage years"]);
  });
});

import { UNIT_FORMATS, fieldsOf } from "../../src/contract";
import {
  CARD_DATE_FORMAT,
  CARD_LABELS,
  CARD_TIME_FORMAT,
  CARD_WIDTH,
  FormattedCell,
  Grid,
  MODE_TEXT,
  PERCENTILES_LABEL,
  analysisCard,
  isRectangular,
} from "../../src/sheet";
import { arbAnswer, buyAnswer, cohostAnswer, sparseAnswer, warningsOnlyAnswer } from "./fixtures";

/** The value cell of the first row labelled `label`. */
function valueOf(grid: Grid, label: string): FormattedCell | undefined {
  return grid.find((row) => row[0]?.value === label)?.[1];
}

const labels = (grid: Grid) => grid.map((row) => row[0]?.value);

/** The card's rows as [label, value] (the cells after the second are the percentile table's). */
const pairs = (grid: Grid) => grid.map((row) => row.slice(0, 2));
const BLANK_ROW = Array.from({ length: CARD_WIDTH }, () => ({ value: "" }));

describe("the card is a rectangle, a label then values", () => {
  test.each([
    ["buy", buyAnswer],
    ["arb", arbAnswer],
    ["cohost", cohostAnswer],
    ["sparse", sparseAnswer],
    ["warnings only", warningsOnlyAnswer],
  ])("%s card: every row has a label and a value", (_name, answer) => {
    const card = analysisCard(answer, { utcOffsetMinutes: 0 });
    expect(isRectangular(card)).toBe(true);
    expect(card.every((row) => row.length === CARD_WIDTH)).toBe(true);
    for (const [label, value] of card) {
      expect(typeof label?.value).toBe("string");
      expect(value?.value).not.toBeUndefined();
      expect(value?.value).not.toBeNull();
    }
  });
});

describe("the card shows the strategy's fields and no other's", () => {
  test("a buy card has cap rate, mortgage & taxes and the financing terms, not rent or co-host figures", () => {
    const card = analysisCard(buyAnswer);
    expect(labels(card)).toEqual(
      expect.arrayContaining([
        "Cap rate",
        "Year-one mortgage & taxes",
        "Down payment",
        "Interest rate",
        "Year-one cash flow",
      ]),
    );
    expect(labels(card)).not.toContain("Monthly rent");
    expect(labels(card)).not.toContain("Host return");
  });

  test("an arb card has rent and cash-on-cash, not cap rate or mortgage", () => {
    const card = analysisCard(arbAnswer);
    expect(valueOf(card, "Monthly rent")).toEqual({ value: 2500, format: UNIT_FORMATS.usd });
    expect(valueOf(card, "Cash-on-cash return")).toEqual({ value: 0.6, format: UNIT_FORMATS.percent });
    expect(labels(card)).not.toContain("Cap rate");
    expect(labels(card)).not.toContain("Year-one mortgage & taxes");
  });

  test("an enhance answer's strategy is read from its fields: a co-host card has commission and host return only", () => {
    const card = analysisCard(cohostAnswer);
    expect(valueOf(card, "Co-host commission")?.value).toBe(12000);
    expect(valueOf(card, "Host return")?.value).toBe(39000);
    expect(labels(card)).not.toContain("Year-one cash flow");
    expect(labels(card)).not.toContain("Total cash invested");
  });

  test("the caller's strategy wins over the answer's", () => {
    const card = analysisCard(cohostAnswer, { strategy: "arb" });
    expect(labels(card)).toContain("Monthly rent");
  });

  test("the strategy's other fields follow the percentiles in catalogue order; those off the card do not appear", () => {
    const card = analysisCard(buyAnswer);
    const shown = labels(card);
    expect(shown).not.toContain("Latitude");
    const rest = shown.slice(shown.indexOf("Occupancy") + 2, shown.indexOf(CARD_LABELS.fetched));
    const inCatalogueOrder = fieldsOf("buy")
      .filter((f) => !f.offCard)
      .map((f) => f.label)
      .filter((l) => rest.includes(l));
    expect(rest).toEqual(inCatalogueOrder);
    expect(rest[0]).toBe("Bedrooms");
    expect(rest).toContain("Analysis id");
  });
});

describe("the card leads with the decision", () => {
  test("a buy card: mode, then property, price, loan, payment, revenue, cash flow, returns, DSCR, break-even, warnings", () => {
    const card = analysisCard(buyAnswer);
    expect(labels(card).slice(0, 12)).toEqual([
      "Mode",
      "Address",
      "Purchase price",
      "Loan amount",
      "Monthly payment",
      "Year-one revenue",
      "Year-one cash flow",
      "Cash-on-cash return",
      "Cap rate",
      "DSCR",
      "Break-even occupancy",
      CARD_LABELS.warnings,
    ]);
    // The price read back from the taxes (375 a month at 1 %) and the 30-year annuity on 80 % of it.
    expect(valueOf(card, "Purchase price")).toEqual({ value: 450000, format: "$#,##0" });
    expect(valueOf(card, "Loan amount")).toEqual({ value: 360000, format: "$#,##0" });
    expect(valueOf(card, "Monthly payment")).toEqual({ value: 2158.38, format: "$#,##0" });
    expect(valueOf(card, "DSCR")).toEqual({ value: 1.28, format: "0.00" });
    expect(valueOf(card, "Break-even occupancy")?.format).toBe("0.0%");
  });

  test("an arb card's decision has rent, not a price or a loan", () => {
    expect(labels(analysisCard(arbAnswer)).slice(0, 8)).toEqual([
      "Mode",
      "Address",
      "Monthly rent",
      "Year-one revenue",
      "Year-one cash flow",
      "Cash-on-cash return",
      "Break-even occupancy",
      CARD_LABELS.warnings,
    ]);
  });

  test("revenue, nightly rate and occupancy percentiles are one small table, p25 to the average", () => {
    const card = analysisCard(buyAnswer);
    const top = labels(card).indexOf(PERCENTILES_LABEL);
    expect(card[top - 1]).toEqual(BLANK_ROW);
    expect(card[top]?.map((c) => c.value)).toEqual([
      PERCENTILES_LABEL,
      "p25 bear",
      "p50 base",
      "p75 bull",
      "p90",
      "Average",
    ]);
    expect(card[top + 1]).toEqual([
      { value: "Annual revenue" },
      ...[48000, 60000, 72000, 85000, 61000].map((value) => ({ value, format: "$#,##0" })),
    ]);
    expect(card[top + 2]?.map((c) => c.value)).toEqual(["Nightly rate", 210, 250, 290, 340, 255]);
    expect(card[top + 3]?.map((c) => c.value)).toEqual(["Occupancy", 0.6, 0.725, 0.8, 0.88, 0.71]);
    expect(card[top + 3]?.[1]?.format).toBe("0.0%");
    expect(card[top + 4]).toEqual(BLANK_ROW);
    // No percentile is repeated as a row of its own.
    expect(labels(card).filter((l) => /percentile|median/.test(String(l)))).toEqual([]);
  });
});

describe("figures read the Excel way", () => {
  const card = analysisCard(buyAnswer);

  test("percent fields become fractions under a % format", () => {
    expect(valueOf(card, "Cash-on-cash return")).toEqual({ value: 0.075, format: "0.0%" });
    expect(valueOf(card, "Cap rate")).toEqual({ value: 0.0853, format: "0.0%" });
    expect(valueOf(card, "Projected occupancy")).toEqual({ value: 0.725, format: "0.0%" });
  });

  test("money is a number under a $ format; the report link and id are text", () => {
    expect(valueOf(card, "Year-one revenue")).toEqual({ value: 60000, format: "$#,##0" });
    expect(valueOf(card, "Report")?.value).toBe("https://reports.example/an_buy_1");
    expect(valueOf(card, "Analysis id")?.value).toBe("an_buy_1");
  });
});

describe("missing figures", () => {
  test("a field the service left out is an empty cell, never 0, and keeps its row", () => {
    const sparse = analysisCard(sparseAnswer);
    const full = analysisCard(buyAnswer);
    expect(sparse.find((row) => row[0]?.value === "Nightly rate")?.[2]).toEqual({ value: "" });
    expect(valueOf(sparse, "Year-one cash flow")).toEqual({ value: "" });
    expect(sparse.find((row) => row[0]?.value === "Annual revenue")?.[2]).toEqual({ value: 40000, format: "$#,##0" });
    expect(valueOf(sparse, "Cap rate")).toEqual({ value: 0.04, format: "0.0%" });
    // Same strategy, same rows: references into a card survive a refresh.
    expect(labels(sparse).slice(0, -2)).toEqual(labels(full).slice(0, labels(sparse).length - 2));
    // No figure is 0 for a missing one (the warnings row counts warnings: 0 is its real count).
    const figures = sparse.filter((row) => row[0]?.value !== CARD_LABELS.warnings);
    expect(figures.flat().some((c) => c.value === 0)).toBe(false);
  });

  test("a warnings-only answer says there is no analysis and still shows its warnings", () => {
    const card = analysisCard(warningsOnlyAnswer);
    expect(valueOf(card, CARD_LABELS.noAnalysis)?.value).toMatch(/unchanged/);
    expect(card.filter((row) => row[0]?.value === CARD_LABELS.warning).map((row) => row[1]?.value)).toEqual([
      "AI comparables: US properties only",
      "AI expense estimates failed",
    ]);
  });
});

describe("warnings, mode and freshness are visible", () => {
  test("each warning has a ⚠ row at the end, whatever its shape", () => {
    const card = analysisCard(buyAnswer);
    expect(pairs(card.slice(-2))).toEqual([
      [{ value: "⚠ Warning" }, { value: "AI comparables skipped: fewer than 8 usable listing photos" }],
      [{ value: "⚠ Warning" }, { value: "AI expense estimates timed out; category defaults used" }],
    ]);
  });

  test("the row after the decision counts the warnings, so they are seen without scrolling", () => {
    expect(CARD_LABELS.warnings).toBe("Warnings (⚠ rows at the end)");
    expect(valueOf(analysisCard(buyAnswer), CARD_LABELS.warnings)).toEqual({ value: 3, format: "0" });
    expect(analysisCard(buyAnswer)[11]?.[0]).toEqual({ value: CARD_LABELS.warnings });
    expect(valueOf(analysisCard(arbAnswer), CARD_LABELS.warnings)).toEqual({ value: 0, format: "0" });
  });

  test("a sandbox answer says its data is simulated, in the first row", () => {
    expect(pairs(analysisCard(buyAnswer))[0]).toEqual([{ value: "Mode" }, { value: MODE_TEXT.sandbox }]);
    expect(MODE_TEXT.sandbox).toMatch(/simulated/i);
    expect(pairs(analysisCard(arbAnswer))[0]).toEqual([{ value: "Mode" }, { value: "Live" }]);
  });

  test("the fetch time is an Excel date, shown as a date and a time that fit default-width columns", () => {
    const card = analysisCard(buyAnswer, { utcOffsetMinutes: 0 });
    // 2025-06-01 is Excel day 45809; 14:03 is 843/1440 of a day.
    const serial = 45809 + 843 / 1440;
    expect(card.find((row) => row[0]?.value === CARD_LABELS.fetched)?.slice(1, 3)).toEqual([
      { value: serial, format: CARD_DATE_FORMAT },
      { value: serial, format: CARD_TIME_FORMAT },
    ]);
    // "6/1/25" and "14:03": never wider than a default column (yyyy-mm-dd hh:mm shows #######).
    expect([CARD_DATE_FORMAT, CARD_TIME_FORMAT]).toEqual(["m/d/yy", "h:mm"]);
    expect(valueOf(card, CARD_LABELS.cached)?.value).toBe("No: fetched now, cost $0.20");
    expect(valueOf(analysisCard(arbAnswer), CARD_LABELS.cached)?.value).toMatch(/^Yes: .*not billed/);
  });

  test("an answer the add-in's session gave again or computed was not billed now, whatever the relay said of it first", () => {
    expect(valueOf(analysisCard({ ...buyAnswer, session: "remembered" }), CARD_LABELS.cached)?.value).toMatch(
      /^Yes: .*not billed/,
    );
    expect(valueOf(analysisCard({ ...buyAnswer, session: "computed" }), CARD_LABELS.cached)?.value).toMatch(
      /^No: computed in Excel .*not billed/,
    );
  });

  test("a what-if card says so in its first row, with what it changed", () => {
    const card = analysisCard(buyAnswer, { whatIf: ["interest rate 7.5%", "purchase price $400,000"] });
    expect(card[0]?.slice(0, 3)).toEqual([
      { value: "What-if" },
      { value: MODE_TEXT.sandbox },
      { value: "Changed: interest rate 7.5%; purchase price $400,000" },
    ]);
    expect(analysisCard(buyAnswer, { whatIf: [] })[0]?.[2]?.value).toBe("Changed: nothing: the analysis's own inputs");
  });

  test("a card with no warnings ends with the cache row", () => {
    expect(analysisCard(arbAnswer).at(-1)?.[0]?.value).toBe(CARD_LABELS.cached);
  });
});

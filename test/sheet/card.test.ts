import { UNIT_FORMATS, fieldsOf } from "../../src/contract";
import {
  CARD_LABELS,
  DATE_TIME_FORMAT,
  FormattedCell,
  Grid,
  MODE_TEXT,
  analysisCard,
  isRectangular,
} from "../../src/sheet";
import { arbAnswer, buyAnswer, cohostAnswer, sparseAnswer, warningsOnlyAnswer } from "./fixtures";

/** The value cell of the first row labelled `label`. */
function valueOf(grid: Grid, label: string): FormattedCell | undefined {
  return grid.find((row) => row[0]?.value === label)?.[1];
}

const labels = (grid: Grid) => grid.map((row) => row[0]?.value);

describe("the card is a two-column rectangle", () => {
  test.each([
    ["buy", buyAnswer],
    ["arb", arbAnswer],
    ["cohost", cohostAnswer],
    ["sparse", sparseAnswer],
    ["warnings only", warningsOnlyAnswer],
  ])("%s card: every row has a label and a value", (_name, answer) => {
    const card = analysisCard(answer, { utcOffsetMinutes: 0 });
    expect(isRectangular(card)).toBe(true);
    expect(card.every((row) => row.length === 2)).toBe(true);
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

  test("fields appear in catalogue order between the summary rows and the fetch rows; those off the card do not", () => {
    const card = analysisCard(buyAnswer);
    const fieldLabels = fieldsOf("buy")
      .filter((f) => !f.offCard)
      .map((f) => f.label);
    expect(labels(card)).not.toContain("Latitude");
    expect(labels(card).slice(2, 2 + fieldLabels.length)).toEqual(fieldLabels);
  });
});

describe("figures read the Excel way", () => {
  const card = analysisCard(buyAnswer);

  test("percent fields become fractions under a % format", () => {
    expect(valueOf(card, "Cash-on-cash return")).toEqual({ value: 0.075, format: "0.0%" });
    expect(valueOf(card, "Cap rate")).toEqual({ value: 0.0853, format: "0.0%" });
    expect(valueOf(card, "Projected occupancy")).toEqual({ value: 0.725, format: "0.0%" });
  });

  test("occupancy percentiles stay fractions under a % format", () => {
    expect(valueOf(card, "Occupancy, median")).toEqual({ value: 0.725, format: "0.0%" });
    expect(valueOf(card, "Occupancy, 90th percentile")).toEqual({ value: 0.88, format: "0.0%" });
  });

  test("money is a number under a $ format; the report link and id are text", () => {
    expect(valueOf(card, "Annual revenue, 25th percentile")).toEqual({ value: 48000, format: "$#,##0" });
    expect(valueOf(card, "Nightly rate, average")).toEqual({ value: 255, format: "$#,##0" });
    expect(valueOf(card, "Report")?.value).toBe("https://reports.example/an_buy_1");
    expect(valueOf(card, "Analysis id")?.value).toBe("an_buy_1");
  });

  test("every percentile has its row, revenue then nightly rate then occupancy", () => {
    const percentileLabels = labels(card).filter(
      (l) =>
        typeof l === "string" &&
        /(percentile|median|average)$/.test(l) &&
        /^(Annual revenue|Nightly rate|Occupancy),/.test(l),
    );
    expect(percentileLabels).toHaveLength(15);
    expect(percentileLabels[0]).toBe("Annual revenue, 25th percentile");
    expect(percentileLabels[5]).toBe("Nightly rate, 25th percentile");
    expect(percentileLabels[14]).toBe("Occupancy, average");
  });
});

describe("missing figures", () => {
  test("a field the service left out is an empty cell, never 0, and keeps its row", () => {
    const sparse = analysisCard(sparseAnswer);
    const full = analysisCard(buyAnswer);
    expect(valueOf(sparse, "Nightly rate, median")).toEqual({ value: "" });
    expect(valueOf(sparse, "Year-one cash flow")).toEqual({ value: "" });
    expect(valueOf(sparse, "Annual revenue, median")).toEqual({ value: 40000, format: "$#,##0" });
    expect(valueOf(sparse, "Cap rate")).toEqual({ value: 0.04, format: "0.0%" });
    // Same strategy, same rows: references into a card survive a refresh.
    expect(labels(sparse).slice(0, -2)).toEqual(labels(full).slice(0, labels(sparse).length - 2));
    expect(sparse.flat().some((c) => c.value === 0)).toBe(false);
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
    expect(card.slice(-2)).toEqual([
      [{ value: "⚠ Warning" }, { value: "AI comparables skipped: fewer than 8 usable listing photos" }],
      [{ value: "⚠ Warning" }, { value: "AI expense estimates timed out; category defaults used" }],
    ]);
  });

  test("the second row counts the warnings, so they are seen without scrolling", () => {
    expect(analysisCard(buyAnswer)[1]).toEqual([{ value: "Warnings" }, { value: "3: see the ⚠ rows at the end" }]);
    expect(analysisCard(arbAnswer)[1]).toEqual([{ value: "Warnings" }, { value: "None" }]);
  });

  test("a sandbox answer says its data is simulated, in the first row", () => {
    expect(analysisCard(buyAnswer)[0]).toEqual([{ value: "Mode" }, { value: MODE_TEXT.sandbox }]);
    expect(MODE_TEXT.sandbox).toMatch(/simulated/i);
    expect(analysisCard(arbAnswer)[0]).toEqual([{ value: "Mode" }, { value: "Live" }]);
  });

  test("the fetch time is an Excel date and the cache status says whether it was billed", () => {
    const card = analysisCard(buyAnswer, { utcOffsetMinutes: 0 });
    // 2025-06-01 is Excel day 45809; 14:03 is 843/1440 of a day.
    expect(valueOf(card, CARD_LABELS.fetched)).toEqual({ value: 45809 + 843 / 1440, format: DATE_TIME_FORMAT });
    expect(valueOf(card, CARD_LABELS.cached)?.value).toBe("No: fetched now, cost $0.20");
    expect(valueOf(analysisCard(arbAnswer), CARD_LABELS.cached)?.value).toMatch(/^Yes: .*not billed/);
  });

  test("an answer the add-in's session gave again (or computed) was not billed now, whatever the relay said of it first", () => {
    for (const session of ["remembered", "computed"] as const) {
      expect(valueOf(analysisCard({ ...buyAnswer, session }), CARD_LABELS.cached)?.value).toMatch(/^Yes: .*not billed/);
    }
  });

  test("a card with no warnings ends with the cache row", () => {
    expect(analysisCard(arbAnswer).at(-1)?.[0]?.value).toBe(CARD_LABELS.cached);
  });
});

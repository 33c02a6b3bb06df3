import { STRATEGIES, fieldsOf } from "../../src/contract";
import { RelayCallError } from "../../src/client";
import {
  defaultScreeningFields,
  fieldsRow,
  isRectangular,
  screeningResultOf,
  screeningTable,
  splitGrid,
} from "../../src/sheet";
import { arbAnswer, buyAnswer, warningsOnlyAnswer } from "./fixtures";

describe("screening table: a header and one row per property", () => {
  const fields = defaultScreeningFields("buy");

  test("the rows are the single-row layout, under a header of labels and Warnings", () => {
    const grid = screeningTable([{ answer: arbAnswer }, { answer: buyAnswer }], fields);
    expect(grid).toHaveLength(3);
    expect(grid[0]?.at(-1)?.value).toBe("Warnings (sandbox: simulated data)");
    expect(grid[1]).toEqual(fieldsRow(arbAnswer, fields));
    expect(grid[2]).toEqual(fieldsRow(buyAnswer, fields));
    expect(isRectangular(grid)).toBe(true);
  });

  test("a live-only table's header says just Warnings", () => {
    expect(screeningTable([{ answer: arbAnswer }], fields)[0]?.at(-1)?.value).toBe("Warnings");
  });

  test("a failed row stays in place, blank, its last cell saying why", () => {
    const grid = screeningTable(
      [
        { answer: buyAnswer },
        { error: new RelayCallError("STR_BUDGET_EXCEEDED", "Today's budget of $5.00 would be passed: $0.10 is left.") },
        { answer: warningsOnlyAnswer },
      ],
      fields,
    );
    const failed = grid[2] ?? [];
    expect(failed).toHaveLength(fields.length + 1);
    expect(failed.slice(0, -1).every((c) => c.value === "")).toBe(true);
    expect(failed.at(-1)?.value).toMatch(
      /^✖ \[STR_BUDGET_EXCEEDED\] Not billed: Today's budget is spent.*\$0\.10 is left/,
    );
    expect(isRectangular(grid)).toBe(true);
  });

  test("batch line bodies become results", () => {
    expect(screeningResultOf(buyAnswer)).toEqual({ answer: buyAnswer });
    const body = { success: false as const, error: { code: "STR_VALIDATION", message: "bedrooms is required" } };
    expect(screeningResultOf(body)).toEqual({ error: body });
    const row = screeningTable([screeningResultOf(body)], fields)[1];
    expect(row?.at(-1)?.value).toBe("✖ [STR_VALIDATION] bedrooms is required");
  });

  test("splitGrid gives the values and formats to write", () => {
    const { values, formats } = splitGrid(screeningTable([{ answer: buyAnswer }], defaultScreeningFields("buy")));
    expect(values[1]?.slice(0, 3)).toEqual([60000, 250, 0.725]);
    expect(formats[1]?.slice(0, 3)).toEqual(["$#,##0", "$#,##0", "0.0%"]);
    expect(formats[0]?.every((f) => f === "General")).toBe(true);
  });
});

describe("default screening fields", () => {
  test.each(STRATEGIES)("%s: only fields its answers have, ending with the report link and the id", (strategy) => {
    const fields = defaultScreeningFields(strategy);
    for (const f of fields) expect(fieldsOf(strategy)).toContain(f);
    expect(fields.slice(-2).map((f) => f.path)).toEqual(["url", "_id"]);
  });

  test("a mixed table gets the union of its strategies' own columns, in one order", () => {
    const union = defaultScreeningFields(STRATEGIES);
    for (const s of STRATEGIES) for (const f of defaultScreeningFields(s)) expect(union).toContain(f);
    expect(defaultScreeningFields().map((f) => f.path)).toEqual(union.map((f) => f.path));
    // Only the strategies the table has: buy and co-host rows get cap rate and commission, no rent.
    expect(defaultScreeningFields(["buy", "cohost"]).map((f) => f.path)).toEqual([
      "revenue.p50",
      "adr.p50",
      "occupancy.p50",
      "yearOneCashFlowUSD",
      "yearOneCashOnCashPercentage",
      "yearOneCapRatePercentage",
      "totalCashInvestment",
      "yearOneCohostCommissionUSD",
      "yearOneCohostReturnUSD",
      "url",
      "_id",
    ]);
  });
});

import { NO_MONTHLY_FIGURES, RelayAnswer } from "../../src/contract";
import { monthlyRows } from "../../src/cli/monthly-sheet";
import { Outcomes } from "../../src/cli/outcomes";
import { Plan } from "../../src/cli/table-plan";
import { PlannedRow } from "../../src/screening";
import { buyAnswer } from "../sheet/fixtures";

/**
 * The STR Monthly sheet for an answer the live service sent without revenueData: one line saying
 * so, never twelve months made up from the year's figures (the sandbox's twelve months are in
 * screen-csv.test).
 */
test("a row whose answer had no monthly figures says so in one line", () => {
  const outcomes = new Outcomes(0);
  try {
    const row: PlannedRow = {
      sheetRow: 1,
      property: "12 Main St, Austin TX",
      kind: "request",
      op: "buy",
      item: 0,
      unusual: [],
    };
    const answer: RelayAnswer = { ...buyAnswer, relay: { ...buyAnswer.relay, sandbox: false } };
    expect(answer.data && "monthly" in answer.data).toBe(false);
    outcomes.record(
      row,
      { status: "created", cells: [], warnings: ["a warning"], error: undefined, costUSD: 0.2, analysisId: "an_buy_1" },
      answer,
    );
    const rows = [...monthlyRows({ rows: [row] } as unknown as Plan, outcomes)];
    expect(rows).toHaveLength(2);
    expect(rows[1]?.map((c) => c.value)).toEqual([
      2,
      "12 Main St, Austin TX",
      "buy",
      "an_buy_1",
      NO_MONTHLY_FIGURES,
      "",
      "",
      "",
      "⚠ a warning",
    ]);
  } finally {
    outcomes.close();
  }
});

import { COMPARABLE_COLUMNS, RelayAnswer } from "../../src/contract";
import { Outcomes } from "../../src/cli/outcomes";
import { PlannedRow, RowOutcome } from "../../src/screening";
import { buyAnswer } from "../sheet/fixtures";

/** The STR Comparables sheet shows each property's nearest comparables (--comps N), not the service's first N. */
test("str-screen keeps the nearest --comps comparables of an answer whose comparables come in no order", () => {
  const data = buyAnswer.data as Record<string, unknown>;
  const base = (data.comparables as Record<string, unknown>[])[0] as Record<string, unknown>;
  const comparables = [4.2, 2.5, 0.3, 9.1, 0.8].map((distanceMiles) => ({
    ...base,
    name: `at ${distanceMiles}`,
    distanceMiles,
  }));
  const answer = { ...buyAnswer, data: { ...data, comparables } } as RelayAnswer;
  const outcomes = new Outcomes(2);
  try {
    const row = { kind: "request", sheetRow: 1, op: "buy" } as unknown as PlannedRow;
    const outcome: RowOutcome = {
      status: "created",
      cells: [],
      warnings: [],
      error: undefined,
      costUSD: 0.2,
      analysisId: "a1",
    };
    outcomes.record(row, outcome, answer);
    const kept = outcomes.comparables(outcomes.get(row)!);
    const name = COMPARABLE_COLUMNS.findIndex((c) => c.key === "name");
    expect(kept.map((values) => values[name])).toEqual(["at 0.3", "at 0.8"]);
  } finally {
    outcomes.close();
  }
});

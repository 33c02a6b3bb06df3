import { warningsCell } from "../sheet";
import { Outcomes } from "./outcomes";
import { Plan } from "./table-plan";
import { MONTHLY_HEADER, OutCell, OutRow } from "./report-sheets";

/*
 * The STR Monthly sheet: the twelve months of each analysed row (STR.MONTHLY's table), in the
 * table's order, after the row, the property, the strategy and the analysis id, with the row's
 * warnings in the last column as the comparables sheet has them. A row whose answer had no monthly
 * figures has one line saying so; nothing is made up from the year's figures.
 */

export function* monthlyRows(plan: Plan, outcomes: Outcomes): Generator<OutRow> {
  yield MONTHLY_HEADER.map((value) => ({ value, bold: true }));
  for (const row of plan.rows) {
    const outcome = outcomes.get(row);
    if (!outcome?.monthly) continue;
    const warnings: OutCell = { value: warningsCell(outcome.warnings) };
    for (const month of outcome.monthly)
      yield [
        { value: row.sheetRow + 1, format: "0" },
        { value: row.property },
        { value: "op" in row ? (row.op ?? "") : "" },
        { value: outcome.analysisId ?? "" },
        ...month,
        warnings,
      ];
  }
}

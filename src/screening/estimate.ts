import { DryRunTotals, RelayClient, dryRunAll } from "../client";
import { PlannedRows, refusedRows, unusualRows } from "./plan";

/**
 * What a screening would do and cost: the relay's dry run of every item (nothing sent, nothing
 * spent). `invalid` also counts the rows refused before sending, which the relay never sees.
 */
export interface ScreeningEstimate extends DryRunTotals {
  /** Rows held back as unusual: not sent, not counted in the cost, until the user confirms. */
  unusual: number;
}

export async function estimateScreening(
  client: Pick<RelayClient, "dryRun" | "usage">,
  plans: readonly PlannedRows[],
  signal?: AbortSignal,
): Promise<ScreeningEstimate> {
  const refused = plans.reduce((n, p) => n + refusedRows(p).length, 0);
  const totals = await dryRunAll(
    client,
    plans.flatMap((p) => p.items),
    signal,
  );
  const unusual = plans.reduce((n, p) => n + unusualRows(p).length, 0);
  return { ...totals, invalid: totals.invalid + refused, unusual };
}

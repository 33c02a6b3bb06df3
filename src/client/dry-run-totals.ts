import { BatchItem, DryRunAnswer, MAX_BATCH_ITEMS, centsToUSD } from "../contract";
import { RelayClient } from "./relay-client";

/*
 * What a run of any number of items would do and cost: the relay's dry run (nothing sent, nothing
 * spent) of each batch-sized chunk, added up. The task pane and str-screen show it before a run.
 */

export interface DryRunTotals {
  items: number;
  cached: number;
  toCreate: number;
  /** Identical to an earlier item: they share its call. */
  duplicates: number;
  /** Refused by the relay's validation: never sent, free. */
  invalid: number;
  /** Sent before with an unknown outcome: they fail with STR_OUTCOME_UNKNOWN unless refreshed. */
  unknownOutcome: number;
  /** The most it can cost. */
  estimatedCostUSD: number;
  budgetRemainingUSD: number;
  sandbox: boolean;
  /** Each item's verdict, in item order. */
  verdicts: DryRunVerdict[];
}

export type DryRunVerdict = DryRunAnswer["verdicts"][number];

/** Totals of no item at all, to add chunks to. */
export function noDryRun(): DryRunTotals {
  return {
    items: 0,
    cached: 0,
    toCreate: 0,
    duplicates: 0,
    invalid: 0,
    unknownOutcome: 0,
    estimatedCostUSD: 0,
    budgetRemainingUSD: 0,
    sandbox: true,
    verdicts: [],
  };
}

export async function dryRunAll(
  client: Pick<RelayClient, "dryRun" | "usage">,
  items: readonly BatchItem[],
  signal?: AbortSignal,
): Promise<DryRunTotals> {
  const totals = noDryRun();
  const options = signal ? { signal } : {};
  if (items.length === 0) {
    // Nothing to estimate: the budget left still says what a later run could spend.
    const usage = await client.usage(options);
    return { ...totals, budgetRemainingUSD: usage.budget.remainingTodayUSD, sandbox: usage.mode === "sandbox" };
  }
  let cents = 0;
  for (let i = 0; i < items.length; i += MAX_BATCH_ITEMS) {
    const answer = await client.dryRun(items.slice(i, i + MAX_BATCH_ITEMS), options);
    totals.items += answer.items;
    totals.cached += answer.cached;
    totals.toCreate += answer.toCreate;
    totals.invalid += answer.invalid;
    totals.unknownOutcome += answer.unknownOutcome;
    totals.duplicates += answer.verdicts.filter((v) => v === "duplicate").length;
    totals.verdicts.push(...answer.verdicts);
    // Cents, so that chunks add up without floating-point dust.
    cents += Math.round(answer.estimatedCostUSD * 100);
    totals.budgetRemainingUSD = answer.budgetRemainingUSD;
    totals.sandbox = answer.sandbox;
  }
  totals.estimatedCostUSD = centsToUSD(cents);
  return totals;
}

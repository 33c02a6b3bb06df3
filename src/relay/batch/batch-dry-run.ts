import { DryRunAnswer, centsToUSD } from "../../contract";
import type { ParsedItem } from "./batch-request";
import type { Caller } from "../callers/caller";
import { Gateway } from "../gateway";

/**
 * What running the batch would do and cost, spending nothing: each item's verdict from the gateway's
 * own plan (the path `analyze` takes), an item identical to an earlier one sharing its call.
 */
export async function dryRunBatch(
  gateway: Gateway,
  items: ParsedItem[],
  sandbox: boolean,
  caller?: Caller,
): Promise<DryRunAnswer> {
  const verdicts: DryRunAnswer["verdicts"] = [];
  // Keys that this batch will send: a later identical item shares that call.
  const sending = new Set<string>();
  let cents = 0;
  for (const item of items) {
    const plan = item.ok
      ? await gateway.plan(item.op, item.params, { refresh: item.refresh, freshSince: item.freshSince })
      : ({ verdict: "invalid" } as const);
    if (plan.verdict === "invalid") verdicts.push("invalid");
    else if (sending.has(plan.key)) verdicts.push("duplicate");
    else if (plan.verdict === "create") {
      verdicts.push("create");
      sending.add(plan.key);
      cents += plan.charge.cents;
    } else verdicts.push(plan.verdict);
  }
  const count = (v: DryRunAnswer["verdicts"][number]) => verdicts.filter((x) => x === v).length;
  return {
    items: items.length,
    cached: count("cached"),
    toCreate: count("create"),
    invalid: count("invalid"),
    unknownOutcome: count("unknown-outcome"),
    estimatedCostUSD: centsToUSD(cents),
    // A token with its own budget is told what is left of the smaller of the two.
    budgetRemainingUSD: centsToUSD(await gateway.budget.remainingCents(Date.now(), caller)),
    sandbox,
    verdicts,
  };
}

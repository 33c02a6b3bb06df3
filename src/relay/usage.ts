import { UsageAnswer, centsToUSD } from "../contract";
import { Budget, committedCentsOf, localMonthStart } from "./gateway";
import { RelayStore, UsageTotals } from "./store/store";

/** GET /v1/usage: today and this month from the ledger, against the daily budget. */
export async function usageOf(
  store: RelayStore,
  budget: Pick<Budget, "dailyCents" | "dayStart">,
  mode: "sandbox" | "live",
  now: number = Date.now(),
): Promise<UsageAnswer> {
  const budgetCents = budget.dailyCents;
  const [today, month] = await Promise.all([store.usage(budget.dayStart(now)), store.usage(localMonthStart(now))]);
  const committed = committedCentsOf(today);
  return {
    mode,
    today: period(today),
    month: period(month),
    budget: { dailyUSD: centsToUSD(budgetCents), remainingTodayUSD: centsToUSD(Math.max(0, budgetCents - committed)) },
  };
}

function period(t: UsageTotals): UsageAnswer["today"] {
  return {
    reports: t.reports,
    aiFunctions: t.aiFunctions,
    costUSD: centsToUSD(t.billedCents),
    unknownUSD: centsToUSD(t.unknownCents),
    pendingUSD: centsToUSD(t.pendingCents),
    calls: t.calls,
  };
}

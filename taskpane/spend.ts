import { RelayClient } from "../src/client";
import { UsageAnswer } from "../src/contract";

/**
 * Spend as the relay's ledger has it (GET /v1/usage): today and this month, against the daily
 * budget, with the calls whose outcome the relay cannot know (it died or timed out after sending:
 * they may have been billed) shown apart. Failed calls are never counted (the service bills none).
 */
export interface SpendView {
  mode: UsageAnswer["mode"];
  today: UsageAnswer["today"];
  month: UsageAnswer["month"];
  budgetUSD: number;
  remainingUSD: number;
  /** Today's billed, unknown and in-flight spend as a share of the budget, 0–1. */
  usedShare: number;
}

export function spendView(usage: UsageAnswer): SpendView {
  const used = usage.today.costUSD + usage.today.unknownUSD + usage.today.pendingUSD;
  const budget = usage.budget.dailyUSD;
  return {
    mode: usage.mode,
    today: usage.today,
    month: usage.month,
    budgetUSD: budget,
    remainingUSD: usage.budget.remainingTodayUSD,
    usedShare: budget > 0 ? Math.min(1, Math.max(0, used / budget)) : 0,
  };
}

export async function loadSpend(client: Pick<RelayClient, "usage">, signal?: AbortSignal): Promise<SpendView> {
  return spendView(await client.usage(signal ? { signal } : {}));
}

/** "$1,234.50": spend, where cents add up. */
export function usd(amount: number): string {
  return amount.toLocaleString("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
}

/** "$58,273": estimates read at a glance, where cents are noise. */
export function wholeUSD(amount: number): string {
  return amount.toLocaleString("en-US", {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 0,
    maximumFractionDigits: 0,
  });
}

import { CallerSpend, UsageAnswer, centsToUSD } from "../../contract";
import type { Caller, Callers } from "../callers/caller";
import { Budget, localMonthStart } from "../gateway";
import { committedCentsOf } from "../store/committed-spend";
import { CallerUsage, RelayStore, UsageTotals } from "../store/store";

/*
 * GET /v1/usage: today and this month from the ledger, against the daily budget, and the same
 * split by caller. Every token sees every caller's line: they share one budget, so who spent it is
 * what lets a team settle it, and a line names a token only by its label and non-secret id.
 */

export interface UsageOptions {
  now?: number;
  /** The token asking: its line says `you`. */
  caller?: Caller | undefined;
  /** The configured tokens: listed even before they spend, with their labels and own budgets. */
  callers?: Callers | undefined;
}

type UsageBudget = Pick<Budget, "dailyCents" | "dayStart" | "callerDailyCents">;

export async function usageOf(
  store: RelayStore,
  budget: UsageBudget,
  mode: "sandbox" | "live",
  options: UsageOptions = {},
): Promise<UsageAnswer> {
  const now = options.now ?? Date.now();
  const budgetCents = budget.dailyCents;
  const [today, month, todayByCaller, monthByCaller] = await Promise.all([
    store.ledger.usage(budget.dayStart(now)),
    store.ledger.usage(localMonthStart(now)),
    store.ledger.usageByCaller(budget.dayStart(now)),
    store.ledger.usageByCaller(localMonthStart(now)),
  ]);
  const committed = committedCentsOf(today);
  return {
    mode,
    today: period(today),
    month: period(month),
    budget: { dailyUSD: centsToUSD(budgetCents), remainingTodayUSD: centsToUSD(Math.max(0, budgetCents - committed)) },
    callers: callerLines(todayByCaller, monthByCaller, budget, options),
  };
}

const NOTHING: UsageTotals = { calls: 0, reports: 0, aiFunctions: 0, billedCents: 0, unknownCents: 0, pendingCents: 0 };

/** A line for each configured token, the asking one, and any other the month's ledger names; most spent first. */
function callerLines(
  today: CallerUsage[],
  month: CallerUsage[],
  budget: UsageBudget,
  { caller, callers }: UsageOptions,
): CallerSpend[] {
  const ids = new Set<string | undefined>([
    ...(callers?.all().map((r) => r.id) ?? []),
    ...(caller ? [caller.id] : []),
    ...month.map((u) => u.callerId),
    ...today.map((u) => u.callerId),
  ]);
  const lines = [...ids].map((id): CallerSpend => {
    const t: Partial<CallerUsage> & UsageTotals = today.find((u) => u.callerId === id) ?? NOTHING;
    const m: Partial<CallerUsage> & UsageTotals = month.find((u) => u.callerId === id) ?? NOTHING;
    // The label configured now; for a token no longer configured, the last one its calls were booked under.
    const label = (id === undefined ? undefined : callers?.labelOf(id)) ?? (m === NOTHING ? t : m).callerLabel;
    const own = id === undefined ? undefined : budget.callerDailyCents({ id });
    return {
      id: id ?? null,
      ...(label !== undefined ? { label } : {}),
      you: id !== undefined && id === caller?.id,
      today: period(t),
      month: period(m),
      ...(own !== undefined
        ? {
            budget: {
              dailyUSD: centsToUSD(own),
              remainingTodayUSD: centsToUSD(Math.max(0, own - committedCentsOf(t))),
            },
          }
        : {}),
    };
  });
  return lines.sort(
    (a, b) =>
      Number(a.id === null) - Number(b.id === null) ||
      b.month.costUSD - a.month.costUSD ||
      (a.label ?? a.id ?? "").localeCompare(b.label ?? b.id ?? ""),
  );
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

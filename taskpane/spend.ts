import { RelayClient } from "../src/client";
import { CallerSpend, UsageAnswer } from "../src/contract";

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
  /**
   * The budget this token runs against, as the meter shows it: the token's own daily budget when it
   * has one (the relay refuses its calls past it, whatever is left of the relay's), else the relay's.
   */
  meter: BudgetMeter;
  /** The token's own daily budget, when the relay gives it one. */
  own: { budgetUSD: number; remainingUSD: number } | undefined;
  /** When the relay answered: figures shown later say how old they are. */
  asOf: Date;
  /**
   * Spend by caller, most first, when the relay breaks it down and there is something to tell apart:
   * more than one caller, or one with a label or a budget of its own.
   */
  callers: CallerLine[] | undefined;
}

/** One caller's line: who (label, else the token's id: never the token), and what it spent. */
export interface CallerLine {
  name: string;
  you: boolean;
  /** Billed, unknown and in flight today: what counts against a budget. */
  todayUSD: number;
  monthUSD: number;
  budget: { dailyUSD: number; remainingUSD: number } | undefined;
}

export interface BudgetMeter {
  /** "yours": the token's own budget; "relay": the relay's, shared by every token. */
  whose: "yours" | "relay";
  budgetUSD: number;
  /** Today's billed, unknown and in-flight spend against it. */
  usedUSD: number;
  /** `usedUSD` as a share of the budget, 0–1. */
  share: number;
}

export function spendView(usage: UsageAnswer, asOf: Date = new Date()): SpendView {
  const you = usage.callers?.find((c) => c.you);
  const own = ownBudget(you);
  return {
    mode: usage.mode,
    today: usage.today,
    month: usage.month,
    budgetUSD: usage.budget.dailyUSD,
    remainingUSD: usage.budget.remainingTodayUSD,
    meter:
      own && you
        ? meter("yours", own.budgetUSD, committed(you.today))
        : meter("relay", usage.budget.dailyUSD, committed(usage.today)),
    own,
    callers: callerLines(usage.callers),
    asOf,
  };
}

/** Billed, unknown and in flight: what counts against a budget. */
const committed = (p: UsageAnswer["today"]) => cents(p.costUSD + p.unknownUSD + p.pendingUSD);

function meter(whose: BudgetMeter["whose"], budgetUSD: number, usedUSD: number): BudgetMeter {
  return { whose, budgetUSD, usedUSD, share: budgetUSD > 0 ? Math.min(1, Math.max(0, usedUSD / budgetUSD)) : 0 };
}

/** The asking token's own daily budget, from its line in the usage's `callers` (`you: true`); undefined when it has none. */
export function ownBudget(line: CallerSpend | undefined): SpendView["own"] {
  return line?.budget && { budgetUSD: line.budget.dailyUSD, remainingUSD: line.budget.remainingTodayUSD };
}

function callerLines(callers: CallerSpend[] | undefined): CallerLine[] | undefined {
  if (!callers || !(callers.length > 1 || callers.some((c) => c.label !== undefined || c.budget))) return undefined;
  return callers.map((c) => ({
    name: c.label ?? (c.id === null ? "no token recorded" : `token ${c.id}`),
    you: c.you,
    todayUSD: committed(c.today),
    monthUSD: c.month.costUSD,
    budget: c.budget && { dailyUSD: c.budget.dailyUSD, remainingUSD: c.budget.remainingTodayUSD },
  }));
}

/**
 * A dry run's budget figure. The relay answers what is left for the calling token: the smaller of its
 * own budget, when it has one, and the relay's.
 */
export function budgetLeftFigure(remainingUSD: number): readonly [label: string, value: string, note: string] {
  return ["Budget left today", usd(remainingUSD), "for this token"];
}

/** Sums of dollar amounts, back to whole cents. */
const cents = (usd: number) => Math.round(usd * 100) / 100;

export async function loadSpend(client: Pick<RelayClient, "usage">, signal?: AbortSignal): Promise<SpendView> {
  return spendView(await client.usage(signal ? { signal } : {}));
}

/** "14:32": when figures were read, in the investor's own clock. */
export function clockTime(at: Date): string {
  return at.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
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

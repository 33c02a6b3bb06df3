import { CallState, UsageTotals } from "./store";

/*
 * What the ledger commits against a budget, defined once: what the service billed, and the most
 * that every call may yet have cost whose outcome is not known (in flight, or unknown). Everything
 * that counts it derives from the table below: the sum of usage totals (committedCentsOf, which
 * usage and the Postgres ledger use), what one call holds (heldCents, which the SQLite store's
 * running totals follow as a call changes state), and the SQL over ledger rows that both stores
 * sum (COMMITTED_CENTS_SQL, USAGE_SUMS_SQL). Postgres's reservation function took the SQL when its
 * migration made it (postgres-migrations.ts): a change here needs a migration that makes the next
 * function.
 */

type HeldTotal = "billedCents" | "pendingCents" | "unknownCents";

/** The states that hold cents against the budget, the ledger column they hold, and the usage total they add to. */
const HELD = {
  billed: { column: "cents", total: "billedCents" },
  pending: { column: "max_cents", total: "pendingCents" },
  unknown: { column: "max_cents", total: "unknownCents" },
} as const satisfies Partial<Record<CallState, { column: "cents" | "max_cents"; total: HeldTotal }>>;

type HeldState = keyof typeof HELD;

const HELD_STATES = Object.keys(HELD) as HeldState[];

function isHeld(state: CallState): state is HeldState {
  return Object.hasOwn(HELD, state);
}

/**
 * The states of a call whose outcome is not known yet, which hold their most: its owner's finish
 * settles a call in one of them (the ledgers' finishCall), and a sweep moves one to another.
 */
export const OPEN_STATES: readonly CallState[] = HELD_STATES.filter((s) => HELD[s].column === "max_cents");

/** What one call holds against the budget, in its state. */
export function heldCents(state: CallState, cents: number, maxCents: number): number {
  if (!isHeld(state)) return 0;
  return HELD[state].column === "cents" ? cents : maxCents;
}

/** The spend committed by these usage totals: billed, and what unknown and in-flight calls may yet cost. */
export function committedCentsOf(totals: Pick<UsageTotals, HeldTotal>): number {
  return HELD_STATES.reduce((sum, state) => sum + totals[HELD[state].total], 0);
}

/** `'a', 'b'`: states as an SQL list. */
export function sqlStates(states: readonly CallState[]): string {
  return states.map((s) => `'${s}'`).join(", ");
}

/** heldCents as SQL over a ledger row's columns (state, cents, max_cents), for SUM. */
export const COMMITTED_CENTS_SQL = `CASE state ${HELD_STATES.map((s) => `WHEN '${s}' THEN ${HELD[s].column}`).join(" ")} ELSE 0 END`;

/** The usage totals of ledger rows as SQL select columns; totalsOf reads a row of them. */
export const USAGE_SUMS_SQL = [
  "COUNT(*) AS calls",
  "COALESCE(SUM(reports), 0) AS reports",
  "COALESCE(SUM(ai_functions), 0) AS ai_functions",
  ...HELD_STATES.map((s) => `COALESCE(SUM(CASE WHEN state = '${s}' THEN ${HELD[s].column} ELSE 0 END), 0) AS ${s}`),
].join(", ");

/** A row of USAGE_SUMS_SQL, as SQLite (numbers) or pg (bigint sums as strings) gives it. */
export type UsageSumsRow = Record<"calls" | "reports" | "ai_functions" | HeldState, number | string>;

export function totalsOf(row: UsageSumsRow): UsageTotals {
  const totals: UsageTotals = {
    calls: Number(row.calls),
    reports: Number(row.reports),
    aiFunctions: Number(row.ai_functions),
    billedCents: 0,
    pendingCents: 0,
    unknownCents: 0,
  };
  for (const state of HELD_STATES) totals[HELD[state].total] = Number(row[state]);
  return totals;
}

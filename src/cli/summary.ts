import { Strategy } from "../contract";
import { Plan } from "./plan";
import { Outcomes } from "./outcomes";

/** What a run did, counted once for the Summary sheet and the closing line. */
export interface RunSummary {
  mode: "sandbox" | "live";
  finishedAt: Date;
  elapsedSeconds: number;
  input: string;
  sheet: string;
  out: string;
  inPlace: boolean;
  strategy: Strategy;
  /** True when a column gives rows their own strategy. */
  perRowStrategy: boolean;
  refresh: boolean;
  relay: string;
  /** Rows of the table that are not blank. */
  rows: number;
  blank: number;
  /** Screened: created + cached + duplicate. */
  done: number;
  created: number;
  cached: number;
  duplicate: number;
  /** Rows without figures: refused, failed or not reached. */
  failed: number;
  /** Of the failed: refused before sending (bad values). */
  invalid: number;
  /** Of the failed: not reached because the run was stopped. */
  notReached: number;
  withWarnings: number;
  costUSD: number;
  stopped: boolean;
}

export function summarize(plan: Plan, outcomes: Outcomes, base: Omit<RunSummary, "rows" | "blank" | "done" | "created" | "cached" | "duplicate" | "failed" | "invalid" | "notReached" | "withWarnings" | "costUSD" | "perRowStrategy">): RunSummary {
  const s = { ...base, rows: 0, blank: 0, done: 0, created: 0, cached: 0, duplicate: 0, failed: 0, invalid: 0, notReached: 0, withWarnings: 0, costUSD: 0, perRowStrategy: plan.mapping.includes("strategy") };
  let cents = 0;
  plan.rows.forEach((row, r) => {
    if (row.kind === "blank") {
      s.blank++;
      return;
    }
    s.rows++;
    const o = outcomes.get(r);
    if (!o) return;
    if (row.kind === "invalid") s.invalid++;
    if (o.status === "created" || o.status === "cached" || o.status === "duplicate") {
      s.done++;
      s[o.status]++;
    } else {
      s.failed++;
      if (o.status === "stopped") s.notReached++;
    }
    if (o.warnings.length > 0) s.withWarnings++;
    cents += Math.round(o.costUSD * 100);
  });
  s.costUSD = cents / 100;
  return s;
}

const n = (x: number) => x.toLocaleString("en-US");
export const usd = (x: number) => `$${x.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The closing line(s) on stdout. */
export function summaryText(s: RunSummary, wrote: string | undefined): string {
  const lines = [
    `${s.stopped ? "Stopped" : "Done"}: ${n(s.done)} of ${n(s.rows)} rows screened (${n(s.created)} created, ${n(s.cached)} cached, ${n(s.duplicate)} ${s.duplicate === 1 ? "duplicate" : "duplicates"}), ${n(s.failed)} failed${s.notReached > 0 ? ` (${n(s.notReached)} not reached)` : ""}, ${n(s.withWarnings)} with warnings, ${n(s.blank)} blank.`,
    `Cost: ${usd(s.costUSD)}${s.mode === "sandbox" ? " (sandbox: simulated data, simulated money)" : ""}; ${s.elapsedSeconds.toFixed(1)} s.`,
  ];
  if (wrote) lines.push(`Wrote ${wrote}${s.inPlace ? " (refreshed in place)" : ""}.`);
  return `${lines.join("\n")}\n`;
}

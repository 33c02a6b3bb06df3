import { Strategy } from "../contract";
import { ScreeningCounts } from "../screening";
import { Plan } from "./table-plan";

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
  /** --decimal-comma or --decimal-point, when given or kept from an earlier run. */
  decimal: "comma" | "point" | undefined;
  /** True when a column gives rows their own strategy. */
  perRowStrategy: boolean;
  refresh: boolean;
  /** --refresh-older-than DAYS. */
  refreshOlderThan?: number | undefined;
  /** --enhance: the AI steps run. */
  enhance?: { addAIComps: boolean; addAIExpenseEstimates: boolean } | undefined;
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
  /** Of the failed: held back as unusual (not sent without --accept-unusual). */
  unusual: number;
  /** Of the failed: not reached because the run was stopped. */
  notReached: number;
  withWarnings: number;
  costUSD: number;
  stopped: boolean;
}

export function summarize(
  plan: Plan,
  counts: ScreeningCounts,
  base: Omit<
    RunSummary,
    | "rows"
    | "blank"
    | "done"
    | "created"
    | "cached"
    | "duplicate"
    | "failed"
    | "invalid"
    | "unusual"
    | "notReached"
    | "withWarnings"
    | "costUSD"
    | "perRowStrategy"
  >,
): RunSummary {
  return {
    ...base,
    perRowStrategy: plan.mapping.includes("strategy"),
    rows: counts.rows,
    blank: plan.rows.length - counts.rows,
    done: counts.created + counts.cached + counts.duplicate,
    created: counts.created,
    cached: counts.cached,
    duplicate: counts.duplicate,
    failed: counts.failed + counts.stopped,
    invalid: counts.refused,
    unusual: counts.unusual,
    notReached: counts.stopped,
    withWarnings: counts.withWarnings,
    costUSD: counts.spentUSD,
  };
}

const n = (x: number) => x.toLocaleString("en-US");
export const usd = (x: number) =>
  `$${x.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The closing line(s) on stdout. */
export function summaryText(s: RunSummary, wrote: string | undefined): string {
  const lines = [
    `${s.stopped ? "Stopped" : "Done"}: ${n(s.done)} of ${n(s.rows)} rows screened (${n(s.created)} created, ${n(s.cached)} cached, ${n(s.duplicate)} ${s.duplicate === 1 ? "duplicate" : "duplicates"}), ${n(s.failed)} failed${s.notReached > 0 ? ` (${n(s.notReached)} not reached)` : ""}, ${n(s.withWarnings)} with warnings, ${n(s.blank)} blank.`,
    `Cost: ${usd(s.costUSD)}${s.mode === "sandbox" ? " (sandbox: simulated data, simulated money)" : ""}; ${s.elapsedSeconds.toFixed(1)} s.`,
  ];
  if (wrote) lines.push(`Wrote ${wrote}${s.inPlace ? " (refreshed in place)" : ""}.`);
  return `${lines.join("\n")}\n`;
}

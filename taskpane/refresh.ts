import { RefreshGate, RelayClient } from "../src/client";
import { STRATEGIES, Strategy, centsToUSD } from "../src/contract";
import { missingLocation, recognizeColumns } from "../src/inputs";
import { maskBlock } from "../src/sheet";
import { DestinationCheck } from "./excel/destination";
import { ExcelRun } from "./excel/host";
import { SupportsApi, workbookNumberStyle } from "./excel/number-style";
import { cutoffOf, rowsFetchedBefore } from "./aged-rows";
import { PlannedBlock, inTheWay } from "./overwrite";
import { RunOffer, runOffer } from "./run-offer";
import { EnhanceRetry, planEnhanceRetry } from "./enhance-retry";
import {
  FormulaEstimate,
  FormulaRequest,
  estimateFormulas,
  pricedRequests,
  readFormulaRequests,
} from "./formula-requests";
import { RefreshScope, RefreshTargets, ScreenedTable, findRefreshTargets } from "./excel/scope";
import { Estimate, RunResult, ScreeningJob, ScreeningProgress, estimate, planScreening, runScreening } from "./screen";

/**
 * Refreshing a portfolio: in a scope (selection, sheet, workbook), the STR.* formulas and the
 * screened tables are found, their cost shown, and — once the user confirms — run again past every
 * cache. Formulas are recalculated with the refresh gate open for the requests priced (each is
 * bought once; any other STR call is an ordinary one), and the gate closes as soon as they have all
 * been made; screened tables go through
 * the screening run again with `refresh` on each item, into their own result columns.
 */
export interface RefreshPlan {
  targets: RefreshTargets;
  /** Each billed call in the formulas, read as the functions read it. */
  formulaRequests: FormulaRequest[];
  /** The formulas' calls priced by the relay's dry run (refresh on each). */
  formulas: FormulaEstimate;
  /** Distinct billed STR calls in the formulas (identical requests share one call). */
  formulaCalls: number;
  /** What the formulas' refresh costs at most: exact unless some arguments could not be read (formulas.unread). */
  formulaCostUSD: number;
  jobs: ScreeningJob[];
  /** Screened tables that cannot be refreshed, and why. */
  skipped: { address: string; reason: string }[];
  /** The tables' dry run with refresh on every item. */
  tables: Estimate;
  /** Only what was fetched before `freshSince` (epoch ms) is bought again: "older than `days` days". */
  olderThan: { days: number; freshSince: number } | undefined;
  /** STR.ENHANCE formulas with no kept answer (every AI step failed), and what trying them again costs. */
  enhanceRetry: EnhanceRetry;
  /** Each job's earlier block (sheet columns): ours to replace. */
  blocks: { left: number; width: number }[];
  /** What of the user's each job's rewrite would cover where planned: what the pane asks about. */
  destinations: DestinationCheck[];
}

export async function planRefresh(
  deps: { client: Pick<RelayClient, "dryRun" | "usage">; run: ExcelRun },
  scope: RefreshScope,
  options: { strategy: Strategy; signal?: AbortSignal; supports?: SupportsApi; olderThanDays?: number; now?: number },
): Promise<RefreshPlan> {
  const olderThan =
    options.olderThanDays === undefined
      ? undefined
      : { days: options.olderThanDays, freshSince: cutoffOf(options.olderThanDays, options.now) };
  const targets = await findRefreshTargets(deps.run, scope);
  const numbers = await workbookNumberStyle(deps.run, options.supports);
  const formulaRequests = await readFormulaRequests(deps.run, targets.formulas);
  const signal = options.signal ? { signal: options.signal } : {};
  const freshSince = olderThan ? { freshSince: olderThan.freshSince } : {};
  const formulas = await estimateFormulas(deps.client, formulaRequests, { refresh: true, ...freshSince, ...signal });
  const enhanceRetry = await planEnhanceRetry(deps.client, formulaRequests, options.signal);
  const jobs: ScreeningJob[] = [];
  const blocks: RefreshPlan["blocks"] = [];
  const skipped: RefreshPlan["skipped"] = [];
  for (const table of targets.tables) {
    const mapping = recognizeColumns(maskBlock(table.headers, table.block));
    const missing = missingLocation(mapping);
    if (missing) {
      skipped.push({ address: table.address, reason: missing });
      continue;
    }
    const strategy = strategyOfBlock(table) ?? options.strategy;
    const rows = olderThan ? rowsFetchedBefore(table, table.rows, olderThan.freshSince) : table.rows;
    if (rows.length === 0) continue;
    jobs.push(
      planScreening({ ...table, rows }, mapping, { strategy, fields: table.block.fields, refresh: true, numbers }),
    );
    blocks.push({ left: table.left + table.block.start, width: table.block.width });
  }
  const tables = await estimate(deps.client, jobs, options.signal);
  const destinations = await inTheWay(
    deps.run,
    jobs.map((job, i) => ({ job, earlier: blocks[i] })),
  );
  return {
    targets,
    formulaRequests,
    formulas,
    olderThan,
    formulaCalls: formulas.calls,
    formulaCostUSD: formulas.costUSD,
    jobs,
    skipped,
    tables,
    enhanceRetry,
    blocks,
    destinations,
  };
}

/**
 * Whether the pane offers the refresh: as a screening run (run-offer.ts), over the formulas' calls
 * and the tables' rows together. The relay would refuse every call past the budget, so a refresh
 * the budget left cannot cover is not offered; the plan says why and what to do instead.
 */
export function refreshOffer(plan: Pick<RefreshPlan, "formulas" | "tables">): RunOffer {
  return runOffer(
    {
      items: plan.formulas.dryRun.items + plan.tables.items,
      toCreate: plan.formulas.calls + plan.tables.toCreate,
      estimatedCostUSD: centsToUSD(
        Math.round(plan.formulas.costUSD * 100) + Math.round(plan.tables.estimatedCostUSD * 100),
      ),
      budgetRemainingUSD: plan.tables.budgetRemainingUSD,
    },
    { one: "call or row", many: "calls and rows" },
  );
}

/**
 * Each table's block as the user was asked about it, for the one overwrite rule (overwrite.ts): the
 * block is rewritten as wide as its fields need, which is wider than the earlier block when its
 * Warnings column was removed, and a user's column may sit there now.
 */
export function plannedBlocks(plan: Pick<RefreshPlan, "jobs" | "blocks" | "destinations">): PlannedBlock[] {
  return plan.jobs.map((job, i) => ({
    job,
    earlier: plan.blocks[i],
    shown: plan.destinations[i] ?? { occupied: 0, first: undefined, freeLeft: job.blockColumn },
  }));
}

/** Cells of the user's covered, over all tables. */
export function coveredCells(checks: readonly DestinationCheck[]): number {
  return checks.reduce((n, c) => n + c.occupied, 0);
}

/**
 * A table screened without a strategy column keeps no record of the strategy it was screened with;
 * its result columns tell it when only one strategy has them all (monthly rent → arb, host return → cohost).
 */
export function strategyOfBlock(table: Pick<ScreenedTable, "block">): Strategy | undefined {
  const possible = STRATEGIES.filter((s) => table.block.fields.every((f) => f.strategies.includes(s)));
  return possible.length === 1 ? possible[0] : undefined;
}

export interface FormulaRefreshOptions {
  /** Answers fetched since this time (epoch ms) satisfy the refresh, free (RefreshPlan.olderThan). */
  freshSince?: number;
  /** Stop waiting when no priced call has come for this long after the recalculation was sent. @default 2000 */
  quietMs?: number;
  /** Close the gate after this long whatever happens. @default 120000 */
  maxMs?: number;
  signal?: AbortSignal;
}

/**
 * Recalculates the ranges holding the formulas with the gate open for the requests the pane priced
 * (pricedRequests), and closes it once each has been made (the gate closes itself then) or the calls
 * stop coming. Any other STR call Excel makes meanwhile — the rest of the range, dependent or volatile
 * cells elsewhere — is an ordinary call, answered from the caches: only what was priced is bought.
 * Resolves with the priced requests sent again, and those never made (their cells did not call).
 */
export async function recalculateFormulas(
  run: ExcelRun,
  gate: RefreshGate,
  targets: RefreshTargets,
  requests: readonly FormulaRequest[],
  options: FormulaRefreshOptions = {},
): Promise<{ calls: number; notMade: number }> {
  const priced = pricedRequests(requests);
  if (targets.formulas.length === 0 || priced.length === 0) return { calls: 0, notMade: 0 };
  const quietMs = options.quietMs ?? 2000;
  gate.open(priced, {
    maxMs: options.maxMs ?? 120_000,
    ...(options.freshSince === undefined ? {} : { freshSince: options.freshSince }),
  });
  try {
    await run(async (context) => {
      for (const { sheetId, bounds } of targets.recalculate) {
        context.workbook.worksheets
          .getItem(sheetId)
          .getRangeByIndexes(bounds.row, bounds.column, bounds.rows, bounds.columns)
          .calculate();
      }
      await context.sync();
    });
    let last = gate.admitted;
    let lastChange = Date.now();
    while (gate.isOpen() && Date.now() - lastChange < quietMs && !options.signal?.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (gate.admitted !== last) {
        last = gate.admitted;
        lastChange = Date.now();
      }
    }
    return { calls: gate.admitted, notMade: priced.length - gate.admitted };
  } finally {
    gate.close();
  }
}

/** Runs the screened tables of a plan again, one after another; progress is over all of them. */
export async function refreshTables(
  deps: { client: Pick<RelayClient, "batch">; run: ExcelRun },
  jobs: readonly ScreeningJob[],
  options: { signal?: AbortSignal; sandbox: boolean; onProgress?: (progress: ScreeningProgress) => void },
): Promise<RunResult> {
  const total: ScreeningProgress = {
    total: jobs.reduce((n, j) => n + j.rows.filter((r) => r.kind !== "blank").length, 0),
    done: 0,
    cached: 0,
    failed: 0,
    held: 0,
    warnings: 0,
    spentUSD: 0,
    stopped: 0,
  };
  let syncs = 0;
  let stopped = false;
  let writeError: unknown;
  for (const job of jobs) {
    if (options.signal?.aborted || writeError !== undefined) break;
    const before = { ...total };
    const result = await runScreening(deps, job, {
      ...(options.signal ? { signal: options.signal } : {}),
      sandbox: options.sandbox,
      onProgress: (p) => {
        total.done = before.done + p.done;
        total.cached = before.cached + p.cached;
        total.failed = before.failed + p.failed;
        // Rows held back as unusual are neither failed nor done: the user's to check.
        total.held = before.held + p.held;
        total.warnings = before.warnings + p.warnings;
        total.stopped = before.stopped + p.stopped;
        total.spentUSD = centsToUSD(Math.round(before.spentUSD * 100) + Math.round(p.spentUSD * 100));
        options.onProgress?.({ ...total });
      },
    });
    syncs += result.syncs;
    stopped ||= result.stopped;
    writeError ??= result.writeError;
  }
  return { progress: total, stopped: stopped || options.signal?.aborted === true, syncs, writeError };
}

/*
 * What the Refresh tab does, apart from how it looks (ui/refresh-view.ts draws it and forwards the
 * user's clicks here): find what a scope holds and what refreshing it costs (refresh.ts plans it;
 * nothing is sent), then — on the confirming click — recalculate the formulas past the cache and
 * run the screened tables again into their blocks, with progress and Cancel; and retry the
 * STR.ENHANCE cells with no kept answer. Where a table's results would land on cells of the
 * user's is decided by the one rule in overwrite.ts, as for a screening.
 */
import { RefreshGate, RelayCallError, RelayClient } from "../src/client";
import { Strategy } from "../src/contract";
import { EnhanceRetry, retryEnhancements } from "./enhance-retry";
import { PaneError } from "./pane-error";
import { DestinationCheck, Placement } from "./excel/destination";
import { ExcelRun, UndoGroup } from "./excel/host";
import { RefreshScope } from "./excel/scope";
import { placeResults } from "./overwrite";
import { RefreshPlan, plannedBlocks, planRefresh, recalculateFormulas, refreshOffer, refreshTables } from "./refresh";
import { RunOffer } from "./run-offer";
import { RunResult, ScreeningJob, ScreeningProgress } from "./screen";

/** What the tab needs of the pane: the workbook, an undo step, the refresh gate, the relay, and what it tells the pane. */
export interface RefreshTabDeps {
  run: ExcelRun;
  undoGroup(): UndoGroup;
  gate: RefreshGate;
  /** The client for the saved settings (STR_NOT_CONFIGURED until a token is saved). */
  client(): Promise<RelayClient>;
  /** The relay's mode as the plan's dry run found it. */
  setMode(mode: "sandbox" | "live"): void;
  /** A refresh or a retry may have spent. */
  spendChanged(): void;
}

/** A plan found, and what the pane offers of it. */
export interface FoundPlan {
  plan: RefreshPlan;
  /** The formulas' and the tables' cost together, at most. */
  totalUSD: number;
  offer: RunOffer;
  /** Nothing to refresh in the scope (with "older than": nothing fetched before the cutoff). */
  nothing: boolean;
}

/** What the formulas' refresh did: priced calls sent again, those whose cells never called, those not priced. */
export interface FormulasRefreshed {
  calls: number;
  notMade: number;
  unread: number;
}

export type RefreshOutcome =
  /** Cells of the user's appeared where a table's results go: nothing sent; the plan stands, with what is in the way now. */
  | { kind: "ask-again"; destinations: DestinationCheck[] }
  /** Formulas refreshed (when there were any), then the tables (unless there were none or Cancel came first). */
  | { kind: "done"; formulas: FormulasRefreshed | undefined; tables: RunResult | undefined; cancelled: boolean }
  | { kind: "failed"; formulas: FormulasRefreshed | undefined; error: unknown };

/** The view's hooks into a refresh under way. */
export interface RefreshHooks {
  /** The formulas are being recalculated. */
  formulas?(count: number): void;
  /** The tables are being run again: the rows the progress counts. */
  tables?(total: number): void;
  progress?(p: ScreeningProgress): void;
}

/** The "older than" box: blank is everything; anything else must be a whole number of days, 0 or more. */
export function olderThanDays(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const days = Number(text);
  if (!Number.isInteger(days) || days < 0)
    throw new PaneError(`Older than must be a whole number of days, 0 or more (or blank for all); got "${text}".`);
  return days;
}

export class RefreshTab {
  readonly #deps: RefreshTabDeps;
  /** The plan shown: what the Refresh button runs. */
  #plan: RefreshPlan | undefined;
  #running: AbortController | undefined;

  constructor(deps: RefreshTabDeps) {
    this.#deps = deps;
  }

  get state(): { plan: RefreshPlan | undefined; running: AbortController | undefined } {
    return { plan: this.#plan, running: this.#running };
  }

  /** The scope or the settings changed: the plan shown no longer holds. */
  forget(): void {
    this.#plan = undefined;
  }

  /** What the scope holds and what refreshing it costs; nothing is sent. */
  async find(scope: RefreshScope, options: { strategy: Strategy; olderThan: string }): Promise<FoundPlan> {
    this.forget();
    const client = await this.#deps.client();
    const days = olderThanDays(options.olderThan);
    const plan = await planRefresh({ client, run: this.#deps.run }, scope, {
      strategy: options.strategy,
      ...(days === undefined ? {} : { olderThanDays: days }),
    });
    this.#plan = plan;
    this.#deps.setMode(plan.tables.sandbox ? "sandbox" : "live");
    // With "older than", formulas whose answers are all newer have nothing to buy.
    const noFormulas = plan.targets.formulas.length === 0 || (plan.olderThan && plan.formulas.calls === 0);
    return {
      plan,
      totalUSD: plan.formulaCostUSD + plan.tables.estimatedCostUSD,
      offer: refreshOffer(plan),
      nothing: noFormulas === true && plan.jobs.length === 0,
    };
  }

  /** Whether the Refresh button has a plan to run: one shown, offered, with no refresh under way. */
  runnable(): boolean {
    const plan = this.#plan;
    return plan !== undefined && this.#running === undefined && refreshOffer(plan).offered;
  }

  /**
   * Runs the plan shown: the tables' results placed by the user's answer (overwrite.ts) before
   * anything is sent, then the formulas, then the tables as one undo step. Undefined when there is
   * nothing to run. The plan is kept only when the pane asks again.
   */
  async refresh(placement: Placement, hooks: RefreshHooks = {}): Promise<RefreshOutcome | undefined> {
    const plan = this.#plan;
    if (!plan || !this.runnable()) return undefined;
    const controller = new AbortController();
    this.#running = controller;
    this.forget();
    try {
      return await this.#refresh(plan, placement, controller.signal, hooks);
    } finally {
      this.#running = undefined;
      this.#deps.spendChanged();
    }
  }

  async #refresh(
    plan: RefreshPlan,
    placement: Placement,
    signal: AbortSignal,
    hooks: RefreshHooks,
  ): Promise<RefreshOutcome> {
    let formulas: FormulasRefreshed | undefined;
    try {
      const client = await this.#deps.client();
      const placed = await placeResults(this.#deps.run, plannedBlocks(plan), placement);
      if (!placed.go) {
        this.#plan = { ...plan, destinations: placed.now };
        return { kind: "ask-again", destinations: placed.now };
      }
      if (plan.targets.formulas.length > 0) formulas = await this.#formulas(plan, signal, hooks);
      if (plan.jobs.length === 0 || signal.aborted)
        return { kind: "done", formulas, tables: undefined, cancelled: signal.aborted };
      const tables = await this.#tables(placed.jobs, plan.tables.sandbox, client, signal, hooks);
      return { kind: "done", formulas, tables, cancelled: signal.aborted };
    } catch (error) {
      return { kind: "failed", formulas, error };
    }
  }

  /** Recalculates the plan's formulas past the cache (only what aged, with "older than"). */
  async #formulas(plan: RefreshPlan, signal: AbortSignal, hooks: RefreshHooks): Promise<FormulasRefreshed> {
    hooks.formulas?.(plan.targets.formulas.length);
    const { calls, notMade } = await recalculateFormulas(
      this.#deps.run,
      this.#deps.gate,
      plan.targets,
      plan.formulaRequests,
      { signal, ...(plan.olderThan ? { freshSince: plan.olderThan.freshSince } : {}) },
    );
    return { calls, notMade, unread: plan.formulas.unread };
  }

  /** Runs the tables again into their blocks, as one undo step where Excel can group it. */
  async #tables(
    jobs: readonly ScreeningJob[],
    sandbox: boolean,
    client: RelayClient,
    signal: AbortSignal,
    hooks: RefreshHooks,
  ): Promise<RunResult> {
    hooks.tables?.(jobs.reduce((n, j) => n + j.rows.filter((r) => r.kind !== "blank").length, 0));
    const group = this.#deps.undoGroup();
    let result: RunResult;
    try {
      result = await refreshTables({ client, run: group.run }, jobs, {
        signal,
        sandbox,
        ...(hooks.progress ? { onProgress: hooks.progress } : {}),
      });
    } finally {
      await group.close();
    }
    hooks.progress?.(result.progress);
    return result;
  }

  /** The STR.ENHANCE cells with no kept answer the plan found, when they can be tried again now. */
  retryable(): EnhanceRetry | undefined {
    const retry = this.#plan?.enhanceRetry;
    return retry && retry.cells.length > 0 && !this.#running ? retry : undefined;
  }

  /** Asks those cells again (only AI steps that complete are billed); resolves with what was retried. */
  async retry(): Promise<EnhanceRetry | undefined> {
    const retry = this.retryable();
    if (!retry) return undefined;
    try {
      await retryEnhancements(this.#deps.run, retry.cells);
      return retry;
    } finally {
      this.#deps.spendChanged();
    }
  }

  /** Cancel: nothing more is sent; rows not reached say so. */
  cancel(): void {
    this.#running?.abort(new RelayCallError("STR_CANCELLED", "Cancelled in the task pane."));
  }
}

/*
 * What the Screen tab does, apart from how it looks (ui/screen-view.ts draws it and forwards the
 * user's clicks here): the selected table read, with the settings made on it (the columns' fields,
 * the strategy, the result columns, the max-bid rule, loan terms, sending unusual rows); the dry
 * run, with what of the user's is in the way of the results; and — only on a second click — the
 * run, with its progress, Cancel and the deals' summary. What is in the way is decided by the one
 * rule in overwrite.ts. Any change before the run drops the estimate: it no longer holds.
 */
import { RelayCallError, RelayClient } from "../src/client";
import { FIELD_CATALOGUE, FieldInfo, Strategy } from "../src/contract";
import { MaxBidRuleResult, isMaxBidField, parseMaxBidRule } from "../src/model";
import { ColumnMapping, InputField, NumberStyle, missingLocation, recognizeColumns } from "../src/inputs";
import { maskBlock } from "../src/sheet";
import { DestinationCheck, Placement, checkDestination, destinationOf } from "./excel/destination";
import { ExcelRun, UndoGroup } from "./excel/host";
import { workbookNumberStyle } from "./excel/number-style";
import { SheetTable, readSelectedTable } from "./excel/read-table";
import { placeResults } from "./overwrite";
import { RunOffer, runOffer } from "./run-offer";
import { RunSummary, runSummary } from "./run-summary";
import {
  Estimate,
  LOAN_FIELDS,
  LoanTerms,
  RunResult,
  ScreeningJob,
  ScreeningProgress,
  estimate,
  planScreening,
  readLoanTerms,
  runScreening,
} from "./screen";

/** What the tab needs of the pane: the workbook, an undo step, the relay, and the two things it tells the pane. */
export interface ScreenTabDeps {
  run: ExcelRun;
  undoGroup(): UndoGroup;
  /** The client for the saved settings (STR_NOT_CONFIGURED until a token is saved). */
  client(): Promise<RelayClient>;
  /** The relay's mode as the dry run found it. */
  setMode(mode: "sandbox" | "live"): void;
  /** A run may have spent. */
  spendChanged(): void;
}

export type LoanField = (typeof LOAN_FIELDS)[number];

export interface ScreenState {
  table: SheetTable | undefined;
  /** How the workbook writes numbers as text, asked of Excel when the table is read. */
  numbers: NumberStyle;
  mapping: ColumnMapping;
  /** For rows without a strategy column or value. */
  strategy: Strategy;
  /** The user ticked "Also send unusual rows". */
  acceptUnusual: boolean;
  /** Result columns the user chose, by path; undefined until they change the defaults. */
  chosen: ReadonlySet<string> | undefined;
  /** The max-bid column's rule as the user wrote it, read; undefined for none. */
  maxBid: MaxBidRuleResult | undefined;
  /** The loan terms as typed. */
  loan: Partial<Record<LoanField, string>>;
  /** The dry run the Screen button runs; undefined once anything changed. */
  estimated: Estimated | undefined;
  /** The run under way. */
  running: AbortController | undefined;
  /** The run's counts, as last reported. */
  progress: ScreeningProgress | undefined;
}

/** A dry run, and what it found in the way of the results. */
export interface Estimated {
  job: ScreeningJob;
  estimate: Estimate;
  /** The earlier block of ours beside the table, in sheet columns: ours to replace. */
  earlier: { left: number; width: number } | undefined;
  /** What of the user's is in the way of the results where planned. */
  destination: DestinationCheck;
  offer: RunOffer;
  /** The table has unusual rows (held back, or sent because the box is ticked): "Also send unusual rows" is offered. */
  unusualRows: boolean;
}

/** Why Estimate prices nothing now (each said where it is fixed), or the job it would price. */
export type DryRunCheck =
  | { kind: "no-table" }
  | { kind: "no-fields" }
  | { kind: "bad-max-bid"; message: string }
  | { kind: "bad-loan-terms"; issues: string[] }
  | { kind: "ready"; job: ScreeningJob };

/** What Estimate found: why it priced nothing, or the estimate. */
export type DryRun = Exclude<DryRunCheck, { kind: "ready" }> | { kind: "estimated"; estimated: Estimated };

/** How a confirmed run ended. */
export type ScreenOutcome =
  /** Cells of the user's appeared where the results go: nothing sent; the estimate stands, with what is in the way now. */
  | { kind: "ask-again"; estimated: Estimated }
  | { kind: "ran"; job: ScreeningJob; result: RunResult; summary: RunSummary }
  | { kind: "failed"; error: unknown };

/** A run's outcome, and why Excel could not close its undo step, if it could not. */
export type ScreenRun = ScreenOutcome & { closeError: unknown };

export class ScreenTab {
  readonly #deps: ScreenTabDeps;
  readonly #s: ScreenState;

  constructor(deps: ScreenTabDeps, strategy: Strategy) {
    this.#deps = deps;
    this.#s = {
      table: undefined,
      numbers: "unknown",
      mapping: [],
      strategy,
      acceptUnusual: false,
      chosen: undefined,
      maxBid: undefined,
      loan: {},
      estimated: undefined,
      running: undefined,
      progress: undefined,
    };
  }

  get state(): Readonly<ScreenState> {
    return this.#s;
  }

  /** Reads the selected table: its columns recognised, the result columns and "send unusual rows" back to their defaults. */
  async readTable(): Promise<SheetTable> {
    const table = await readSelectedTable(this.#deps.run);
    this.#s.numbers = await workbookNumberStyle(this.#deps.run);
    Object.assign(this.#s, {
      table,
      mapping: recognizeColumns(maskBlock(table.headers, table.block)),
      chosen: undefined,
      acceptUnusual: false,
    });
    this.invalidate();
    return table;
  }

  /** A column's field changed: a field is held by one column only, so another column holding it lets it go. */
  setColumn(column: number, field: InputField | null): void {
    this.#s.mapping = this.#s.mapping.map((f, c) => (c === column ? field : f === field && field !== null ? null : f));
    this.invalidate();
  }

  /** Another strategy offers other result columns: its defaults. */
  setStrategy(strategy: Strategy): void {
    Object.assign(this.#s, { strategy, chosen: undefined });
    this.invalidate();
  }

  /** The max-bid rule as typed, read; blank for none. */
  setMaxBid(text: string): MaxBidRuleResult | undefined {
    const trimmed = text.trim();
    this.#s.maxBid = trimmed === "" ? undefined : parseMaxBidRule(trimmed);
    this.invalidate();
    return this.#s.maxBid;
  }

  /** A loan term as typed; returns what is still wrong with the terms. */
  setLoanTerm(field: LoanField, text: string): string[] {
    this.#s.loan = { ...this.#s.loan, [field]: text };
    this.invalidate();
    return this.loanTerms().issues;
  }

  /**
   * Confirming (or not) changes what is sent: the view estimates again at once. The estimate shown
   * stands until the new one replaces it (its box holds the checkbox).
   */
  setAcceptUnusual(on: boolean): void {
    this.#s.acceptUnusual = on;
  }

  /** A result column ticked or not; returns how many are chosen. */
  chooseField(path: string, on: boolean): number {
    const chosen = new Set(this.#s.chosen ?? this.fieldChoices()?.chosen ?? []);
    if (on) chosen.add(path);
    else chosen.delete(path);
    this.#s.chosen = chosen;
    this.invalidate();
    return chosen.size;
  }

  /** The result columns offered for the strategy, and those chosen (the max-bid column aside: it follows its rule). */
  fieldChoices(): { offered: FieldInfo[]; chosen: Set<string> } | undefined {
    const job = this.plan();
    if (!job) return undefined;
    return {
      offered: FIELD_CATALOGUE.filter((f) => !job.strategy || f.strategies.includes(job.strategy)),
      chosen: new Set(job.fields.filter((f) => !isMaxBidField(f)).map((f) => f.path)),
    };
  }

  /** The job the table and the settings make now; undefined before a table is read. */
  plan(): ScreeningJob | undefined {
    const s = this.#s;
    if (!s.table) return undefined;
    const chosen = s.chosen;
    return planScreening(s.table, s.mapping, {
      strategy: s.strategy,
      numbers: s.numbers,
      acceptUnusual: s.acceptUnusual,
      maxBid: s.maxBid?.ok ? s.maxBid.rule : undefined,
      loanTerms: this.loanTerms().terms,
      ...(chosen ? { fields: FIELD_CATALOGUE.filter((f) => chosen.has(f.path)) } : {}),
    });
  }

  /** The loan terms typed, read (readLoanTerms): the terms when all read, else what is wrong. */
  loanTerms(): { terms: LoanTerms | undefined; issues: string[] } {
    const read = readLoanTerms(this.#s.loan, this.#s.numbers);
    return read.ok ? { terms: read.terms, issues: [] } : { terms: undefined, issues: read.issues };
  }

  /** Why the table cannot be screened yet (no location column), if so. */
  missingLocation(): string | undefined {
    return missingLocation(this.#s.mapping);
  }

  /** Anything changed before the run: the estimate no longer holds. */
  invalidate(): void {
    this.#s.estimated = undefined;
  }

  /** What Estimate would price now, or why it cannot. */
  check(): DryRunCheck {
    const s = this.#s;
    const job = this.plan();
    if (!job) return { kind: "no-table" };
    if (job.fields.length === 0) return { kind: "no-fields" };
    if (s.maxBid?.ok === false) return { kind: "bad-max-bid", message: s.maxBid.message };
    const { issues } = this.loanTerms();
    if (issues.length > 0) return { kind: "bad-loan-terms", issues };
    return { kind: "ready", job };
  }

  /** The dry run: what the run would send and cost, and what of the user's is in the way. Sends nothing. */
  async dryRun(checked: DryRunCheck = this.check()): Promise<DryRun> {
    if (checked.kind !== "ready") return checked;
    const { job } = checked;
    const s = this.#s;
    const answer = await estimate(await this.#deps.client(), [job]);
    this.#deps.setMode(answer.sandbox ? "sandbox" : "live");
    const earlier = s.table?.block
      ? { left: s.table.left + s.table.block.start, width: s.table.block.width }
      : undefined;
    const destination = await checkDestination(this.#deps.run, destinationOf(job, earlier));
    s.estimated = {
      job,
      estimate: answer,
      earlier,
      destination,
      offer: runOffer(answer),
      unusualRows: job.rows.some((r) => r.kind === "unusual" || (r.kind === "request" && r.unusual.length > 0)),
    };
    return { kind: "estimated", estimated: s.estimated };
  }

  /** The rows a run of the estimate would count, when one is offered and none is under way. */
  runnable(): number | undefined {
    const { estimated, running } = this.#s;
    if (!estimated || running || !estimated.offer.offered) return undefined;
    return estimated.job.rows.filter((r) => r.kind !== "blank").length;
  }

  /**
   * Runs the estimate, the results placed by the user's answer (overwrite.ts), as one undo step;
   * undefined when there is nothing to run. The estimate is kept only when the pane asks again.
   */
  async screen(placement: Placement, onProgress?: (p: ScreeningProgress) => void): Promise<ScreenRun | undefined> {
    const s = this.#s;
    const estimated = s.estimated;
    const total = this.runnable();
    if (!estimated || total === undefined) return undefined;
    const controller = new AbortController();
    s.running = controller;
    s.progress = { total, done: 0, cached: 0, failed: 0, held: 0, warnings: 0, spentUSD: 0, stopped: 0 };
    try {
      const report = (p: ScreeningProgress) => {
        s.progress = p;
        onProgress?.(p);
      };
      return await this.#screen(estimated, placement, controller.signal, report);
    } finally {
      s.running = undefined;
      this.#deps.spendChanged();
    }
  }

  async #screen(
    estimated: Estimated,
    placement: Placement,
    signal: AbortSignal,
    report: (p: ScreeningProgress) => void,
  ): Promise<ScreenRun> {
    const s = this.#s;
    s.estimated = undefined;
    let group: UndoGroup | undefined;
    let outcome: ScreenOutcome;
    try {
      const block = { job: estimated.job, earlier: estimated.earlier, shown: estimated.destination };
      const placed = await placeResults(this.#deps.run, [block], placement);
      if (!placed.go) {
        s.estimated = { ...estimated, destination: placed.now[0] ?? estimated.destination };
        return { kind: "ask-again", estimated: s.estimated, closeError: undefined };
      }
      const job = placed.jobs[0] ?? estimated.job;
      group = this.#deps.undoGroup();
      const client = await this.#deps.client();
      const deals = runSummary(job);
      const result = await runScreening({ client, run: group.run }, job, {
        signal,
        sandbox: estimated.estimate.sandbox,
        onProgress: report,
        onOutcome: deals.add,
      });
      report(result.progress);
      outcome = { kind: "ran", job, result, summary: deals.summary() };
    } catch (error) {
      outcome = { kind: "failed", error };
    }
    const closeError = await group?.close().then(
      () => undefined,
      (error: unknown) => error,
    );
    return { ...outcome, closeError };
  }

  /** Cancel: the stream is cut, so the relay sends nothing more; rows not reached say so. */
  cancel(): void {
    this.#s.running?.abort(new RelayCallError("STR_CANCELLED", "Cancelled in the task pane."));
  }
}

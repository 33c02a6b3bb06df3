import { RelayClient } from "../src/client";
import { FieldInfo, Strategy } from "../src/contract";
import { MaxBidRule, isMaxBidField, maxBidField } from "../src/model";
import { CellInput, ColumnMapping, INPUT_FIELDS, NumberStyle } from "../src/inputs";
import {
  NotEnhanced,
  PlannedRow,
  RowOutcome,
  ScreeningCounts,
  ScreeningEstimate,
  ScreeningPlan,
  estimateScreening,
  notEnhancedOf,
  planRows,
  resultFields,
  screenRows,
  storedOutcome,
} from "../src/screening";
import { LEADING_COLUMNS, ResultBlockSpan, maskBlock, resultBlockHeader, resultBlockWidth } from "../src/sheet";
import { ExcelRun } from "./excel/host";
import { TableRow } from "./excel/read-table";
import { ChunkedWriter, DEFAULT_CHUNK_ROWS, DEFAULT_MAX_DELAY_MS } from "./excel/writer";

/**
 * Screening a table from the pane: the shared pipeline (src/screening, as str-screen runs it) with
 * the pane's own reading and writing — the rows come from the sheet with the column mapping the user
 * confirmed, and result rows are written beside the table in chunks as they arrive. A bad row gets
 * its error in its own row and the run goes on; Cancel cuts the stream, so the relay sends nothing
 * more, and the rows it had not answered say so. A portfolio refresh runs screened tables through
 * here again with `refresh`.
 */
export interface ScreeningJob extends ScreeningPlan {
  sheetId: string;
  sheetName: string;
  /** 0-based sheet row of the header; the block's header goes there too. */
  headerRow: number;
  /** 0-based sheet column where the result block starts. */
  blockColumn: number;
  /** Columns written: the new block's, or more when an earlier, wider block is being replaced (the rest blanked). */
  writeWidth: number;
}

/** A table as read from the sheet (a selection, or a screened table found by a refresh). */
export interface TableInput {
  sheetId: string;
  sheetName: string;
  headerRow: number;
  left: number;
  headers: readonly CellInput[];
  rows: readonly TableRow[];
  block: ResultBlockSpan | undefined;
}

export interface PlanOptions {
  /** For rows without a strategy column or value. */
  strategy: Strategy;
  /** The result columns; omitted → the defaults for the rows' strategy. */
  fields?: readonly FieldInfo[];
  /** A billed refresh: every item bypasses the relay's cache. */
  refresh?: boolean;
  /** How the workbook writes numbers as text (excel/number-style.ts). */
  numbers: NumberStyle;
  /** The user ticked "Also send unusual rows": rows outside the plausibility bounds are sent too. */
  acceptUnusual?: boolean;
  /** A "Max bid" column after the fields: STR.MAXBID of each row's analysis, free. */
  maxBid?: MaxBidRule | undefined;
  /** Loan terms for rows without them (readLoanTerms). */
  loanTerms?: LoanTerms | undefined;
}

/** The Screen tab's loan terms, as request fields: down payment and interest in percent, mortgage years. */
export type LoanTerms = Partial<Record<(typeof LOAN_FIELDS)[number], number>>;

export const LOAN_FIELDS = ["downPaymentPercentage", "interestRatePercentage", "mortgageLength"] as const;

/**
 * The loan terms as typed ("20%", "6.5", "30"), read as a table's column of that field is read;
 * blank fields are no default. Each bad one is named with its rule.
 */
export function readLoanTerms(
  texts: Partial<Record<(typeof LOAN_FIELDS)[number], string>>,
  numbers: NumberStyle,
): { ok: true; terms: LoanTerms } | { ok: false; issues: string[] } {
  const terms: LoanTerms = {};
  const issues: string[] = [];
  for (const field of LOAN_FIELDS) {
    const text = texts[field]?.trim() ?? "";
    if (text === "") continue;
    const read = INPUT_FIELDS[field].read(text, { numbers });
    if (!read.ok) issues.push(`${INPUT_FIELDS[field].label} must be ${read.message}; got "${text}"`);
    else if (typeof read.value === "number") terms[field] = read.value;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, terms };
}

export function planScreening(table: TableInput, mapping: ColumnMapping, options: PlanOptions): ScreeningJob {
  const planned = planRows(table.rows, mapping, {
    strategy: options.strategy,
    headers: maskBlock(table.headers, table.block),
    numbers: options.numbers,
    acceptUnusual: options.acceptUnusual === true,
    ...(options.refresh ? { refresh: true } : {}),
    ...(options.loanTerms && Object.keys(options.loanTerms).length > 0 ? { defaults: options.loanTerms } : {}),
  });
  const chosen = resultFields(planned.strategy, { chosen: options.fields });
  const fields = options.maxBid ? [...chosen.filter((f) => !isMaxBidField(f)), maxBidField(options.maxBid)] : chosen;
  const block = table.block;
  return {
    ...planned,
    fields,
    sheetId: table.sheetId,
    sheetName: table.sheetName,
    headerRow: table.headerRow,
    blockColumn: table.left + (block ? block.start : table.headers.length),
    writeWidth: Math.max(resultBlockWidth(fields), block?.width ?? 0),
  };
}

/** The pane's checkbox that confirms sending rows outside the plausibility bounds. */
export const SEND_UNUSUAL_LABEL = "Also send unusual rows";

/** What a run would do and cost, from the relay's dry run (nothing sent, nothing spent). */
export type Estimate = Omit<ScreeningEstimate, "verdicts">;

export async function estimate(
  client: Pick<RelayClient, "dryRun" | "usage">,
  jobs: readonly ScreeningJob[],
  signal?: AbortSignal,
): Promise<Estimate> {
  const { verdicts: _verdicts, ...totals } = await estimateScreening(client, jobs, signal);
  return totals;
}

/** The progress bar's counts. */
export interface ScreeningProgress {
  /** Rows to answer: those sent and those refused before sending. */
  total: number;
  /** Rows with an outcome: answered, failed, or refused before sending. */
  done: number;
  cached: number;
  /** Rows without figures: refused for bad values, or failed at the relay. */
  failed: number;
  /** Rows held back as unusual, never sent: the user's to check, not failures. */
  held: number;
  warnings: number;
  spentUSD: number;
  /** Rows a cancelled run never reached (not counted as done). */
  stopped: number;
}

export function progressOf(c: Readonly<ScreeningCounts>): ScreeningProgress {
  return {
    total: c.rows,
    done: c.created + c.cached + c.duplicate + c.failed,
    cached: c.cached + c.duplicate,
    failed: c.failed - c.unusual,
    held: c.unusual,
    warnings: c.withWarnings,
    spentUSD: c.spentUSD,
    stopped: c.stopped,
  };
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Whether the relay runs on its sandbox: the header then says the figures are simulated. */
  sandbox: boolean;
  onProgress?: (progress: ScreeningProgress) => void;
  /** Each row's outcome as it is written (the enhancement lists the AI's warnings). */
  onOutcome?: (row: PlannedRow, outcome: RowOutcome) => void;
  chunkRows?: number;
  maxDelayMs?: number;
}

export interface RunResult {
  progress: ScreeningProgress;
  /** Cancelled before every row was answered. */
  stopped: boolean;
  /** context.sync() calls the writer made. */
  syncs: number;
  /** Set when results could not be written to the sheet (the run was stopped then). */
  writeError: unknown;
}

export async function runScreening(
  /** With `analysis`, a row whose enhancement failed entirely keeps its stored figures and shows why (else it is left as it was). */
  deps: { client: Pick<RelayClient, "batch"> & Partial<Pick<RelayClient, "analysis">>; run: ExcelRun },
  job: ScreeningJob,
  options: RunOptions,
): Promise<RunResult> {
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener("abort", stop, { once: true });

  const writer = new ChunkedWriter({
    run: deps.run,
    sheetId: job.sheetId,
    left: job.blockColumn,
    width: job.writeWidth,
    linkColumns: job.fields.flatMap((f, i) => (f.unit === "url" ? [LEADING_COLUMNS + i] : [])),
    chunkRows: options.chunkRows ?? DEFAULT_CHUNK_ROWS,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    // Results that cannot be written are not worth paying for: stop sending.
    onError: (error) => controller.abort(error),
  });
  writer.header(job.headerRow, resultBlockHeader(job.fields, options.sandbox));
  // Blank rows are written blank too: an earlier run's results there would otherwise stay.
  for (const row of job.rows) if (row.kind === "blank") writer.put(row.sheetRow, []);

  let run: Awaited<ReturnType<typeof screenRows>>;
  const notEnhanced: { row: number; analysisId: string; said: NotEnhanced }[] = [];
  try {
    run = await screenRows(deps.client, job, {
      signal: controller.signal,
      // Screening rows show metrics only: without comparables a line is a tenth of the size.
      maxComparables: 0,
      again: "screen the table again",
      acceptUnusual: `tick "${SEND_UNUSUAL_LABEL}" and screen the table again to send it`,
      onOutcome: (row, outcome, answer, counts) => {
        // An enhancement without figures would blank the row's: its stored figures are written after the run.
        const said = notEnhancedOf(row, outcome, answer);
        if (said && row.kind === "request") {
          const { analysisId } = job.items[row.item]?.params as { analysisId: string };
          notEnhanced.push({ row: row.sheetRow, analysisId, said });
        } else writer.put(row.sheetRow, outcome.cells);
        options.onOutcome?.(row, outcome);
        options.onProgress?.(progressOf(counts));
      },
    });
    const stored = deps.client.analysis ? (deps.client as Pick<RelayClient, "analysis">) : undefined;
    for (const n of stored ? notEnhanced : []) {
      const kept = await storedOutcome(stored as Pick<RelayClient, "analysis">, n.analysisId, job.fields, n.said);
      if (kept) writer.put(n.row, kept.outcome.cells);
    }
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }

  let writeError: unknown = writer.failure;
  try {
    await writer.close();
  } catch (error) {
    writeError = error;
  }
  return {
    progress: progressOf(run.counts),
    stopped: run.stopped && writeError === undefined,
    syncs: writer.syncs,
    writeError,
  };
}

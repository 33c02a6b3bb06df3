import { DryRunTotals, RelayCallError, RelayClient, dryRunAll } from "../src/client";
import { BatchItem, FieldInfo, FieldIssue, MAX_BATCH_ITEMS, Operation, Strategy, centsToUSD, describeIssues, isCreate } from "../src/contract";
import { CellInput, ColumnMapping, readRow } from "../src/inputs";
import { LEADING_COLUMNS, ResultBlockSpan, ScreeningResult, defaultScreeningFields, resultBlockHeader, resultBlockRow, resultBlockWidth, rowStatusOf, screeningResultOf, warningTexts } from "../src/sheet";
import { ExcelRun } from "./excel/host";
import { TableRow } from "./excel/read-table";
import { ChunkedWriter, DEFAULT_CHUNK_ROWS, DEFAULT_MAX_DELAY_MS } from "./excel/writer";

/**
 * Screening a table from the pane: its rows read into requests with the column mapping the user
 * confirmed (src/inputs, as str-screen reads them), a dry run of what it would cost, then one
 * POST /v1/batch whose lines become result rows (src/sheet, the block str-screen writes) written
 * beside the table in chunks as they arrive. A bad row gets its error in its own row and the run
 * goes on; Cancel cuts the stream, so the relay sends nothing more, and the rows it had not answered
 * say so. A portfolio refresh runs screened tables through here again with `refresh`.
 */

/** A row of the table as the run sees it. */
export type JobRow = { sheetRow: number } & ({ kind: "blank" } | { kind: "invalid"; issues: FieldIssue[] } | { kind: "request"; item: number });

export interface ScreeningJob {
  sheetId: string;
  sheetName: string;
  /** 0-based sheet row of the header; the block's header goes there too. */
  headerRow: number;
  /** 0-based sheet column where the result block starts. */
  blockColumn: number;
  /** Columns written: the new block's, or more when an earlier, wider block is being replaced (the rest blanked). */
  writeWidth: number;
  fields: FieldInfo[];
  rows: JobRow[];
  items: BatchItem[];
  /** For each item, its index in `rows`. */
  itemRows: number[];
  /** The one strategy of every row, when they share one. */
  strategy: Strategy | undefined;
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
}

/** The earlier block's columns never hold input, whatever their headers say. */
export function maskBlock(headers: readonly CellInput[], block: ResultBlockSpan | undefined): CellInput[] {
  return headers.map((h, c) => (block && c >= block.start && c < block.start + block.width ? null : h));
}

export function planScreening(table: TableInput, mapping: ColumnMapping, options: PlanOptions): ScreeningJob {
  const rows: JobRow[] = [];
  const items: BatchItem[] = [];
  const itemRows: number[] = [];
  const ops = new Set<Operation>();
  const headers = maskBlock(table.headers, table.block);
  for (const { sheetRow, cells } of table.rows) {
    const read = readRow(cells, mapping, { strategy: options.strategy, headers });
    if (read.kind === "blank") rows.push({ sheetRow, kind: "blank" });
    else if (read.kind === "invalid") {
      if (read.op) ops.add(read.op);
      rows.push({ sheetRow, kind: "invalid", issues: read.issues });
    } else {
      ops.add(read.op);
      itemRows.push(rows.length);
      rows.push({ sheetRow, kind: "request", item: items.length });
      items.push({ strategy: read.op, params: read.request, ...(options.refresh ? { refresh: true } : {}) });
    }
  }
  const only = ops.size === 1 ? [...ops][0] : ops.size === 0 ? options.strategy : undefined;
  const strategy = only !== undefined && isCreate(only) ? only : undefined;
  const fields = options.fields ? [...options.fields] : defaultScreeningFields(strategy);
  const width = resultBlockWidth(fields);
  const block = table.block;
  return {
    sheetId: table.sheetId,
    sheetName: table.sheetName,
    headerRow: table.headerRow,
    blockColumn: table.left + (block ? block.start : table.headers.length),
    writeWidth: Math.max(width, block?.width ?? 0),
    fields,
    rows,
    items,
    itemRows,
    strategy,
  };
}

/**
 * What a run would do and cost, from the relay's dry run (nothing sent, nothing spent); `invalid`
 * also counts the rows refused here, before sending.
 */
export type Estimate = Omit<DryRunTotals, "verdicts">;

export async function estimate(client: Pick<RelayClient, "dryRun" | "usage">, jobs: readonly ScreeningJob[], signal?: AbortSignal): Promise<Estimate> {
  const refused = jobs.reduce((n, j) => n + j.rows.filter((r) => r.kind === "invalid").length, 0);
  const { verdicts: _verdicts, ...totals } = await dryRunAll(client, jobs.flatMap((j) => j.items), signal);
  // Rows refused here never reach the relay: they count with those its validation refused.
  return { ...totals, invalid: totals.invalid + refused };
}

export interface ScreeningProgress {
  /** Rows to answer: those sent and those refused before sending. */
  total: number;
  /** Rows with an outcome: answered, failed, or refused before sending. */
  done: number;
  cached: number;
  failed: number;
  warnings: number;
  spentUSD: number;
  /** Rows a cancelled run never reached (not counted as done). */
  stopped: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Whether the relay runs on its sandbox: the header then says the figures are simulated. */
  sandbox: boolean;
  onProgress?: (progress: ScreeningProgress) => void;
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

export async function runScreening(deps: { client: Pick<RelayClient, "batch">; run: ExcelRun }, job: ScreeningJob, options: RunOptions): Promise<RunResult> {
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener("abort", stop, { once: true });

  const { fields } = job;
  const linkColumns = fields.flatMap((f, i) => (f.unit === "url" ? [LEADING_COLUMNS + i] : []));
  const writer = new ChunkedWriter({
    run: deps.run,
    sheetId: job.sheetId,
    left: job.blockColumn,
    width: job.writeWidth,
    linkColumns,
    chunkRows: options.chunkRows ?? DEFAULT_CHUNK_ROWS,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    // Results that cannot be written are not worth paying for: stop sending.
    onError: (error) => controller.abort(error),
  });
  const progress: ScreeningProgress = { total: job.rows.filter((r) => r.kind !== "blank").length, done: 0, cached: 0, failed: 0, warnings: 0, spentUSD: 0, stopped: 0 };
  let spentCents = 0;
  const answered = new Set<number>();
  const record = (row: JobRow, result: ScreeningResult, status: ReturnType<typeof rowStatusOf>) => {
    writer.put(row.sheetRow, resultBlockRow(result, fields, status));
    if (status === "stopped") {
      progress.stopped++;
      options.onProgress?.({ ...progress });
      return;
    }
    progress.done++;
    if (status === "cached" || status === "duplicate") progress.cached++;
    if (status === "failed") progress.failed++;
    if ("answer" in result) {
      if (warningTexts(result.answer).length > 0) progress.warnings++;
      spentCents += Math.round(result.answer.relay.costUSD * 100);
      progress.spentUSD = centsToUSD(spentCents);
    }
    options.onProgress?.({ ...progress });
  };

  writer.header(job.headerRow, resultBlockHeader(fields, options.sandbox));
  for (const row of job.rows) {
    // Blank rows are written blank too: an earlier run's results there would otherwise stay.
    if (row.kind === "blank") writer.put(row.sheetRow, []);
    else if (row.kind === "invalid") {
      record(row, { error: { success: false, error: { code: "STR_VALIDATION", message: describeIssues(row.issues), fields: row.issues } } }, "failed");
    }
  }

  let failure: unknown;
  try {
    for (let start = 0; start < job.items.length && !controller.signal.aborted; start += MAX_BATCH_ITEMS) {
      await deps.client.batch(job.items.slice(start, start + MAX_BATCH_ITEMS), {
        signal: controller.signal,
        // Screening rows show metrics only: without comparables a line is a tenth of the size.
        maxComparables: 0,
        onLine: (line) => {
          const item = start + line.index;
          const r = job.itemRows[item];
          if (r === undefined || answered.has(item)) return;
          answered.add(item);
          record(job.rows[r] as JobRow, screeningResultOf(line.body), rowStatusOf(line.body));
        },
      });
    }
  } catch (error) {
    failure = error;
  } finally {
    options.signal?.removeEventListener("abort", stop);
  }

  const stopped = controller.signal.aborted;
  job.itemRows.forEach((r, item) => {
    if (answered.has(item)) return;
    const error = stopped
      ? new RelayCallError("STR_CANCELLED", "Stopped before this row was answered: screen the table again to finish (rows already answered come from the cache, free).")
      : (failure ?? new RelayCallError("STR_RELAY_BAD_ANSWER", "The relay's batch answer ended without this row; screen the table again to fill it in."));
    record(job.rows[r] as JobRow, { error }, stopped ? "stopped" : "failed");
  });

  let writeError: unknown = writer.failure;
  try {
    await writer.close();
  } catch (error) {
    writeError = error;
  }
  return { progress, stopped: stopped && writeError === undefined, syncs: writer.syncs, writeError };
}

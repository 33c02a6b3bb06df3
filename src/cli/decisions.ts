import { FieldInfo, Strategy } from "../contract";
import { isMaxBidField, maxBidField } from "../model";
import { CellInput } from "../inputs";
import { PlannedRow, RowOutcome, planEnhancement, refreshAged } from "../screening";
import {
  BLANK,
  CellRow,
  DATE_TIME_FORMAT,
  FormattedCell,
  LEADING_COLUMNS,
  RowStatus,
  STATUS_TEXT,
  excelSerialOf,
} from "../sheet";
import { ScreenOptions, UsageError } from "./args";
import { Plan } from "./table-plan";
import { InputTable } from "./table-reader";

/*
 * The options that turn a screening into a decision run: --max-bid adds its column to the result
 * block; --refresh-older-than buys again only the aged rows; --enhance runs AI steps on the rows'
 * analyses instead of screening them. The selections are the shared pipeline's (src/screening);
 * here they read the workbook's earlier result block.
 */

/** The plan with the decision options applied, and a note on what each selected. */
export function withDecisions(
  plan: Plan,
  table: InputTable,
  options: Pick<ScreenOptions, "maxBid" | "refreshOlderThan" | "enhance">,
): { plan: Plan; notes: string[] } {
  const notes: string[] = [];
  let decided = options.maxBid ? { ...plan, fields: withMaxBid(plan.fields, plan.strategy, options) } : plan;
  if (options.refreshOlderThan !== undefined) {
    const fetched = earlierColumn(decided, "--refresh-older-than", LEADING_COLUMNS - 1);
    const days = options.refreshOlderThan;
    const aged = refreshAged(decided, (r) => table.rows[r]?.[fetched] as CellInput, { days });
    decided = { ...decided, ...aged.plan };
    notes.push(
      `Aged: ${aged.aged} of ${decided.items.length} rows were fetched more than ${days} days ago and are fetched again (billed); the others come from the cache.`,
    );
  }
  if (options.enhance) {
    const block = decided.earlierBlock;
    const at = block?.fields.findIndex((f) => f.path === "_id") ?? -1;
    const idColumn = earlierColumn(decided, "--enhance", LEADING_COLUMNS + at);
    if (at < 0)
      throw new UsageError(
        "--enhance needs the result block's Analysis id column: screen the table again with _id among --fields",
      );
    const enhanced = planEnhancement(decided, (r) => table.rows[r]?.[idColumn], options.enhance);
    decided = { ...decided, ...enhanced };
    const kept = enhanced.rows.filter((r) => r.kind === "kept").length;
    notes.push(
      `Enhance: ${enhanced.items.length} rows with an analysis id${kept > 0 ? `; ${kept} rows without one are kept as they are` : ""}.`,
    );
  }
  return { plan: decided, notes };
}

/** The fields with the max-bid column last (replacing an earlier run's). */
function withMaxBid(
  fields: readonly FieldInfo[],
  strategy: Strategy | undefined,
  options: Pick<ScreenOptions, "maxBid">,
): FieldInfo[] {
  const column = maxBidField(options.maxBid as NonNullable<ScreenOptions["maxBid"]>);
  if (strategy && !column.strategies.includes(strategy))
    throw new UsageError(
      `--max-bid applies to buy and owned rows, which have a price to bid; every row of the table is ${strategy}`,
    );
  return [...fields.filter((f) => !isMaxBidField(f)), column];
}

/** The 0-based table column of the earlier block's `offset`-th column; a usage error when there is no block. */
function earlierColumn(plan: Plan, option: string, offset: number): number {
  const block = plan.earlierBlock;
  if (!block)
    throw new UsageError(
      `${option} works on a screened table (one with the STR status and STR fetched columns of an earlier run); screen it first`,
    );
  return block.start + offset;
}

/**
 * A kept row's outcome: its earlier cells, by field, so the block is written as it was (a field the
 * earlier block did not have is blank). Nothing was sent for it, and nothing is counted.
 */
export function keptOutcome(table: InputTable, plan: Plan, row: PlannedRow): RowOutcome {
  const cells = earlierCells(table, plan, row.sheetRow);
  const statusText = cells[0]?.value;
  const status = (Object.keys(STATUS_TEXT) as RowStatus[]).find((s) => STATUS_TEXT[s] === statusText) ?? "failed";
  const at = plan.fields.findIndex((f) => f.path === "_id");
  const id = at < 0 ? undefined : cells[LEADING_COLUMNS + at]?.value;
  return {
    status,
    cells,
    warnings: [],
    error: undefined,
    costUSD: 0,
    analysisId: typeof id === "string" && id !== "" ? id : undefined,
  };
}

/** A row's earlier block cells, laid out for the plan's fields; empty when the table has no earlier block. */
export function earlierCells(table: InputTable, plan: Plan, sheetRow: number): CellRow {
  const block = plan.earlierBlock;
  if (!block) return [];
  const cellAt = (offset: number): FormattedCell => {
    const c = block.start + offset;
    const value = table.rows[sheetRow]?.[c];
    const format = table.formats[sheetRow]?.[c];
    if (value === undefined || value === null || value === "") return BLANK;
    if (value instanceof Date) return { value: excelSerialOf(value) as number, format: DATE_TIME_FORMAT };
    return format ? { value, format } : { value };
  };
  const fields = plan.fields.map((f) => {
    const j = block.fields.findIndex((e) => e.path === f.path);
    return j < 0 ? BLANK : cellAt(LEADING_COLUMNS + j);
  });
  const warnings = block.width > LEADING_COLUMNS + block.fields.length ? cellAt(block.width - 1) : BLANK;
  return [cellAt(0), cellAt(1), ...fields, warnings];
}

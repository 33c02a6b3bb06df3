import path from "node:path";
import { FieldInfo } from "../contract";
import { CellInput, ColumnMapping, INPUT_FIELDS, isBlank, missingLocation, recognizeColumns } from "../inputs";
import { ScreeningPlan, planRows, resultFields } from "../screening";
import { ResultBlockSpan, findResultBlock, maskBlock, parseFieldList } from "../sheet";
import { ScreenOptions, UsageError } from "./args";
import { InputTable } from "./table-reader";

/**
 * What a run will do with each row of the table (the shared plan, src/screening), and where: the
 * header row (the first of the top rows whose headers locate a property, so a title above the table
 * is fine), which column holds what (the task pane's recognition, shared), and the result block of
 * an earlier run, which a refresh replaces.
 */
export interface Plan extends ScreeningPlan {
  headerIndex: number;
  headers: CellInput[];
  mapping: ColumnMapping;
  /** The result block of an earlier run, if the table has one. */
  earlierBlock: ResultBlockSpan | undefined;
}

/** How far down a header row is looked for. */
const HEADER_SEARCH_ROWS = 20;

export function planScreening(
  table: InputTable,
  options: Pick<ScreenOptions, "strategy" | "strategyGiven" | "refresh" | "fieldsText" | "decimal" | "acceptUnusual">,
): Plan {
  const { headerIndex, headers, mapping, earlierBlock } = findHeader(table);
  let last = table.rows.length - 1;
  while (last > headerIndex && isBlankRow(table.rows[last])) last--;
  const source = Array.from({ length: last - headerIndex }, (_, i) => ({
    sheetRow: headerIndex + 1 + i,
    cells: table.rows[headerIndex + 1 + i] ?? [],
  }));
  const numbers = options.decimal ?? table.numbers;
  const planned = planRows(source, mapping, {
    strategy: options.strategy,
    headers,
    numbers,
    acceptUnusual: options.acceptUnusual,
    ...(options.refresh ? { refresh: true } : {}),
  });

  const { strategy } = planned;
  let chosen: readonly FieldInfo[] | undefined;
  if (options.fieldsText !== undefined) {
    // Checked again now that the rows' strategies are known: a cap rate asked of arbitrage rows only would be a column of blanks.
    const list = parseFieldList(options.fieldsText, strategy ? { strategy } : {});
    if (!list.ok)
      throw new UsageError(
        `--${list.message}${strategy && !options.strategyGiven ? ` (every row of the table is ${strategy})` : ""}`,
      );
    chosen = list.fields;
  }
  // A mixed table: each of its strategies' own columns.
  const fields = resultFields(strategy ?? planned.strategies, { chosen, earlier: earlierBlock });
  return { ...planned, fields, headerIndex, headers, mapping, earlierBlock };
}

function findHeader(table: InputTable): {
  headerIndex: number;
  headers: CellInput[];
  mapping: ColumnMapping;
  earlierBlock: ResultBlockSpan | undefined;
} {
  let firstNonBlank: number | undefined;
  for (let r = 0; r < Math.min(HEADER_SEARCH_ROWS, table.rows.length); r++) {
    const row = table.rows[r];
    if (isBlankRow(row)) continue;
    firstNonBlank ??= r;
    const headers = Array.from({ length: table.width }, (_, c) => row?.[c] ?? null);
    const earlierBlock = findResultBlock(headers);
    const mapping = recognizeColumns(maskBlock(headers, earlierBlock));
    if (!missingLocation(mapping)) return { headerIndex: r, headers, mapping, earlierBlock };
  }
  const name =
    table.format === "xlsx"
      ? `sheet ${JSON.stringify(table.sheetName)} of ${path.basename(table.file)}`
      : path.basename(table.file);
  if (firstNonBlank === undefined)
    throw new UsageError(`${name} is empty: it needs a header row, then one row per property`);
  const seen = (table.rows[firstNonBlank] ?? []).filter((h) => !isBlank(h)).map((h) => JSON.stringify(String(h)));
  throw new UsageError(
    `${name}: ${missingLocation([]) ?? "no location column"}; the headers in row ${firstNonBlank + 1} are ${seen.join(", ")} (columns are recognised by names such as ${INPUT_FIELDS.fullAddress.names.slice(0, 3).join(", ")})`,
  );
}

function isBlankRow(row: readonly CellInput[] | undefined): boolean {
  return !row || row.every((c) => isBlank(c));
}

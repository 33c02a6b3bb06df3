/*
 * Office Script: writes a job's results into an Excel table, row by row key. Power Automate runs it
 * after the relay's job is done (docs/automation.md, "Scheduled refresh in Excel for the web"):
 * scripts run by a flow cannot call the relay themselves, so the flow fetches the results and
 * hands them over, with the key of the row each job item came from, in the items' order.
 *
 * Paste it into Excel on the web (Automate > New script), save it as "Write STR results", and
 * point the flow's "Run script" action at it. Only the result columns the table has are written;
 * every other cell, formulas included, is left as it is.
 */

/** One job result: the relay's answer for an item (a batch line's body). */
interface JobResult {
  success?: boolean;
  data?: AnalysisData;
  error?: { code: string; message: string };
}

interface AnalysisData {
  _id?: string;
  revenue?: { p50?: number };
  occupancy?: { p50?: number };
  yearOneCashFlowUSD?: number;
  yearOneCashOnCashPercentage?: number;
}

type Cell = string | number | boolean;

/** Column header → what goes in it; a table without one of these columns simply does not get it. */
const COLUMNS: { header: string; value: (r: JobResult) => Cell }[] = [
  { header: "Revenue", value: (r) => r.data?.revenue?.p50 ?? "" },
  { header: "Occupancy", value: (r) => r.data?.occupancy?.p50 ?? "" },
  { header: "CashFlow", value: (r) => r.data?.yearOneCashFlowUSD ?? "" },
  { header: "CashOnCash", value: (r) => r.data?.yearOneCashOnCashPercentage ?? "" },
  { header: "AnalysisId", value: (r) => r.data?._id ?? "" },
  {
    header: "Status",
    value: (r) => (r.error ? `${r.error.code}: ${r.error.message}` : r.success === false ? "failed" : "ok"),
  },
];

/** A key as the table and the flow may spell it: 7 and "7", " A-1 " and "A-1" are one key. */
function keyOf(value: Cell): string {
  return String(value).trim();
}

interface Plan {
  /** Each result column the table has, by its index, with its new values top to bottom. */
  columns: { index: number; values: Cell[][] }[];
  written: number;
  /** Item keys no row of the table has. */
  missing: string[];
}

/**
 * What to write: for each result, the row whose key column holds its item's key. `current` is the
 * table's body (rows of cells) as it is, so cells of rows with no result keep their values.
 */
function planWrites(
  headers: Cell[],
  keyColumn: string,
  current: Cell[][],
  itemKeys: string[],
  results: JobResult[],
): Plan {
  const names = headers.map((h) => String(h).trim());
  const keyIndex = names.indexOf(keyColumn);
  if (keyIndex < 0) throw new Error(`The table has no column "${keyColumn}" (it has ${names.join(", ")}).`);
  if (itemKeys.length !== results.length)
    throw new Error(`${itemKeys.length} keys for ${results.length} results: give one key per job item, in order.`);
  const rowOf = new Map<string, number>();
  current.forEach((row, i) => {
    const key = keyOf(row[keyIndex] ?? "");
    if (key !== "" && !rowOf.has(key)) rowOf.set(key, i);
  });
  const columns = COLUMNS.map((c) => ({ column: c, index: names.indexOf(c.header) }))
    .filter((c) => c.index >= 0)
    .map((c) => ({ ...c, values: current.map((row) => [row[c.index] ?? ""]) }));
  const missing: string[] = [];
  let written = 0;
  results.forEach((result, i) => {
    const row = rowOf.get(keyOf(itemKeys[i] ?? ""));
    if (row === undefined) {
      missing.push(itemKeys[i] ?? "");
      return;
    }
    for (const c of columns) c.values[row] = [c.column.value(result)];
    written++;
  });
  return { columns: columns.map((c) => ({ index: c.index, values: c.values })), written, missing };
}

// Office runs main: nothing in the script calls it.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
function main(
  workbook: ExcelScript.Workbook,
  tableName: string,
  keyColumn: string,
  itemKeys: string[],
  results: JobResult[],
): string {
  const table = workbook.getTable(tableName);
  if (!table) throw new Error(`No table named "${tableName}" in this workbook.`);
  const headers = table.getHeaderRowRange().getValues()[0] ?? [];
  const body = table.getRangeBetweenHeaderAndTotal();
  const plan = planWrites(headers, keyColumn, body.getValues(), itemKeys, results);
  // One write per result column: the table's other columns, formulas included, are not touched.
  for (const column of plan.columns) body.getColumn(column.index).setValues(column.values);
  const missing = plan.missing.length > 0 ? `; no row for ${plan.missing.join(", ")}` : "";
  return `${plan.written} of ${results.length} rows written${missing}`;
}

import { DryRunTotals, RelayClient, dryRunAll, noDryRun } from "../src/client";
import { AnyRequest, BatchItem, Operation, canonicalRequest, centsToUSD } from "../src/contract";
import { BilledFunction, billedCallRequest } from "../src/inputs";
import { ArgumentExpression, formulaCalls } from "./excel/formula-arguments";
import { ExcelRun } from "./excel/host";
import { FormulaCell } from "./excel/scope";

/**
 * What the STR.* formulas in a scope would send: each billed call's arguments read as Excel passes
 * them (literals from the text, references from the sheet) and made into its request by the code
 * the functions themselves use (src/inputs/billed-calls.ts), then priced by the relay's own dry run —
 * duplicates, the cache and the ledger included. Their canonical requests are what the refresh gate
 * admits (src/client/addin.ts), so what is bought is what was priced. A call whose arguments the pane
 * cannot read (an expression, a name) cannot be priced, so it is not refreshed: counted apart, it
 * recalculates as any other call does, from the caches.
 */
export type FormulaRequest = { cell: FormulaCell; fn: BilledFunction } & (
  | { kind: "request"; op: Operation; params: Record<string, unknown> }
  /** Its arguments fail the functions' own checks: the cell shows #VALUE! and nothing is sent. */
  | { kind: "invalid" }
  /** An argument the pane cannot evaluate. */
  | { kind: "unread" }
);

export async function readFormulaRequests(run: ExcelRun, cells: readonly FormulaCell[]): Promise<FormulaRequest[]> {
  if (cells.length === 0) return [];
  const parsed = cells.map((cell) => ({ cell, calls: formulaCalls(cell.formula) }));
  return run(async (context) => {
    const loaded = new Map<string, Excel.Range>();
    const keyOf = (cell: FormulaCell, a: Extract<ArgumentExpression, { kind: "reference" }>) =>
      `${a.sheet ?? cell.sheetName}!${a.row},${a.column},${a.rows},${a.columns}`;
    for (const { cell, calls } of parsed)
      for (const a of calls.flatMap((c) => c.args)) {
        if (a.kind !== "reference" || loaded.has(keyOf(cell, a))) continue;
        const range = context.workbook.worksheets
          .getItem(a.sheet ?? cell.sheetName)
          .getRangeByIndexes(a.row, a.column, a.rows, a.columns);
        range.load("values");
        loaded.set(keyOf(cell, a), range);
      }
    if (loaded.size > 0) await context.sync();
    const out: FormulaRequest[] = [];
    for (const { cell, calls } of parsed)
      for (const call of calls) {
        if (call.args.some((a) => a.kind === "unread")) {
          out.push({ cell, fn: call.fn, kind: "unread" });
          continue;
        }
        const args = call.args.map((a) =>
          a.kind === "omitted"
            ? null
            : a.kind === "value"
              ? a.value
              : a.kind === "reference"
                ? (loaded.get(keyOf(cell, a))?.values ?? null)
                : null,
        );
        // Excel does not run a function whose argument is an error value: the cell shows the error, nothing is sent.
        if (args.some(holdsExcelError)) {
          out.push({ cell, fn: call.fn, kind: "invalid" });
          continue;
        }
        const built = billedCallRequest(call.fn, args);
        out.push(
          built.ok
            ? { cell, fn: call.fn, kind: "request", op: built.op, params: built.request as Record<string, unknown> }
            : { cell, fn: call.fn, kind: "invalid" },
        );
      }
    return out;
  });
}

/** How `range.values` gives a cell holding an error. */
const EXCEL_ERRORS = new Set([
  "#N/A",
  "#VALUE!",
  "#REF!",
  "#DIV/0!",
  "#NUM!",
  "#NAME?",
  "#NULL!",
  "#SPILL!",
  "#CALC!",
  "#BUSY!",
  "#GETTING_DATA",
  "#FIELD!",
  "#BLOCKED!",
  "#CONNECT!",
  "#UNKNOWN!",
]);

function holdsExcelError(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((row: unknown[]) => row.some(holdsExcelError));
  return typeof value === "string" && EXCEL_ERRORS.has(value);
}

export interface FormulaEstimate {
  /** Billed calls: distinct requests to send. */
  calls: number;
  costUSD: number;
  /** Calls whose arguments could not be read: not refreshed, and not priced. */
  unread: number;
  /** Calls the functions refuse before sending (#VALUE!): free. */
  invalid: number;
  /** The relay's dry run of the requests read, one verdict per request in order. */
  dryRun: DryRunTotals;
}

/**
 * The canonical requests the refresh gate admits: one per distinct request read (identical formulas
 * send one call), none for a call that could not be read or is refused before sending.
 */
export function pricedRequests(requests: readonly FormulaRequest[]): string[] {
  const keys = requests.flatMap((r) =>
    r.kind === "request" ? [canonicalRequest(r.op, r.params as unknown as AnyRequest)] : [],
  );
  return [...new Set(keys)];
}

/** The batch items the formulas' requests make; `freshSince` (epoch ms) as the refresh gate sends it. */
export function batchItems(requests: readonly FormulaRequest[], refresh: boolean, freshSince?: number): BatchItem[] {
  const since = refresh && freshSince !== undefined ? { freshSince: new Date(freshSince).toISOString() } : {};
  return requests.flatMap((r) =>
    r.kind === "request" ? [{ strategy: r.op, params: r.params, ...(refresh ? { refresh: true } : {}), ...since }] : [],
  );
}

export async function estimateFormulas(
  client: Pick<RelayClient, "dryRun" | "usage">,
  requests: readonly FormulaRequest[],
  options: { refresh: boolean; freshSince?: number; signal?: AbortSignal },
): Promise<FormulaEstimate> {
  const items = batchItems(requests, options.refresh, options.freshSince);
  // No request to price: the tables' dry run already says what is left of the budget.
  const dryRun = items.length > 0 ? await dryRunAll(client, items, options.signal) : noDryRun();
  return {
    calls: dryRun.toCreate,
    costUSD: centsToUSD(Math.round(dryRun.estimatedCostUSD * 100)),
    unread: requests.filter((r) => r.kind === "unread").length,
    invalid: requests.filter((r) => r.kind === "invalid").length,
    dryRun,
  };
}

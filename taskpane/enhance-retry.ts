import { RelayClient, dryRunAll } from "../src/client";
import { centsToUSD } from "../src/contract";
import { ExcelRun } from "./excel/host";
import { FormulaCell } from "./excel/scope";
import { FormulaRequest, batchItems } from "./formula-requests";

/**
 * STR.ENHANCE formulas whose answer the relay does not keep: every AI step failed (free, and not
 * cached, so that it can be tried again) or it never ran. Found by the relay's dry run of their
 * requests as they are — no refresh — so the price shown is what trying again costs at most (only
 * the steps that complete are billed). Retrying recalculates just those cells, with the refresh gate
 * closed: an enhancement the relay kept meanwhile answers free.
 */
export interface EnhanceRetry {
  cells: FormulaCell[];
  /** Distinct enhance requests to send. */
  calls: number;
  costUSD: number;
}

export async function planEnhanceRetry(
  client: Pick<RelayClient, "dryRun" | "usage">,
  requests: readonly FormulaRequest[],
  signal?: AbortSignal,
): Promise<EnhanceRetry> {
  const enhances = requests.filter((r) => r.kind === "request" && r.op === "enhance");
  if (enhances.length === 0) return { cells: [], calls: 0, costUSD: 0 };
  const answer = await dryRunAll(client, batchItems(enhances, false), signal);
  const cells = enhances.flatMap((r, i) => {
    const verdict = answer.verdicts[i];
    return verdict === "create" || verdict === "duplicate" ? [r.cell] : [];
  });
  return {
    cells: [...new Map(cells.map((c) => [c.address, c])).values()],
    calls: answer.toCreate,
    costUSD: centsToUSD(Math.round(answer.estimatedCostUSD * 100)),
  };
}

/** Recalculates the cells of the failed enhancements (their formulas ask the relay again). */
export async function retryEnhancements(run: ExcelRun, cells: readonly FormulaCell[]): Promise<void> {
  if (cells.length === 0) return;
  await run(async (context) => {
    for (const c of cells)
      context.workbook.worksheets.getItem(c.sheetId).getRangeByIndexes(c.row, c.column, 1, 1).calculate();
    await context.sync();
  });
}

import { RelayAnswer, RelayErrorBody, FieldInfo, FieldIssue, centsToUSD, describeIssues } from "../contract";
import {
  CellRow,
  RowStatus,
  analysisOf,
  resultBlockRow,
  rowStatusOf,
  screeningResultOf,
  sheetError,
  warningTexts,
} from "../sheet";
import { PlannedRow } from "./plan";

/**
 * What a screened row came to, as both surfaces show it: its result-block cells (status, fetched,
 * the fields, then warnings or the error), its warnings, its error, its cost. The answer itself is
 * handed on beside it once (str-screen keeps its comparables) and not kept here.
 */
export interface RowOutcome {
  status: RowStatus;
  cells: CellRow;
  warnings: string[];
  /** "[CODE] what happened and what to do", for a row without figures. */
  error: string | undefined;
  costUSD: number;
  analysisId: string | undefined;
}

/** A batch line's body for a row: an answer, or the relay's error for it. */
export function lineOutcome(
  body: RelayAnswer | RelayErrorBody,
  fields: readonly FieldInfo[],
): { outcome: RowOutcome; answer: RelayAnswer | undefined } {
  const result = screeningResultOf(body);
  if (!("answer" in result)) return { outcome: failedOutcome(result.error, fields), answer: undefined };
  const answer = result.answer;
  const status = rowStatusOf(body);
  const outcome: RowOutcome = {
    status,
    cells: resultBlockRow(result, fields, status),
    warnings: warningTexts(answer),
    error: undefined,
    costUSD: answer.relay.costUSD,
    analysisId: analysisOf(answer)?._id,
  };
  return { outcome, answer };
}

/** A row without figures: refused before sending, failed at the relay, or not reached (`stopped`). */
export function failedOutcome(
  error: unknown,
  fields: readonly FieldInfo[],
  status: "failed" | "stopped" = "failed",
): RowOutcome {
  return {
    status,
    cells: resultBlockRow({ error }, fields, status),
    warnings: [],
    error: sheetError(error).detail,
    costUSD: 0,
    analysisId: undefined,
  };
}

/** The error a row refused before sending carries: the relay's own validation error shape. */
export function refusal(issues: FieldIssue[]): RelayErrorBody {
  return { success: false, error: { code: "STR_VALIDATION", message: describeIssues(issues), fields: issues } };
}

/** The error a row held back as unusual carries; `advice` says how the surface sends it anyway. */
export function heldBack(issues: readonly FieldIssue[], advice: string): RelayErrorBody {
  return {
    success: false,
    error: {
      code: "STR_UNUSUAL_INPUT",
      message: `Not sent: ${describeIssues(issues)}, outside the plausible range; check the row, or ${advice}.`,
    },
  };
}

/** Counts of a run's outcomes, kept as they arrive; each surface shows them its own way. */
export interface ScreeningCounts {
  /** Rows of the plan that are not blank. */
  rows: number;
  created: number;
  cached: number;
  /** Identical to an earlier row: they shared its call. */
  duplicate: number;
  /** Rows without figures, refused ones included (not those a stop never reached). */
  failed: number;
  /** Of the failed: refused before sending (bad values). */
  refused: number;
  /** Of the failed: held back as unusual, not sent. */
  unusual: number;
  /** Rows a stopped run never reached. */
  stopped: number;
  /** Rows sent (kind "request") with an outcome, those a stop never reached included: the progress bar's count. */
  itemsDone: number;
  /** Of those, rows without figures: failed at the relay or never reached. */
  itemsFailed: number;
  withWarnings: number;
  spentUSD: number;
}

export function emptyCounts(rows: number): ScreeningCounts {
  return {
    rows,
    created: 0,
    cached: 0,
    duplicate: 0,
    failed: 0,
    refused: 0,
    unusual: 0,
    stopped: 0,
    itemsDone: 0,
    itemsFailed: 0,
    withWarnings: 0,
    spentUSD: 0,
  };
}

export function countOutcome(counts: ScreeningCounts, row: PlannedRow, outcome: RowOutcome): void {
  if (outcome.status === "stopped") counts.stopped++;
  else counts[outcome.status]++;
  if (row.kind === "invalid") counts.refused++;
  if (row.kind === "unusual") counts.unusual++;
  if (row.kind === "request") {
    counts.itemsDone++;
    if (outcome.status === "failed" || outcome.status === "stopped") counts.itemsFailed++;
  }
  if (outcome.warnings.length > 0) counts.withWarnings++;
  // Cents, so that many rows add up without floating-point dust.
  counts.spentUSD = centsToUSD(Math.round(counts.spentUSD * 100) + Math.round(outcome.costUSD * 100));
}

import { errorText, sheetError } from "../src/sheet";

/** A problem the pane explains in its own words (a selection without a header row, a full target area). */
export class PaneError extends Error {
  override readonly name = "PaneError";
}

/**
 * Any failure as the pane shows it: its own words; the relay's and the client's errors as the cells
 * show them ("#N/A [STR_BUDGET_EXCEEDED] Today's budget is spent…"), so one code reads the same
 * everywhere; Excel's own errors (OfficeExtension.Error) named as Excel's.
 */
export function describeError(error: unknown): string {
  if (error instanceof PaneError) return error.message;
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const isOffice =
    typeof code === "string" && !code.startsWith("STR_") && error instanceof Error && error.name === "RichApi.Error";
  if (isOffice) return `Excel refused: ${error.message} (${code})`;
  // The pane has room for the whole story: the advice and the relay's own words.
  const e = sheetError(error);
  return errorText({ ...e, message: e.detail });
}

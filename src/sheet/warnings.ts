import { clipText, MAX_CELL_TEXT } from "./cells";

/*
 * Warnings are data (docs/architecture.md, "Rules every change keeps"): an AI step that was skipped
 * changes what the figures mean, so every layout shows every warning, marked the same way, in a cell
 * of its own.
 */

/** Marks a warning wherever it is shown: card rows, the screening column, the CLI report. */
export const WARNING_MARK = "⚠";

/** Separates warnings that share one cell; a pipe, because warnings themselves hold commas and semicolons. */
export const WARNING_SEPARATOR = " | ";

/** One cell holding all of a row's warnings: "" when there are none, so a filter on blanks finds the clean rows. */
export function warningsCell(texts: readonly string[]): string {
  if (texts.length === 0) return "";
  return clipText(`${WARNING_MARK} ${texts.join(WARNING_SEPARATOR)}`, MAX_CELL_TEXT);
}

import { NumberStyle } from "../../src/inputs";
import { ExcelRun } from "./host";

/**
 * How the workbook's user writes numbers as text, from Excel's own culture settings (the decimal
 * mark its number formats use; ExcelApi 1.11). Numbers Excel holds as numbers need none of this: it
 * decides only how text such as "450.000" in a cell is read. Where the host cannot say, the
 * convention is unknown and such text is refused rather than guessed — Office's display language is
 * the language of the menus, not of the numbers, so it does not decide.
 */
export type SupportsApi = (set: string, version: string) => boolean;

export const officeSupports: SupportsApi = (set, version) =>
  typeof Office !== "undefined" && Office.context?.requirements?.isSetSupported(set, version) === true;

export async function workbookNumberStyle(
  run: ExcelRun,
  isSetSupported: SupportsApi = officeSupports,
): Promise<NumberStyle> {
  if (!isSetSupported("ExcelApi", "1.11")) return "unknown";
  return run(async (context) => {
    const format = context.application.cultureInfo.numberFormat;
    format.load("numberDecimalSeparator");
    await context.sync();
    const mark = format.numberDecimalSeparator;
    return mark === "," ? "comma" : mark === "." ? "point" : "unknown";
  });
}

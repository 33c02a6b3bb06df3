import { Cell, FormattedCell, GENERAL_FORMAT } from "./cells";

/*
 * What a custom function returns for a grid. A custom function cannot set its cells' number format,
 * but it can return numbers that carry one (Excel data types; custom-functions-metadata sets
 * allowCustomDataForDataTypeAny): then 0.725 reads "72.5%" and 415000 reads "$415,000" in the
 * spill, and the value stays a number for formulas. Hosts without data types get plain numbers.
 *
 * The shapes below are Excel.DoubleCellValue and Excel.FormattedNumberCellValue written out, so this
 * file needs no Office types (the CLI compiles it with Node's types only); a test checks they still fit.
 * https://learn.microsoft.com/office/dev/add-ins/excel/custom-functions-data-types-concepts
 */

/** ExcelApi 1.19+: a double with a number format (FormattedNumber is deprecated there). */
export interface DoubleCellValue {
  type: "Double";
  basicValue: number;
  numberFormat: string;
}

/** ExcelApi 1.16–1.18: the earlier name for the same thing. */
export interface FormattedNumberCellValue {
  type: "FormattedNumber";
  basicValue: number;
  numberFormat: string;
}

export type CustomFunctionCell = Cell | DoubleCellValue | FormattedNumberCellValue;

/** How a host can show a formatted number from a custom function. */
export type FormattedNumberSupport = "double" | "formatted-number" | "none";

/**
 * What the host supports, as a plain value: the functions ask Office once
 * (`Office.context.requirements.isSetSupported`) and pass the answer, so this folder never calls Office.
 */
export interface HostSupport {
  formattedNumbers: FormattedNumberSupport;
}

/** No data types: plain values only (also what a test or a script outside Excel wants). */
export const PLAIN_HOST: HostSupport = Object.freeze({ formattedNumbers: "none" });

/**
 * Reads the host's support from a requirement-set check, e.g.
 * `formattedNumberSupport((name, version) => Office.context.requirements.isSetSupported(name, version))`.
 */
export function formattedNumberSupport(
  isSetSupported: (name: string, version: string) => boolean,
): FormattedNumberSupport {
  if (isSetSupported("ExcelApi", "1.19")) return "double";
  if (isSetSupported("ExcelApi", "1.16")) return "formatted-number";
  return "none";
}

/** One cell as a custom function returns it: a number with a format becomes a data-type value when the host has them. */
export function toCellValue(c: FormattedCell, support: HostSupport): CustomFunctionCell {
  const { value, format } = c;
  // Text and booleans need no format; a number without one shows as Excel would show it anyway.
  if (typeof value !== "number" || format === undefined || format === GENERAL_FORMAT || !Number.isFinite(value))
    return value;
  switch (support.formattedNumbers) {
    case "double":
      return { type: "Double", basicValue: value, numberFormat: format };
    case "formatted-number":
      return { type: "FormattedNumber", basicValue: value, numberFormat: format };
    case "none":
      return value;
  }
}

export function toCellValues(
  grid: readonly (readonly FormattedCell[])[],
  support: HostSupport,
): CustomFunctionCell[][] {
  return grid.map((row) => row.map((c) => toCellValue(c, support)));
}

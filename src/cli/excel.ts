import type ExcelJS from "exceljs";

/*
 * exceljs, loaded when a workbook is first read or written: a dry run, or a run from a CSV into a CSV
 * or JSON file, never needs it, and it is the biggest module str-screen loads.
 */

export async function loadExcel(): Promise<typeof ExcelJS> {
  return (await import("exceljs")).default;
}

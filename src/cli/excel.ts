import type ExcelJS from "exceljs";

/*
 * exceljs, loaded when a workbook is first read or written: a dry run, or a run from a CSV into a CSV
 * or JSON file, never needs it, and it is the biggest module str-screen loads. A new workbook needs
 * only its streaming writer, loaded alone: the package's entry also loads its readers, CSV support
 * and a second zip library, and a run waits for that load between its dry run and its first send.
 */

export async function loadExcel(): Promise<typeof ExcelJS> {
  return (await import("exceljs")).default;
}

/** exceljs's streaming writer, the class its entry exports as stream.xlsx.WorkbookWriter (test/install/lean-start.test.ts). */
export async function loadWorkbookWriter(): Promise<typeof ExcelJS.stream.xlsx.WorkbookWriter> {
  return (await import("exceljs/lib/stream/xlsx/workbook-writer")).default;
}

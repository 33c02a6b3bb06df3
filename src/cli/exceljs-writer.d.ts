/** exceljs's streaming workbook writer on its own (excel.ts): the very class its entry exports as stream.xlsx.WorkbookWriter. */
declare module "exceljs/lib/stream/xlsx/workbook-writer" {
  import type ExcelJS from "exceljs";
  const WorkbookWriter: typeof ExcelJS.stream.xlsx.WorkbookWriter;
  export = WorkbookWriter;
}

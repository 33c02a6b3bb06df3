/**
 * The Office APIs the add-in's bundles use, each with the requirement set that brings it, as
 * Microsoft's reference pages list them. requirement-sets.test.ts fails when the bundles use an API
 * missing here or list one they no longer use, and checks each entry against the `[Api set: …]` note
 * of its declaration in @types/office-js, @types/office-runtime and @types/custom-functions-runtime.
 */

/** Where Microsoft lists each set's members and the Excel builds that support it. */
export const REQUIREMENT_SET_DOCS = {
  ExcelApi: "https://learn.microsoft.com/javascript/api/requirement-sets/excel/excel-api-requirement-sets",
  CustomFunctionsRuntime:
    "https://learn.microsoft.com/javascript/api/requirement-sets/excel/custom-functions-requirement-sets",
  SharedRuntime: "https://learn.microsoft.com/javascript/api/requirement-sets/common/shared-runtime-requirement-sets",
  OpenBrowserWindowApi:
    "https://learn.microsoft.com/javascript/api/requirement-sets/common/open-browser-window-api-requirement-sets",
  /** The common API without a set: present wherever an add-in loads at all. */
  Common: "https://learn.microsoft.com/javascript/api/requirement-sets/common/office-add-in-requirement-sets",
} as const;

export type RequirementSetName = keyof typeof REQUIREMENT_SET_DOCS;

export interface OfficeApi {
  set: RequirementSetName;
  /** Absent for the common API, which has no version. */
  version?: string;
  /**
   * For a value Excel hands the add-in (not a method): what an older host does instead, where the
   * property is simply missing. Reading it is then its own feature test; calling or writing is not.
   */
  whenAbsent?: string;
}

const excel = (version: string): OfficeApi => ({ set: "ExcelApi", version });
const customFunctions = (version: string): OfficeApi => ({ set: "CustomFunctionsRuntime", version });
const COMMON: OfficeApi = { set: "Common" };

export const OFFICE_APIS: Record<string, OfficeApi> = {
  // Common API (Office.js itself): every host that loads an add-in has it.
  "Office.onReady": COMMON,
  "Office.context": COMMON,
  "Office.Context.requirements": COMMON,
  "Office.RequirementSetSupport.isSetSupported": COMMON,
  "Office.Context.ui": COMMON,
  // Links in the pane open in the system's browser (taskpane/ui/links.ts), after isSetSupported; else window.open.
  "Office.UI.openBrowserWindow": { set: "OpenBrowserWindowApi", version: "1.1" },
  // The pane follows Office's theme (taskpane/ui/theme.ts): Excel on Windows, Mac and the web have
  // it without a set; where it is missing the browser's prefers-color-scheme decides.
  "Office.Context.officeTheme": COMMON,
  "Office.OfficeTheme.isDarkTheme": COMMON,
  "Office.OfficeTheme.bodyBackgroundColor": COMMON,
  "Office.OfficeTheme.bodyForegroundColor": COMMON,

  // Shared runtime: settings live in OfficeRuntime.storage, which the functions and the pane share.
  "OfficeRuntime.storage": { set: "SharedRuntime", version: "1.1" },

  // Custom functions.
  "CustomFunctions.CancelableInvocation.onCanceled": customFunctions("1.1"),
  "CustomFunctions.Error": customFunctions("1.2"),
  "CustomFunctions.ErrorCode": customFunctions("1.2"),
  "CustomFunctions.ErrorCode.invalidValue": customFunctions("1.3"),
  "CustomFunctions.ErrorCode.notAvailable": customFunctions("1.3"),
  "CustomFunctions.Invocation.isInValuePreview": {
    ...customFunctions("1.5"),
    whenAbsent: "no formula value preview: the function always runs, as it did before 1.5",
  },

  // Excel's batch model (Excel.run, load, sync) is ExcelApi 1.1; isNullObject answers the
  // *OrNullObject methods, which came with ExcelApi 1.4.
  "Excel.run": excel("1.1"),
  "Excel.RequestContext.workbook": excel("1.1"),
  // The workbook's decimal mark (taskpane/excel/number-style.ts), checked with isSetSupported first.
  "Excel.RequestContext.application": excel("1.1"),
  "Excel.Application.cultureInfo": excel("1.11"),
  "Excel.CultureInfo.numberFormat": excel("1.11"),
  "Excel.NumberFormatInfo.load": excel("1.11"),
  "Excel.NumberFormatInfo.numberDecimalSeparator": excel("1.11"),
  "OfficeExtension.ClientRequestContext.sync": excel("1.1"),
  "OfficeExtension.ClientObject.isNullObject": excel("1.4"),
  "Excel.Range.load": excel("1.1"),
  "Excel.Table.load": excel("1.1"),
  "Excel.TableScopedCollection.load": excel("1.9"),
  "Excel.TableScopedCollection.items": excel("1.9"),
  "Excel.Worksheet.load": excel("1.1"),
  "Excel.WorksheetCollection.load": excel("1.1"),
  "Excel.WorksheetCollection.items": excel("1.1"),

  // Workbook and worksheets.
  "Excel.Workbook.getSelectedRange": excel("1.1"),
  "Excel.Workbook.worksheets": excel("1.1"),
  "Excel.WorksheetCollection.add": excel("1.1"),
  "Excel.WorksheetCollection.getActiveWorksheet": excel("1.1"),
  "Excel.WorksheetCollection.getItem": excel("1.1"),
  "Excel.Worksheet.activate": excel("1.1"),
  "Excel.Worksheet.charts": excel("1.1"),
  "Excel.Worksheet.getRangeByIndexes": excel("1.7"),
  "Excel.Worksheet.getUsedRangeOrNullObject": excel("1.4"),
  "Excel.Worksheet.id": excel("1.1"),
  "Excel.Worksheet.name": excel("1.1"),
  "Excel.Worksheet.tables": excel("1.1"),

  // Ranges.
  "Excel.Range.address": excel("1.1"),
  "Excel.Range.calculate": excel("1.6"),
  "Excel.Range.columnCount": excel("1.1"),
  "Excel.Range.columnIndex": excel("1.1"),
  "Excel.Range.format": excel("1.1"),
  "Excel.Range.formulas": excel("1.1"),
  "Excel.Range.getCell": excel("1.1"),
  "Excel.Range.getSurroundingRegion": excel("1.7"),
  "Excel.Range.getTables": excel("1.9"),
  "Excel.Range.numberFormat": excel("1.1"),
  "Excel.Range.rowCount": excel("1.1"),
  "Excel.Range.rowIndex": excel("1.1"),
  "Excel.Range.select": excel("1.1"),
  "Excel.Range.values": excel("1.1"),
  "Excel.Range.worksheet": excel("1.1"),
  "Excel.RangeFormat.autofitColumns": excel("1.2"),
  "Excel.RangeFormat.font": excel("1.1"),
  "Excel.RangeFont.bold": excel("1.1"),

  // Tables and the comparables chart.
  "Excel.TableCollection.add": excel("1.1"),
  "Excel.Table.getRange": excel("1.1"),
  "Excel.Table.name": excel("1.1"),
  "Excel.Table.showBandedRows": excel("1.3"),
  "Excel.Table.showTotals": excel("1.1"),
  "Excel.ChartCollection.add": excel("1.1"),
  "Excel.Chart.legend": excel("1.1"),
  "Excel.Chart.setPosition": excel("1.1"),
  "Excel.Chart.title": excel("1.1"),
  "Excel.ChartLegend.visible": excel("1.1"),
  "Excel.ChartTitle.text": excel("1.1"),
};

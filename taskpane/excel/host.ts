import { columnName } from "../../src/sheet";

/**
 * The one door from the task pane to the workbook. Everything the pane does in Excel goes through an
 * `ExcelRun`: `Excel.run` in Office, a stand-in with the same shape in the tests and the benchmark
 * (test/support/fake-excel.ts, which behaves as office.js does), so each workbook interaction can be checked
 * and its `context.sync()` calls counted without Excel.
 */
export type ExcelRun = <T>(batch: (context: Excel.RequestContext) => Promise<T>) => Promise<T>;

/** Office's own runner, looked up when called: office.js defines `Excel` once it has loaded. */
export const officeExcelRun: ExcelRun = (batch) => Excel.run(batch);

/** "Sheet1!B2:D9" from 0-based indexes, for messages (quotes a sheet name that needs them). */
export function a1Address(sheetName: string, row: number, column: number, rows = 1, columns = 1): string {
  const sheet = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheetName) ? sheetName : `'${sheetName.replace(/'/g, "''")}'`;
  const first = `${columnName(column)}${row + 1}`;
  const last = `${columnName(column + columns - 1)}${row + rows}`;
  return `${sheet}!${first === last ? first : `${first}:${last}`}`;
}

/**
 * One user command as one step on Excel's undo stack. `run` gives every batch the context of a
 * single Excel.run held open until `close`, so all their syncs belong to that run; opened with
 * `mergeUndoGroup` (ExcelApi 1.20), Excel merges them into one undo group: Ctrl+Z takes back a whole
 * screening, not one chunk of 200 rows. See Microsoft's "Undo capabilities in Excel add-ins"
 * (learn.microsoft.com/office/dev/add-ins/excel/excel-add-ins-undo-capabilities) and RunOptions.
 */
export interface UndoGroup {
  run: ExcelRun;
  /** Ends the held run; resolves once Excel has finished it. */
  close(): Promise<void>;
}

/** How a group is opened: Excel.run with these options, or a stand-in in tests. */
export type RunWithOptions = (
  options: { mergeUndoGroup: boolean },
  batch: (context: Excel.RequestContext) => Promise<void>,
) => Promise<void>;

export function holdUndoGroup(runWith: RunWithOptions): UndoGroup {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held: Promise<void> = Promise.resolve();
  const context = new Promise<Excel.RequestContext>((resolve, reject) => {
    held = runWith({ mergeUndoGroup: true }, async (ctx) => {
      resolve(ctx);
      await released;
    });
    // A host that refuses the group (UndoNotSupported) fails every batch with its error.
    held.catch(reject);
  });
  // Handled by whoever awaits a batch or close(); not an unhandled rejection meanwhile.
  context.catch(() => undefined);
  return {
    run: async (batch) => batch(await context),
    close: async () => {
      release();
      await held;
    },
  };
}

/** Each sync its own undo step: hosts before ExcelApi 1.20. */
export function ungrouped(run: ExcelRun): UndoGroup {
  return { run, close: async () => undefined };
}

/** True where Office says the host has ExcelApi 1.20 (mergeUndoGroup); false outside Office. */
export function canMergeUndo(): boolean {
  const office = (
    globalThis as {
      Office?: { context?: { requirements?: { isSetSupported?: (set: string, version: string) => boolean } } };
    }
  ).Office;
  return office?.context?.requirements?.isSetSupported?.("ExcelApi", "1.20") === true;
}

/** Office's undo group where the host has one; otherwise plain Excel.run, one undo step per sync. */
export function officeUndoGroup(): UndoGroup {
  return canMergeUndo() ? holdUndoGroup((options, batch) => Excel.run(options, batch)) : ungrouped(officeExcelRun);
}

import { CellRow } from "../../src/sheet";
import { ExcelRun } from "../../taskpane/excel/host";
import { ChunkedWriter } from "../../taskpane/excel/writer";
import { installFakeExcel } from "../support/fake-excel";

/**
 * The result block's columns are fitted to their values, not to the header alone: Excel fits a
 * column to the cells of the range it is asked about (Range.AutoFit,
 * learn.microsoft.com/office/vba/api/excel.range.autofit), so a date under a short header showed
 * "#######". The fake Excel records every range fitted.
 */
function recordingRun(): { run: ExcelRun; fits: () => number[][]; syncs: () => number } {
  const excel = installFakeExcel({ sheets: [{ name: "Sheet1", id: "s", rows: [] }] });
  return {
    run: excel.run,
    fits: () => excel.ranges.filter((r) => r.autofit).map((r) => [r.row, r.column, r.rows, r.columns]),
    syncs: () => excel.syncs,
  };
}

const header: CellRow = [
  { value: "STR status" },
  { value: "STR fetched" },
  { value: "Revenue" },
  { value: "Warnings" },
];
const answered = (): CellRow => [
  { value: "Created" },
  { value: 45000, format: "yyyy-mm-dd hh:mm" },
  { value: 1 },
  { value: "" },
];
const failed = (): CellRow => [
  { value: "Failed" },
  { value: "" },
  { value: "" },
  { value: "✖ [STR_VALIDATION] a long message" },
];

test("the header, then the header and the first rows with figures, the Warnings column left out; once", async () => {
  const { run, fits, syncs } = recordingRun();
  const writer = new ChunkedWriter({ run, sheetId: "s", left: 6, width: 4, chunkRows: 2, maxDelayMs: 60_000 });
  writer.header(0, header);
  writer.put(1, failed());
  writer.put(2, []);
  writer.put(3, answered());
  writer.put(4, answered());
  writer.put(5, answered());
  writer.put(6, answered());
  await writer.close();
  // Header alone (with the first chunk), then rows 0–4 once the chunk with row 3's figures is written.
  expect(fits()).toEqual([
    [0, 6, 1, 4],
    [0, 6, 5, 3],
  ]);
  expect(syncs()).toBe(3);
});

test("a run whose rows all failed fits the header only", async () => {
  const { run, fits } = recordingRun();
  const writer = new ChunkedWriter({ run, sheetId: "s", left: 0, width: 4, maxDelayMs: 60_000 });
  writer.header(0, header);
  writer.put(1, failed());
  await writer.close();
  expect(fits()).toEqual([[0, 0, 1, 4]]);
});

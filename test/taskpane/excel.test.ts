import { analysisOf, defaultScreeningFields, resultBlockHeader, resultBlockWidth, warningTexts } from "../../src/sheet";
import { insertComparablesSheet, uniqueSheetName } from "../../taskpane/excel/comparables-sheet";
import { READ_CHUNK_ROWS, readSelectedTable } from "../../taskpane/excel/read-table";
import { findAnalysisId } from "../../taskpane/excel/selected";
import { ChunkedWriter, excelCell } from "../../taskpane/excel/writer";
import { PaneError } from "../../taskpane/pane-error";
import { buyAnswer } from "../sheet/fixtures";
import { installFakeExcel } from "../support/fake-excel";

/** Workbook interactions of the task pane, on the fake Excel: what is read, what is written, and how many syncs it takes. */

const HEADER = ["Property Address", "List Price ($)", "Beds", "Baths", "Sleeps"];
const row = (i: number) => [`${i} Main St, Austin TX`, 400000 + i, 3, 2, 6];
const portfolio = (rows: number, at = { row: 0, column: 0 }) => {
  const grid: unknown[][] = [];
  grid[at.row] = [...Array(at.column).fill(""), ...HEADER];
  for (let i = 1; i <= rows; i++) grid[at.row + i] = [...Array(at.column).fill(""), ...row(i)];
  return grid;
};

describe("reading the selected table with its header row", () => {
  test("one cell of a plain range: the region around it, header first, in three syncs", async () => {
    const grid = portfolio(4, { row: 2, column: 1 });
    grid[0] = ["A title above the table"];
    const wb = installFakeExcel({
      sheets: [{ name: "Deals", id: "{d}", rows: grid }],
      selection: { row: 4, column: 2 },
    });
    const table = await readSelectedTable(wb.run);
    expect(table).toMatchObject({
      sheetId: "{d}",
      sheetName: "Deals",
      headerRow: 2,
      left: 1,
      address: "Deals!B3:F7",
      tableName: undefined,
      block: undefined,
    });
    expect(table.headers).toEqual(HEADER);
    expect(table.rows.map((r) => r.sheetRow)).toEqual([3, 4, 5, 6]);
    expect(table.rows[0]?.cells).toEqual(row(1));
    expect(wb.syncs).toBe(3);
  });

  test("a cell in an Excel table: the table's range, its totals row left out", async () => {
    const grid = portfolio(3);
    grid[4] = ["Total", 1200000, "", "", ""];
    grid[5] = ["stray cell below, outside the table"];
    const wb = installFakeExcel({
      sheets: [{ name: "Sheet1", rows: grid }],
      selection: { row: 2, column: 1 },
      tables: [{ name: "Deals", row: 0, column: 0, rows: 5, columns: 5, showTotals: true }],
    });
    const table = await readSelectedTable(wb.run);
    expect(table.tableName).toBe("Deals");
    expect(table.rows.map((r) => r.cells[0])).toEqual([
      "1 Main St, Austin TX",
      "2 Main St, Austin TX",
      "3 Main St, Austin TX",
    ]);
  });

  test("whole columns selected: cut to the used range, trailing blank rows dropped", async () => {
    const wb = installFakeExcel({
      sheets: [{ name: "Sheet1", rows: portfolio(2) }],
      selection: { row: 0, column: 0, rows: 1_048_576, columns: 5 },
    });
    const table = await readSelectedTable(wb.run);
    expect(table.address).toBe("Sheet1!A1:E3");
    expect(table.rows).toHaveLength(2);
  });

  test("an earlier result block beside the table is found, with its fields", async () => {
    const grid = portfolio(2);
    const fields = defaultScreeningFields("buy");
    grid[0] = [...HEADER, ...resultBlockHeader(fields, true).map((c) => c.value)];
    const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: grid }], selection: { row: 1, column: 0 } });
    const table = await readSelectedTable(wb.run);
    expect(table.block).toEqual({ start: HEADER.length, width: resultBlockWidth(fields), fields });
  });

  test("a header with nothing under it is refused, saying what to select", async () => {
    const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: [HEADER] }], selection: { row: 0, column: 0 } });
    await expect(readSelectedTable(wb.run)).rejects.toThrow(PaneError);
    await expect(readSelectedTable(wb.run)).rejects.toThrow(/header row and nothing under it/);
  });

  test(`a table of more than ${READ_CHUNK_ROWS} rows is read ${READ_CHUNK_ROWS} rows a sync`, async () => {
    const wb = installFakeExcel({
      sheets: [{ name: "Sheet1", rows: portfolio(READ_CHUNK_ROWS + 1000) }],
      selection: { row: 0, column: 0 },
    });
    const table = await readSelectedTable(wb.run);
    expect(table.rows).toHaveLength(READ_CHUNK_ROWS + 1000);
    expect(table.rows.at(-1)?.cells[1]).toBe(400000 + READ_CHUNK_ROWS + 1000);
    expect(wb.syncs).toBe(2 + 2);
  });
});

describe("writing result rows in chunks", () => {
  const fields = defaultScreeningFields("buy");
  const width = resultBlockWidth(fields);
  const cells = (i: number) => [
    { value: `Created` },
    { value: 45000 + i, format: "yyyy-mm-dd hh:mm" },
    ...fields.map((_, k) => ({ value: i * 10 + k, format: "$#,##0" })),
    { value: "" },
  ];

  test("450 rows: three syncs of at most 200 rows, each range given its number formats with its values", async () => {
    const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: portfolio(450) }] });
    const writer = new ChunkedWriter({ run: wb.run, sheetId: "{Sheet1}", left: 5, width, maxDelayMs: 60_000 });
    writer.header(0, resultBlockHeader(fields, true));
    for (let i = 1; i <= 450; i++) writer.put(i, cells(i));
    await writer.close();

    expect(wb.syncs).toBeLessThanOrEqual(Math.ceil(450 / 200) + 1);
    expect(writer.syncs).toBe(wb.syncs);
    expect(writer.rowsWritten).toBe(450);
    const data = wb.ranges.filter((r) => r.row > 0);
    expect(data.map((r) => r.rows)).toEqual([200, 200, 50]);
    expect(data.map((r) => r.before)).toEqual([0, 1, 2]);
    for (const r of data) {
      expect(r.column).toBe(5);
      expect(r.columns).toBe(width);
      expect(r.values).toHaveLength(r.rows);
      expect(r.numberFormat).toHaveLength(r.rows);
      expect(r.numberFormat?.[0]).toEqual(["General", "yyyy-mm-dd hh:mm", ...fields.map(() => "$#,##0"), "General"]);
    }
    expect(data[0]?.values?.[0]?.[2]).toBe(10);
    // The header goes with the first chunk, bold and its columns fitted.
    const header = wb.ranges.find((r) => r.row === 0);
    expect(header?.before).toBe(0);
    expect(header?.values?.[0]?.[0]).toBe("STR status");
    expect(header?.bold).toBe(true);
  });

  test("rows arriving out of order: one sync, consecutive rows written as one range", async () => {
    const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: portfolio(10) }] });
    const writer = new ChunkedWriter({ run: wb.run, sheetId: "{Sheet1}", left: 5, width, maxDelayMs: 60_000 });
    for (const i of [5, 1, 3, 2, 9, 4, 10]) writer.put(i, cells(i));
    await writer.close();
    expect(wb.syncs).toBe(1);
    expect(wb.ranges.map((r) => [r.row, r.rows])).toEqual([
      [1, 5],
      [9, 2],
    ]);
    expect(wb.ranges[0]?.values?.map((v: unknown[]) => v[2])).toEqual([10, 20, 30, 40, 50]);
  });

  test("a slow trickle still reaches the sheet: what waited maxDelayMs is written", async () => {
    jest.useFakeTimers();
    try {
      const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: portfolio(3) }] });
      const writer = new ChunkedWriter({ run: wb.run, sheetId: "{Sheet1}", left: 5, width, maxDelayMs: 20 });
      writer.put(1, cells(1));
      await jest.advanceTimersByTimeAsync(19);
      expect(wb.syncs).toBe(0);
      await jest.advanceTimersByTimeAsync(1);
      expect(wb.syncs).toBe(1);
      writer.put(2, cells(2));
      await writer.close();
      expect(wb.syncs).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  test("rows streaming in as chunks are written: full chunks, never a sync every few rows", async () => {
    // Rows every 2 ms, each write a 10 ms round trip: a chunk of 20 fills in ~40 ms, well within maxDelayMs.
    // The timer set by the first row must not fire mid-stream and then keep writing what trickles in.
    // On a clock the test moves (fake timers), so a loaded machine cannot stretch 2 ms into 100.
    jest.useFakeTimers();
    try {
      const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: portfolio(200) }] });
      const slow: typeof wb.run = async (batch) => {
        const result = await wb.run(batch);
        await new Promise((r) => setTimeout(r, 10));
        return result;
      };
      const writer = new ChunkedWriter({
        run: slow,
        sheetId: "{Sheet1}",
        left: 5,
        width,
        chunkRows: 20,
        maxDelayMs: 100,
      });
      for (let i = 1; i <= 200; i++) {
        writer.put(i, cells(i));
        await jest.advanceTimersByTimeAsync(2);
      }
      const closing = writer.close();
      await jest.advanceTimersByTimeAsync(1000);
      await closing;
      const sizes = wb.ranges.map((r) => r.rows);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(200);
      expect(wb.syncs).toBeLessThanOrEqual(200 / 20 + 1);
      expect(sizes.slice(0, -1).every((n) => n === 20)).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  test("a narrower row blanks the rest of a wider, earlier block", async () => {
    const wb = installFakeExcel({ sheets: [{ name: "Sheet1", rows: portfolio(1) }] });
    const writer = new ChunkedWriter({
      run: wb.run,
      sheetId: "{Sheet1}",
      left: 5,
      width: width + 2,
      maxDelayMs: 60_000,
    });
    writer.put(1, []);
    await writer.close();
    expect(wb.ranges[0]?.values?.[0]).toEqual(Array(width + 2).fill(""));
  });

  test("a write Excel refuses stops the writer: reported once, nothing more sent to Excel", async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      throw Object.assign(new Error("The sheet is protected."), { name: "RichApi.Error", code: "AccessDenied" });
    };
    const errors: unknown[] = [];
    const writer = new ChunkedWriter({
      run: failing,
      sheetId: "x",
      left: 0,
      width: 3,
      chunkRows: 2,
      maxDelayMs: 60_000,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 6; i++) writer.put(i, []);
    await expect(writer.close()).rejects.toThrow("The sheet is protected.");
    expect(errors).toHaveLength(1);
    expect(calls).toBe(1);
  });

  test("cells: a text that would become a formula stays text; a report link becomes a clickable HYPERLINK", () => {
    expect(excelCell({ value: "=cmd|' /C calc'!A0", format: "@" }, false)).toEqual({
      value: "'=cmd|' /C calc'!A0",
      format: "@",
    });
    expect(excelCell({ value: "-5 Main St" }, false).value).toBe("'-5 Main St");
    expect(excelCell({ value: 'https://reports.example/a"b', format: "@" }, true)).toEqual({
      value: '=HYPERLINK("https://reports.example/a""b")',
      format: "General",
    });
    expect(excelCell({ value: `https://reports.example/${"x".repeat(300)}`, format: "@" }, true).value).toMatch(
      /^https:/,
    );
    expect(excelCell({ value: 0.725, format: "0.0%" }, false)).toEqual({ value: 0.725, format: "0.0%" });
  });
});

describe("comparables: the analysis in the selected cell, and Insert as table", () => {
  const id = "64f1a2b3c4d5e6f7a8b9c0d1";

  test("found in the cell itself, a report link, a screened row, or an STR card", () => {
    expect(findAnalysisId([], 0, 0, id)).toBe(id);
    expect(findAnalysisId([], 0, 0, `https://relay.example/sandbox/reports/${id}`)).toBe(id);
    expect(findAnalysisId([], 0, 0, "Cached")).toBeUndefined();
    const fields = defaultScreeningFields("buy");
    const header = ["Address", ...resultBlockHeader(fields, false).map((c) => c.value)];
    const idColumn = header.indexOf("Analysis id");
    const screened = [header, ["1 Main St", "Created", 45000, ...fields.map(() => 1), ""]];
    (screened[1] as unknown[])[idColumn] = id;
    expect(findAnalysisId(screened, 1, 0, "1 Main St")).toBe(id);
    const card = [
      ["Mode", "Sandbox"],
      ["Warnings", "None"],
      ["Annual revenue, median", 60000],
      ["Analysis id", id],
    ];
    expect(findAnalysisId(card, 2, 1, 60000)).toBe(id);
    expect(findAnalysisId(card, 0, 0, "Mode")).toBe(id);
  });

  test("insert: a new sheet named after the analysis, the comparables as an Excel table with formats and links, a percentile chart; two syncs", async () => {
    const wb = installFakeExcel({
      sheets: [
        { name: "Sheet1", rows: [["x"]] },
        { name: "Comps an_buy_1", rows: [] },
      ],
    });
    const analysis = analysisOf(buyAnswer);
    if (!analysis) throw new Error("fixture has no analysis");
    const result = await insertComparablesSheet(wb.run, analysis, warningTexts(buyAnswer));
    expect(result).toMatchObject({ sheetName: "Comps an_buy_1 (2)", rows: 3 });
    expect(wb.syncs).toBe(2);
    const sheet = "Comps an_buy_1 (2)";
    expect(wb.sheetNames()).toEqual(["Sheet1", "Comps an_buy_1", sheet]);
    const table = wb.ranges.find((r) => r.sheet === sheet && r.column === 0);
    expect(table?.rows).toBe(4);
    expect(table?.values?.[0]?.[0]).toBe("Listing");
    expect(table?.values?.[1]?.[0]).toBe("Listing 1");
    expect(table?.values?.[1]?.[8]).toBe('=HYPERLINK("https://listings.example/1")');
    expect(table?.numberFormat?.[1]?.[4]).toBe("$#,##0");
    // The answer's warnings in each row's last cell: a sandbox comparable says it is simulated.
    expect(table?.values?.[0]?.at(-1)).toBe("Warnings");
    expect(table?.values?.[1]?.at(-1)).toMatch(/^⚠ SANDBOX: simulated data \| /);
    const percentiles = wb.ranges.find((r) => r.sheet === sheet && r.column > 0);
    expect(percentiles?.values?.map((v: unknown[]) => v[1])).toEqual(["Annual revenue", 48000, 60000, 72000, 85000]);
    // The Excel table over the comparables' range, with its header row.
    expect(wb.tables).toEqual([{ sheet, row: 0, column: 0, rows: 4, columns: table?.columns, hasHeaders: true }]);
    expect(wb.charts.map((c) => [c.sheet, c.type, c.title])).toEqual([
      [sheet, "ColumnClustered", "Annual revenue by percentile — 12 Main St, Austin TX"],
    ]);
  });

  test("sheet names: Excel's 31 characters, no []:*?/\\, unique ignoring case", () => {
    expect(uniqueSheetName("Comps a/b:c", [])).toBe("Comps a b c");
    expect(uniqueSheetName("Comps x", ["comps X"])).toBe("Comps x (2)");
    expect(uniqueSheetName("C".repeat(40), []).length).toBe(31);
  });
});

import { OfficeMockObject } from "office-addin-mock";

// office-addin-mock reads office-addin-manifest's OfficeApp (to special-case Outlook); jest.config.js
// maps that package to an empty stub (its real dependencies are ESM-only), so its one enum is given here.
jest.mock("office-addin-manifest", () => ({
  OfficeApp: {
    Excel: "excel",
    Outlook: "outlook",
    Word: "word",
    PowerPoint: "powerpoint",
    OneNote: "onenote",
    Project: "project",
  },
}));
import { ExcelRun } from "../../taskpane/excel/host";

/**
 * Workbooks built from office-addin-mock's OfficeMockObject: properties must be loaded and synced
 * before they are read (reading one too early gives the mock's error text, as Excel would throw),
 * and every context.sync() is counted. Objects that Excel's API hands out from a method call
 * (getRangeByIndexes, getSurroundingRegion…) are mocks made on the call and synced with the context.
 */
export interface MockSheet {
  name: string;
  id?: string;
  /** Cells from A1; "=…" strings are formulas (their value reads as 0). */
  grid: unknown[][];
}

export interface MockWorkbook {
  run: ExcelRun;
  syncs(): number;
  /** Every range handed out by getRangeByIndexes, with the number of syncs made before it was. */
  ranges: { sheet: string; row: number; column: number; rows: number; columns: number; before: number; mock: any }[];
  added: {
    name: string;
    sheet: any;
    tables: { range: any; hasHeaders: boolean }[];
    charts: { type: string; title: { text: string } }[];
  }[];
  calculated: string[];
  selectionSheet: string;
}

export function mockWorkbook(options: {
  sheets: MockSheet[];
  selection?: { sheet?: string; row: number; column: number; rows?: number; columns?: number };
  activeSheet?: string;
  tableAtSelection?: { row: number; column: number; rows: number; columns: number; name: string; showTotals?: boolean };
  /** Called when a recalculation reaches Excel (at the sync after range.calculate()), as Excel would then call the functions. */
  onCalculate?: (address: string) => void;
}): MockWorkbook {
  let syncs = 0;
  const tracked: OfficeMockObject[] = [];
  const track = <T extends OfficeMockObject>(m: T): T => {
    tracked.push(m);
    return m;
  };
  const ranges: MockWorkbook["ranges"] = [];
  const added: MockWorkbook["added"] = [];
  const calculated: string[] = [];
  const pendingCalculations: string[] = [];

  const cell = (sheet: MockSheet, r: number, c: number) => sheet.grid[r]?.[c] ?? "";
  const isFormula = (v: unknown) => typeof v === "string" && v.startsWith("=");
  const used = (sheet: MockSheet) => {
    let r1 = -1;
    let c1 = -1;
    let r0 = Infinity;
    let c0 = Infinity;
    sheet.grid.forEach((row, r) =>
      row.forEach((v, c) => {
        if (v === "" || v === null || v === undefined) return;
        r0 = Math.min(r0, r);
        c0 = Math.min(c0, c);
        r1 = Math.max(r1, r);
        c1 = Math.max(c1, c);
      }),
    );
    return r1 < 0 ? undefined : { row: r0, column: c0, rows: r1 - r0 + 1, columns: c1 - c0 + 1 };
  };

  const rangeMock = (
    sheet: MockSheet,
    b: { row: number; column: number; rows: number; columns: number },
    extra: Record<string, unknown> = {},
  ) => {
    // A whole-column selection is a million rows: its cells are never read, so none are made.
    const grid = (read: (v: unknown) => unknown) =>
      b.rows * b.columns > 1_000_000
        ? []
        : Array.from({ length: b.rows }, (_, r) =>
            Array.from({ length: b.columns }, (_, c) => read(cell(sheet, b.row + r, b.column + c))),
          );
    const m = track(
      new OfficeMockObject({
        rowIndex: b.row,
        columnIndex: b.column,
        rowCount: b.rows,
        columnCount: b.columns,
        address: `${sheet.name}!R${b.row + 1}C${b.column + 1}`,
        values: grid((v) => (isFormula(v) ? 0 : v)),
        formulas: grid((v) => v),
        format: { font: { bold: false }, autofitColumns: () => undefined },
        calculate: () => {
          const address = `${sheet.name}!${b.row},${b.column},${b.rows},${b.columns}`;
          pendingCalculations.push(address);
        },
        ...extra,
      }) as any,
    );
    // Not a loadable property in Excel either: it is known after any sync.
    m.isNullObject = false;
    return m;
  };

  const sheetMocks = new Map<string, any>();
  const sheetMock = (sheet: MockSheet): any => {
    const known = sheetMocks.get(sheet.name);
    if (known) return known;
    const m = track(
      new OfficeMockObject({
        id: sheet.id ?? `{${sheet.name}}`,
        name: sheet.name,
        getRangeByIndexes: (row: number, column: number, rows: number, columns: number) => {
          const r = rangeMock(sheet, { row, column, rows, columns });
          ranges.push({ sheet: sheet.name, row, column, rows, columns, before: syncs, mock: r });
          return r;
        },
        getUsedRangeOrNullObject: () => {
          const b = used(sheet);
          const r = rangeMock(sheet, b ?? { row: 0, column: 0, rows: 1, columns: 1 });
          r.isNullObject = b === undefined;
          return r;
        },
      }) as any,
    );
    sheetMocks.set(sheet.name, m);
    return m;
  };

  const byName = (name: string | undefined) =>
    options.sheets.find((s) => s.name === name) ?? (options.sheets[0] as MockSheet);
  const selected = options.selection ?? { row: 0, column: 0 };
  const selectionSheet = byName(selected.sheet);
  const table = options.tableAtSelection;

  const selectionMock = () => {
    const b = { row: selected.row, column: selected.column, rows: selected.rows ?? 1, columns: selected.columns ?? 1 };
    const r = rangeMock(selectionSheet, b, {
      getTables: () =>
        track(
          new OfficeMockObject({
            items: table
              ? [
                  track(
                    new OfficeMockObject({
                      name: table.name,
                      showTotals: table.showTotals ?? false,
                      getRange: () => rangeMock(selectionSheet, table),
                    }) as any,
                  ),
                ]
              : [],
          }),
        ),
      getSurroundingRegion: () => rangeMock(selectionSheet, surrounding(selectionSheet, b)),
      getCell: (row: number, column: number) =>
        rangeMock(selectionSheet, { row: b.row + row, column: b.column + column, rows: 1, columns: 1 }),
    });
    // A navigation property: the same worksheet object every time, as Office keeps it.
    r.worksheet = sheetMock(selectionSheet);
    return r;
  };

  const context: any = new OfficeMockObject({
    workbook: {
      getSelectedRange: () => selectionMock(),
      worksheets: {
        items: options.sheets.map(sheetMock),
        getItem: (key: string) =>
          sheetMock(options.sheets.find((s) => s.name === key || (s.id ?? `{${s.name}}`) === key) as MockSheet),
        getActiveWorksheet: () => sheetMock(byName(options.activeSheet)),
        add: (name: string) => {
          const sheet: MockSheet = { name, grid: [] };
          const made: MockWorkbook["added"][number] = { name, sheet: undefined, tables: [], charts: [] };
          const m = track(
            new OfficeMockObject({
              name,
              getRangeByIndexes: (row: number, column: number, rows: number, columns: number) => {
                const r = rangeMock(sheet, { row, column, rows, columns });
                ranges.push({ sheet: name, row, column, rows, columns, before: syncs, mock: r });
                return r;
              },
              tables: {
                add: (range: any, hasHeaders: boolean) => {
                  made.tables.push({ range, hasHeaders });
                  return { showBandedRows: false };
                },
              },
              charts: {
                add: (type: string) => {
                  const chart = { type, title: { text: "" }, legend: { visible: true }, setPosition: () => undefined };
                  made.charts.push(chart);
                  return chart;
                },
              },
              activate: () => undefined,
            }) as any,
          );
          made.sheet = m;
          added.push(made);
          return m;
        },
      },
    },
  });
  // Loading a collection's items loads each item's scalar properties, as in Excel.
  const worksheets = context.workbook.worksheets;
  const loadCollection = worksheets.load.bind(worksheets);
  worksheets.load = (properties: unknown) => {
    loadCollection(properties);
    for (const sheet of options.sheets) sheetMock(sheet).load("id,name");
    return worksheets;
  };
  const rootSync = context.sync.bind(context);
  context.sync = async () => {
    syncs++;
    await rootSync();
    for (const m of tracked) await m.sync();
    for (const address of pendingCalculations.splice(0)) {
      calculated.push(address);
      options.onCalculate?.(address);
    }
  };
  return {
    run: (batch) => batch(context),
    syncs: () => syncs,
    ranges,
    added,
    calculated,
    selectionSheet: selectionSheet.name,
  };
}

/** Excel's surrounding region: grown while a neighbouring row or column holds something. */
function surrounding(sheet: MockSheet, start: { row: number; column: number }) {
  const blank = (r: number, c: number) => {
    const v = sheet.grid[r]?.[c];
    return v === "" || v === null || v === undefined;
  };
  let b = { row: start.row, column: start.column, rows: 1, columns: 1 };
  for (let grown = true; grown;) {
    grown = false;
    const rowHas = (r: number) =>
      r >= 0 && Array.from({ length: b.columns + 2 }, (_, i) => b.column - 1 + i).some((c) => c >= 0 && !blank(r, c));
    const colHas = (c: number) =>
      c >= 0 && Array.from({ length: b.rows + 2 }, (_, i) => b.row - 1 + i).some((r) => r >= 0 && !blank(r, c));
    if (rowHas(b.row - 1)) b = { ...b, row: b.row - 1, rows: b.rows + 1 };
    else if (rowHas(b.row + b.rows)) b = { ...b, rows: b.rows + 1 };
    else if (colHas(b.column - 1)) b = { ...b, column: b.column - 1, columns: b.columns + 1 };
    else if (colHas(b.column + b.columns)) b = { ...b, columns: b.columns + 1 };
    else continue;
    grown = true;
  }
  return b;
}

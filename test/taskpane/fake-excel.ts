/**
 * A recording stand-in for Excel's object model, as much of it as the task pane uses: a workbook of
 * sheets of cells, proxies whose loads and writes are queued and applied at `context.sync()` (as
 * Excel's are), and a log of every sync and every write. The browser test injects it into the page
 * before the bundles run (so `Excel.run` is this); the benchmark runs it in Node to count syncs.
 *
 * `installFakeExcel` is self-contained — no imports, no outer names — because Playwright sends its
 * source text to the page (addInitScript). Keep it that way.
 */
export interface FakeSeed {
  sheets: { name: string; rows: unknown[][] }[];
  /** Selected range on the first sheet, 0-based. @default A1 */
  selection?: { sheet?: string; row: number; column: number; rows?: number; columns?: number };
  /** Milliseconds each sync takes (a round trip to Excel). @default 0 */
  syncLatencyMs?: number;
}

export interface FakeWrite {
  sync: number;
  sheet: string;
  kind: "values" | "numberFormat";
  row: number;
  column: number;
  rows: number;
  columns: number;
}

export interface FakeExcel {
  syncs: number;
  runs: number;
  writes: FakeWrite[];
  calculated: string[];
  charts: { sheet: string; type: string; title: string }[];
  tables: { sheet: string; row: number; column: number; rows: number; columns: number }[];
  select(sheet: string, row: number, column: number, rows?: number, columns?: number): void;
  /** A sheet's values as a grid from A1 ("" for empty cells). */
  values(sheet: string): unknown[][];
  formats(sheet: string): string[][];
  formula(sheet: string, row: number, column: number): string | undefined;
  sheetNames(): string[];
  run<T>(batch: (context: any) => Promise<T>): Promise<T>;
}

export function installFakeExcel(seed: FakeSeed): FakeExcel {
  type Cell = { value: unknown; format?: string; formula?: string };
  type Bounds = { row: number; column: number; rows: number; columns: number };
  const latency = seed.syncLatencyMs ?? 0;

  class SheetData {
    cells = new Map<string, Cell>();
    constructor(
      public id: string,
      public name: string,
    ) {}
    get(r: number, c: number): Cell | undefined {
      return this.cells.get(`${r},${c}`);
    }
    set(r: number, c: number, update: Partial<Cell>): void {
      const key = `${r},${c}`;
      this.cells.set(key, { value: "", ...this.cells.get(key), ...update });
    }
    used(): Bounds | undefined {
      let r0 = Infinity;
      let c0 = Infinity;
      let r1 = -1;
      let c1 = -1;
      for (const [key, cell] of this.cells) {
        if (cell.value === "" || cell.value === null || cell.value === undefined) continue;
        const [r, c] = key.split(",").map(Number) as [number, number];
        r0 = Math.min(r0, r);
        c0 = Math.min(c0, c);
        r1 = Math.max(r1, r);
        c1 = Math.max(c1, c);
      }
      return r1 < 0 ? undefined : { row: r0, column: c0, rows: r1 - r0 + 1, columns: c1 - c0 + 1 };
    }
    isBlank(r: number, c: number): boolean {
      const v = this.get(r, c)?.value;
      return v === "" || v === null || v === undefined;
    }
  }

  const sheets: SheetData[] = seed.sheets.map((s, i) => {
    const sheet = new SheetData(`{sheet-${i + 1}}`, s.name);
    s.rows.forEach((row, r) =>
      row.forEach((v, c) => {
        if (typeof v === "string" && v.startsWith("=")) sheet.set(r, c, { formula: v, value: 0 });
        else if (v !== "" && v !== null && v !== undefined) sheet.set(r, c, { value: v });
      }),
    );
    return sheet;
  });
  const first = seed.selection?.sheet ? sheets.find((s) => s.name === seed.selection?.sheet) : sheets[0];
  let selection = {
    sheet: first as SheetData,
    row: seed.selection?.row ?? 0,
    column: seed.selection?.column ?? 0,
    rows: seed.selection?.rows ?? 1,
    columns: seed.selection?.columns ?? 1,
  };
  const excelTables: { sheet: SheetData; bounds: Bounds; name: string }[] = [];

  const colName = (i: number) => {
    let name = "";
    for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    return name;
  };
  const addressOf = (sheet: SheetData, b: Bounds) =>
    `${sheet.name}!${colName(b.column)}${b.row + 1}${b.rows * b.columns > 1 ? `:${colName(b.column + b.columns - 1)}${b.row + b.rows}` : ""}`;
  const stored = (v: unknown): Cell => {
    if (typeof v !== "string") return { value: v };
    if (v.startsWith("'")) return { value: v.slice(1) };
    if (v.startsWith("=")) {
      const link = /^=HYPERLINK\("((?:[^"]|"")*)"/i.exec(v);
      return { formula: v, value: link ? (link[1] as string).replace(/""/g, '"') : 0 };
    }
    return { value: v };
  };

  const log: FakeExcel = {
    syncs: 0,
    runs: 0,
    writes: [],
    calculated: [],
    charts: [],
    tables: [],
    select(sheet, row, column, rows = 1, columns = 1) {
      selection = { sheet: sheets.find((s) => s.name === sheet) as SheetData, row, column, rows, columns };
    },
    values(name) {
      const sheet = sheets.find((s) => s.name === name) as SheetData;
      const used = sheet.used();
      if (!used) return [];
      return Array.from({ length: used.row + used.rows }, (_, r) =>
        Array.from({ length: used.column + used.columns }, (_, c) => sheet.get(r, c)?.value ?? ""),
      );
    },
    formats(name) {
      const sheet = sheets.find((s) => s.name === name) as SheetData;
      const used = sheet.used();
      if (!used) return [];
      return Array.from({ length: used.row + used.rows }, (_, r) =>
        Array.from({ length: used.column + used.columns }, (_, c) => sheet.get(r, c)?.format ?? "General"),
      );
    },
    formula(name, r, c) {
      return sheets.find((s) => s.name === name)?.get(r, c)?.formula;
    },
    sheetNames: () => sheets.map((s) => s.name),
    async run(batch) {
      log.runs++;
      return batch(new Context());
    },
  };

  class Context {
    queue: (() => void)[] = [];
    workbook: Workbook;
    constructor() {
      this.workbook = new Workbook(this);
    }
    async sync(): Promise<void> {
      log.syncs++;
      const queue = this.queue;
      this.queue = [];
      for (const op of queue) op();
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    }
  }

  class Workbook {
    worksheets: Worksheets;
    constructor(public ctx: Context) {
      this.worksheets = new Worksheets(ctx);
    }
    getSelectedRange(): Range {
      const s = selection;
      return new Range(
        this.ctx,
        () => s.sheet,
        () => ({ row: s.row, column: s.column, rows: s.rows, columns: s.columns }),
      );
    }
  }

  class Worksheets {
    items: Worksheet[] = [];
    constructor(public ctx: Context) {}
    load(): this {
      this.ctx.queue.push(() => {
        this.items = sheets.map((s) => new Worksheet(this.ctx, s, true));
      });
      return this;
    }
    getItem(key: string): Worksheet {
      const sheet = sheets.find((s) => s.id === key || s.name === key);
      if (!sheet) throw new Error(`ItemNotFound: no sheet ${key}`);
      return new Worksheet(this.ctx, sheet);
    }
    getActiveWorksheet(): Worksheet {
      return new Worksheet(this.ctx, selection.sheet);
    }
    add(name: string): Worksheet {
      const sheet = new SheetData(`{sheet-${sheets.length + 1}}`, name);
      this.ctx.queue.push(() => {
        sheets.push(sheet);
      });
      return new Worksheet(this.ctx, sheet);
    }
  }

  class Worksheet {
    id = "";
    name = "";
    tables: { add: (range: Range, hasHeaders: boolean) => { showBandedRows: boolean; name: string } };
    charts: { add: (type: string, range: Range, by: string) => unknown };
    constructor(
      public ctx: Context,
      public data: SheetData,
      loaded = false,
    ) {
      if (loaded) {
        this.id = data.id;
        this.name = data.name;
      }
      this.tables = {
        add: (range) => {
          const table = { showBandedRows: false, name: `Table${excelTables.length + 1}` };
          ctx.queue.push(() => {
            const b = range.bounds();
            excelTables.push({ sheet: data, bounds: b, name: table.name });
            log.tables.push({ sheet: data.name, ...b });
          });
          return table;
        },
      };
      this.charts = {
        add: (type) => {
          const chart = { title: { text: "" }, legend: { visible: true }, setPosition: () => undefined };
          ctx.queue.push(() => log.charts.push({ sheet: data.name, type, title: chart.title.text }));
          return chart;
        },
      };
    }
    load(): this {
      this.ctx.queue.push(() => {
        this.id = this.data.id;
        this.name = this.data.name;
      });
      return this;
    }
    getRangeByIndexes(row: number, column: number, rows: number, columns: number): Range {
      return new Range(
        this.ctx,
        () => this.data,
        () => ({ row, column, rows, columns }),
      );
    }
    getUsedRangeOrNullObject(): Range {
      return new Range(
        this.ctx,
        () => this.data,
        () => this.data.used(),
      );
    }
    activate(): void {
      this.ctx.queue.push(() => {
        selection = { sheet: this.data, row: 0, column: 0, rows: 1, columns: 1 };
      });
    }
  }

  class Range {
    isNullObject = false;
    rowIndex = 0;
    columnIndex = 0;
    rowCount = 0;
    columnCount = 0;
    address = "";
    #values: unknown[][] = [];
    formulas: unknown[][] = [];
    format: { font: { bold: boolean }; autofitColumns: () => void };
    constructor(
      public ctx: Context,
      public sheetOf: () => SheetData,
      public boundsOf: () => Bounds | undefined,
    ) {
      this.format = { font: { bold: false }, autofitColumns: () => undefined };
    }
    bounds(): Bounds {
      const b = this.boundsOf();
      if (!b) throw new Error("ItemNotFound: a null range");
      return b;
    }
    select(): void {
      this.ctx.queue.push(() => {
        selection = { sheet: this.sheetOf(), ...this.bounds() };
      });
    }
    #sheet: Worksheet | undefined;
    /** One proxy per range, as Office keeps navigation properties. */
    get worksheet(): Worksheet {
      this.#sheet ??= new Worksheet(this.ctx, this.sheetOf());
      return this.#sheet;
    }
    load(): this {
      this.ctx.queue.push(() => {
        const b = this.boundsOf();
        this.isNullObject = b === undefined;
        if (!b) return;
        const sheet = this.sheetOf();
        Object.assign(this, {
          rowIndex: b.row,
          columnIndex: b.column,
          rowCount: b.rows,
          columnCount: b.columns,
          address: addressOf(sheet, b),
        });
        const grid = (read: (cell: Cell | undefined) => unknown) =>
          Array.from({ length: b.rows }, (_, r) =>
            Array.from({ length: b.columns }, (_, c) => read(sheet.get(b.row + r, b.column + c))),
          );
        this.#values = grid((cell) => cell?.value ?? "");
        this.formulas = grid((cell) => cell?.formula ?? cell?.value ?? "");
      });
      return this;
    }
    get values(): unknown[][] {
      return this.#values;
    }
    set values(values: unknown[][]) {
      this.#write("values", values, (cell) => stored(cell));
    }
    set numberFormat(formats: unknown[][]) {
      this.#write("numberFormat", formats, (format) => ({ format: String(format) }));
    }
    #write(kind: FakeWrite["kind"], grid: unknown[][], toCell: (v: unknown) => Partial<Cell>): void {
      this.ctx.queue.push(() => {
        const b = this.bounds();
        const sheet = this.sheetOf();
        if (grid.length !== b.rows || grid.some((row) => row.length !== b.columns))
          throw new Error(`InvalidArgument: ${kind} of ${grid.length} rows for a range of ${b.rows}×${b.columns}`);
        grid.forEach((row, r) => row.forEach((v, c) => sheet.set(b.row + r, b.column + c, toCell(v))));
        log.writes.push({ sync: log.syncs, sheet: sheet.name, kind, ...b });
      });
    }
    getTables(): {
      items: { getRange: () => Range; load: () => void; name: string; showTotals: boolean }[];
      load: () => void;
    } {
      const collection = {
        items: [] as { getRange: () => Range; load: () => void; name: string; showTotals: boolean }[],
        load: () =>
          this.ctx.queue.push(() => {
            const b = this.bounds();
            const sheet = this.sheetOf();
            collection.items = excelTables
              .filter(
                (t) =>
                  t.sheet === sheet &&
                  t.bounds.row < b.row + b.rows &&
                  b.row < t.bounds.row + t.bounds.rows &&
                  t.bounds.column < b.column + b.columns &&
                  b.column < t.bounds.column + t.bounds.columns,
              )
              .map((t) => ({
                getRange: () =>
                  new Range(
                    this.ctx,
                    () => t.sheet,
                    () => t.bounds,
                  ),
                load: () => undefined,
                name: t.name,
                showTotals: false,
              }));
          }),
      };
      return collection;
    }
    getSurroundingRegion(): Range {
      return new Range(this.ctx, this.sheetOf, () => {
        const sheet = this.sheetOf();
        const start = this.bounds();
        let b = { row: start.row, column: start.column, rows: 1, columns: 1 };
        // Grow while a row or column next to the region holds something beside it.
        for (let grown = true; grown;) {
          grown = false;
          const rowHas = (r: number) =>
            r >= 0 &&
            Array.from({ length: b.columns + 2 }, (_, i) => b.column - 1 + i).some(
              (c) => c >= 0 && !sheet.isBlank(r, c),
            );
          const colHas = (c: number) =>
            c >= 0 &&
            Array.from({ length: b.rows + 2 }, (_, i) => b.row - 1 + i).some((r) => r >= 0 && !sheet.isBlank(r, c));
          if (rowHas(b.row - 1)) b = { ...b, row: b.row - 1, rows: b.rows + 1 };
          else if (rowHas(b.row + b.rows)) b = { ...b, rows: b.rows + 1 };
          else if (colHas(b.column - 1)) b = { ...b, column: b.column - 1, columns: b.columns + 1 };
          else if (colHas(b.column + b.columns)) b = { ...b, columns: b.columns + 1 };
          else continue;
          grown = true;
        }
        return b;
      });
    }
    getCell(row: number, column: number): Range {
      return new Range(this.ctx, this.sheetOf, () => {
        const b = this.bounds();
        return { row: b.row + row, column: b.column + column, rows: 1, columns: 1 };
      });
    }
    calculate(): void {
      this.ctx.queue.push(() => log.calculated.push(addressOf(this.sheetOf(), this.bounds())));
    }
  }

  // Excel.run(batch), or Excel.run(options, batch) as with mergeUndoGroup: the options change nothing here.
  const run = (first: unknown, second?: unknown) =>
    log.run((typeof first === "function" ? first : second) as (context: any) => Promise<unknown>);
  (globalThis as Record<string, unknown>).Excel = { run };
  (globalThis as Record<string, unknown>).__fakeExcel = log;
  return log;
}

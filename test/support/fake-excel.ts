/**
 * The tests' one stand-in for Excel's object model, as much of it as the task pane uses: a workbook
 * of sheets of cells and proxies that behave as office.js's do. A proxy's properties are unknown
 * until loaded and synced (reading one earlier throws PropertyNotLoaded, as office.js does; one the
 * add-in set reads back as set); loads and writes are queued and reach the workbook at
 * `context.sync()`. Every sync, write and range handed out is logged.
 *
 * The Node tests drive the pane's code with it (`excel.run` is an ExcelRun); the browser tests inject
 * it into the page before the bundles run (so `Excel.run` is this); the benchmark runs it in Node to
 * count syncs. `installFakeExcel` is self-contained — no imports, no outer names — because Playwright
 * sends its source text to the page (addInitScript). Keep it that way.
 */
export interface FakeSeed {
  /** Cells from A1; a "=…" string is a formula (its value reads as 0). `id` defaults to "{name}". */
  sheets: { name: string; id?: string; rows: unknown[][] }[];
  /** Selected range, 0-based, on the first sheet unless named; its sheet is the active one. @default A1 */
  selection?: { sheet?: string; row: number; column: number; rows?: number; columns?: number };
  /** Excel tables already in the workbook (on the first sheet unless named). */
  tables?: {
    sheet?: string;
    name: string;
    row: number;
    column: number;
    rows: number;
    columns: number;
    showTotals?: boolean;
  }[];
  /** The workbook's decimal mark (Application.cultureInfo.numberFormat). @default "." */
  decimalSeparator?: string;
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

/** A range handed out by getRangeByIndexes, and what the add-in did with it. */
export interface FakeRange {
  sheet: string;
  row: number;
  column: number;
  rows: number;
  columns: number;
  /** context.sync() calls made before it was handed out. */
  before: number;
  /** What the add-in set, as it set it (the sheet's cells change at the next sync); undefined if never. Typed as office.js types them. */
  values?: any[][];
  numberFormat?: any[][];
  bold?: boolean;
  /** format.autofitColumns() was called on it. */
  autofit?: boolean;
}

export interface FakeExcel {
  syncs: number;
  runs: number;
  writes: FakeWrite[];
  ranges: FakeRange[];
  /** Ranges recalculated (range.calculate()), as "Sheet1!A1:C9", at the sync that sent it. */
  calculated: string[];
  charts: { sheet: string; type: string; title: string }[];
  /** Tables the add-in added (the seed's are not listed). */
  tables: { sheet: string; row: number; column: number; rows: number; columns: number; hasHeaders: boolean }[];
  select(sheet: string, row: number, column: number, rows?: number, columns?: number): void;
  /** The user types into a cell (outside any batch): a value, "=…" a formula, "" clears it. */
  type(sheet: string, row: number, column: number, value: unknown): void;
  /** A sheet's values as a grid from A1 ("" for empty cells). */
  values(sheet: string): unknown[][];
  formats(sheet: string): string[][];
  formula(sheet: string, row: number, column: number): string | undefined;
  sheetNames(): string[];
  run<T>(batch: (context: any) => Promise<T>): Promise<T>;
}

/** What the tests in Node hear from the workbook (a page gets the seed alone). */
export interface FakeHooks {
  /** A recalculation reached Excel (the sync after range.calculate()), as Excel would then call the functions in it. */
  onCalculate?: (address: string) => void;
}

export function installFakeExcel(seed: FakeSeed, hooks: FakeHooks = {}): FakeExcel {
  type Cell = { value: unknown; format?: string; formula?: string };
  type Bounds = { row: number; column: number; rows: number; columns: number };
  const latency = seed.syncLatencyMs ?? 0;
  const decimalSeparator = seed.decimalSeparator ?? ".";

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

  /** A value as Excel stores what is typed or set: "'…" is text, "=…" a formula (a HYPERLINK shows its URL). */
  const stored = (v: unknown): Cell => {
    if (typeof v !== "string") return { value: v };
    if (v.startsWith("'")) return { value: v.slice(1) };
    if (v.startsWith("=")) {
      const link = /^=HYPERLINK\("((?:[^"]|"")*)"/i.exec(v);
      return { formula: v, value: link ? (link[1] as string).replace(/""/g, '"') : 0 };
    }
    return { value: v };
  };

  const sheets: SheetData[] = seed.sheets.map((s) => {
    const sheet = new SheetData(s.id ?? `{${s.name}}`, s.name);
    s.rows.forEach((row, r) =>
      row.forEach((v, c) => {
        if (v !== "" && v !== null && v !== undefined) sheet.set(r, c, stored(v));
      }),
    );
    return sheet;
  });
  const sheetNamed = (name: string | undefined): SheetData => {
    const sheet = name === undefined ? sheets[0] : sheets.find((s) => s.name === name);
    if (!sheet) throw new Error(`ItemNotFound: no sheet ${name}`);
    return sheet;
  };
  let selection = {
    sheet: sheetNamed(seed.selection?.sheet),
    row: seed.selection?.row ?? 0,
    column: seed.selection?.column ?? 0,
    rows: seed.selection?.rows ?? 1,
    columns: seed.selection?.columns ?? 1,
  };
  /** An Excel table; its range is known once the sync that adds it has run. */
  type TableData = { sheet: SheetData; bounds: Bounds | undefined; name: string; showTotals: boolean };
  const excelTables: TableData[] = (seed.tables ?? []).map((t) => ({
    sheet: sheetNamed(t.sheet),
    bounds: { row: t.row, column: t.column, rows: t.rows, columns: t.columns },
    name: t.name,
    showTotals: t.showTotals ?? false,
  }));

  const colName = (i: number) => {
    let name = "";
    for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
    return name;
  };
  const addressOf = (sheet: SheetData, b: Bounds) =>
    `${sheet.name}!${colName(b.column)}${b.row + 1}${b.rows * b.columns > 1 ? `:${colName(b.column + b.columns - 1)}${b.row + b.rows}` : ""}`;

  const log: FakeExcel = {
    syncs: 0,
    runs: 0,
    writes: [],
    ranges: [],
    calculated: [],
    charts: [],
    tables: [],
    select(sheet, row, column, rows = 1, columns = 1) {
      selection = { sheet: sheetNamed(sheet), row, column, rows, columns };
    },
    type(sheet, row, column, value) {
      const data = sheetNamed(sheet);
      if (value === "" || value === null || value === undefined)
        data.set(row, column, { value: "", formula: undefined });
      else data.set(row, column, { formula: undefined, ...stored(value) });
    },
    values(name) {
      const sheet = sheetNamed(name);
      const used = sheet.used();
      if (!used) return [];
      return Array.from({ length: used.row + used.rows }, (_, r) =>
        Array.from({ length: used.column + used.columns }, (_, c) => sheet.get(r, c)?.value ?? ""),
      );
    },
    formats(name) {
      const sheet = sheetNamed(name);
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
    application: { cultureInfo: { numberFormat: NumberFormatInfo } };
    constructor() {
      this.workbook = new Workbook(this);
      this.application = { cultureInfo: { numberFormat: new NumberFormatInfo(this) } };
    }
    async sync(): Promise<void> {
      log.syncs++;
      const queue = this.queue;
      this.queue = [];
      for (const op of queue) op();
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    }
  }

  /** What office.js throws when a property is read before it was loaded and synced. */
  const notLoaded = (entity: string, property: string) =>
    Object.assign(
      new Error(
        `The property '${property}' is not available. Before reading the property's value, call the load method on the containing object and call "context.sync()" on the associated request context.`,
      ),
      { name: "RichApi.Error", code: "PropertyNotLoaded", debugInfo: { errorLocation: `${entity}.${property}` } },
    );

  /**
   * A proxy's scalar properties, as office.js keeps them: unknown until a load reaches a sync (then
   * read as the workbook held them at that sync), or until the add-in sets one. Reading an unknown
   * one throws PropertyNotLoaded; a null object's read as undefined.
   */
  class ClientObject {
    #known = new Map<string, unknown>();
    #isNull: boolean | undefined;
    constructor(
      public ctx: Context,
      public entity: string,
      public scalars: readonly string[],
    ) {}
    get isNullObject(): boolean {
      if (this.#isNull === undefined) throw notLoaded(this.entity, "isNullObject");
      return this.#isNull;
    }
    read<T>(property: string): T {
      if (this.#isNull) return undefined as T;
      if (!this.#known.has(property)) throw notLoaded(this.entity, property);
      return this.#known.get(property) as T;
    }
    know(property: string, value: unknown): void {
      this.#known.set(property, value);
    }
    /** "a,b", ["a", "b"], or nothing for every scalar property. */
    names(properties: unknown): string[] {
      const list =
        properties === undefined
          ? [...this.scalars]
          : (Array.isArray(properties) ? properties.map(String) : String(properties).split(","))
              .map((p) => p.trim())
              .filter(Boolean);
      for (const p of list)
        if (!this.scalars.includes(p))
          throw new Error(`the fake Excel's ${this.entity} has no property "${p}" to load`);
      return list;
    }
    load(properties?: unknown): this {
      const names = this.names(properties);
      this.ctx.queue.push(() => this.fill(names));
      return this;
    }
    /** At a sync: whether the object exists, and the properties' values now. */
    fill(names: readonly string[]): void {
      this.#isNull = !this.exists();
      if (!this.#isNull) for (const p of names) this.#known.set(p, this.current(p));
    }
    exists(): boolean {
      return true;
    }
    current(property: string): unknown {
      throw new Error(`the fake Excel's ${this.entity} cannot read "${property}"`);
    }
  }

  /** A collection: `items` once loaded ("items" loads every scalar property of each, "items/name" that one). */
  class Collection<T extends ClientObject> {
    #items: T[] | undefined;
    constructor(
      public ctx: Context,
      public entity: string,
      public list: () => T[],
    ) {}
    get items(): T[] {
      if (!this.#items) throw notLoaded(this.entity, "items");
      return this.#items;
    }
    load(properties?: unknown): this {
      const paths = (Array.isArray(properties) ? properties.map(String) : String(properties ?? "items").split(","))
        .map((p) => p.trim())
        .filter(Boolean);
      const item = paths.filter((p) => p.startsWith("items/")).map((p) => p.slice("items/".length));
      if (paths.some((p) => p !== "items" && !p.startsWith("items/")))
        throw new Error(`the fake Excel's ${this.entity} loads only items: ${String(properties)}`);
      this.ctx.queue.push(() => {
        const items = this.list();
        for (const i of items) i.fill(item.length > 0 ? item : i.scalars);
        this.#items = items;
      });
      return this;
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

  class Worksheets extends Collection<Worksheet> {
    constructor(ctx: Context) {
      super(ctx, "WorksheetCollection", () => sheets.map((s) => new Worksheet(ctx, s)));
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
      const sheet = new SheetData(`{${name}}`, name);
      this.ctx.queue.push(() => {
        sheets.push(sheet);
      });
      return new Worksheet(this.ctx, sheet);
    }
  }

  class Worksheet extends ClientObject {
    tables: { add: (range: Range, hasHeaders: boolean) => Table };
    charts: { add: (type: string, range: Range, by: string) => unknown };
    constructor(
      ctx: Context,
      public data: SheetData,
    ) {
      super(ctx, "Worksheet", ["id", "name"]);
      this.tables = {
        add: (range, hasHeaders) => {
          const added: TableData = {
            sheet: data,
            bounds: undefined,
            name: `Table${excelTables.length + 1}`,
            showTotals: false,
          };
          ctx.queue.push(() => {
            added.bounds = range.bounds();
            excelTables.push(added);
            log.tables.push({ sheet: data.name, ...added.bounds, hasHeaders });
          });
          return new Table(ctx, added);
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
    get id(): string {
      return this.read("id");
    }
    get name(): string {
      return this.read("name");
    }
    override current(property: string): unknown {
      return property === "id" ? this.data.id : this.data.name;
    }
    getRangeByIndexes(row: number, column: number, rows: number, columns: number): Range {
      const entry: FakeRange = { sheet: this.data.name, row, column, rows, columns, before: log.syncs };
      log.ranges.push(entry);
      return new Range(
        this.ctx,
        () => this.data,
        () => ({ row, column, rows, columns }),
        entry,
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

  class Table extends ClientObject {
    showBandedRows = false;
    constructor(
      ctx: Context,
      public data: TableData,
    ) {
      super(ctx, "Table", ["name", "showTotals"]);
    }
    get name(): string {
      return this.read("name");
    }
    get showTotals(): boolean {
      return this.read("showTotals");
    }
    override current(property: string): unknown {
      return property === "name" ? this.data.name : this.data.showTotals;
    }
    getRange(): Range {
      return new Range(
        this.ctx,
        () => this.data.sheet,
        () => this.data.bounds,
      );
    }
  }

  class NumberFormatInfo extends ClientObject {
    constructor(ctx: Context) {
      super(ctx, "NumberFormatInfo", ["numberDecimalSeparator", "numberGroupSeparator"]);
    }
    get numberDecimalSeparator(): string {
      return this.read("numberDecimalSeparator");
    }
    get numberGroupSeparator(): string {
      return this.read("numberGroupSeparator");
    }
    override current(property: string): unknown {
      if (property === "numberDecimalSeparator") return decimalSeparator;
      return decimalSeparator === "," ? "." : ",";
    }
  }

  const RANGE_PROPERTIES = [
    "address",
    "rowIndex",
    "columnIndex",
    "rowCount",
    "columnCount",
    "values",
    "formulas",
    "numberFormat",
  ] as const;

  class Range extends ClientObject {
    format: { font: { bold: boolean }; autofitColumns: () => void };
    #sheet: Worksheet | undefined;
    constructor(
      ctx: Context,
      public sheetOf: () => SheetData,
      public boundsOf: () => Bounds | undefined,
      public entry?: FakeRange,
    ) {
      super(ctx, "Range", RANGE_PROPERTIES);
      let bold = false;
      this.format = {
        font: {
          get bold() {
            return bold;
          },
          set bold(value: boolean) {
            bold = value;
            if (entry) entry.bold = value;
          },
        },
        autofitColumns: () => {
          if (entry) entry.autofit = true;
        },
      };
    }
    get address(): string {
      return this.read("address");
    }
    get rowIndex(): number {
      return this.read("rowIndex");
    }
    get columnIndex(): number {
      return this.read("columnIndex");
    }
    get rowCount(): number {
      return this.read("rowCount");
    }
    get columnCount(): number {
      return this.read("columnCount");
    }
    get values(): unknown[][] {
      return this.read("values");
    }
    set values(values: unknown[][]) {
      this.know("values", values);
      if (this.entry) this.entry.values = values;
      this.#write("values", values, (v) => ({ formula: undefined, ...stored(v) }));
    }
    get formulas(): unknown[][] {
      return this.read("formulas");
    }
    get numberFormat(): unknown[][] {
      return this.read("numberFormat");
    }
    set numberFormat(formats: unknown[][]) {
      this.know("numberFormat", formats);
      if (this.entry) this.entry.numberFormat = formats;
      this.#write("numberFormat", formats, (format) => ({ format: String(format) }));
    }
    #loading: { bounds: Bounds | undefined } | undefined;
    /** Where the range is, found once per load (a used range or a region is worked out from the cells). */
    override fill(names: readonly string[]): void {
      this.#loading = { bounds: this.boundsOf() };
      try {
        super.fill(names);
      } finally {
        this.#loading = undefined;
      }
    }
    override exists(): boolean {
      return (this.#loading ? this.#loading.bounds : this.boundsOf()) !== undefined;
    }
    override current(property: string): unknown {
      const b = this.bounds();
      const sheet = this.sheetOf();
      const grid = (read: (cell: Cell | undefined) => unknown) =>
        Array.from({ length: b.rows }, (_, r) =>
          Array.from({ length: b.columns }, (_, c) => read(sheet.get(b.row + r, b.column + c))),
        );
      switch (property) {
        case "address":
          return addressOf(sheet, b);
        case "rowIndex":
          return b.row;
        case "columnIndex":
          return b.column;
        case "rowCount":
          return b.rows;
        case "columnCount":
          return b.columns;
        case "values":
          return grid((cell) => cell?.value ?? "");
        case "formulas":
          return grid((cell) => cell?.formula ?? cell?.value ?? "");
        default:
          return grid((cell) => cell?.format ?? "General");
      }
    }
    bounds(): Bounds {
      const b = this.#loading ? this.#loading.bounds : this.boundsOf();
      if (!b) throw new Error("ItemNotFound: a null range");
      return b;
    }
    select(): void {
      this.ctx.queue.push(() => {
        selection = { sheet: this.sheetOf(), ...this.bounds() };
      });
    }
    /** One proxy per range, as Office keeps navigation properties. */
    get worksheet(): Worksheet {
      this.#sheet ??= new Worksheet(this.ctx, this.sheetOf());
      return this.#sheet;
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
    getTables(): Collection<Table> {
      return new Collection(this.ctx, "TableScopedCollection", () => {
        const b = this.bounds();
        const sheet = this.sheetOf();
        return excelTables
          .filter(
            (t): t is TableData & { bounds: Bounds } =>
              t.bounds !== undefined &&
              t.sheet === sheet &&
              t.bounds.row < b.row + b.rows &&
              b.row < t.bounds.row + t.bounds.rows &&
              t.bounds.column < b.column + b.columns &&
              b.column < t.bounds.column + t.bounds.columns,
          )
          .map((t) => new Table(this.ctx, t));
      });
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
      this.ctx.queue.push(() => {
        const address = addressOf(this.sheetOf(), this.bounds());
        log.calculated.push(address);
        hooks.onCalculate?.(address);
      });
    }
  }

  // Excel.run(batch), or Excel.run(options, batch) as with mergeUndoGroup: the options change nothing here.
  const run = (first: unknown, second?: unknown) =>
    log.run((typeof first === "function" ? first : second) as (context: any) => Promise<unknown>);
  (globalThis as Record<string, unknown>).Excel = { run };
  (globalThis as Record<string, unknown>).__fakeExcel = log;
  return log;
}

/**
 * Each sheet row's values written from `column` on, from every range given values (Node only: the
 * page gets installFakeExcel's source alone).
 */
export function writtenRows(wb: FakeExcel, column: number): Map<number, unknown[]> {
  const rows = new Map<number, unknown[]>();
  for (const r of wb.ranges) {
    if (r.column !== column || !Array.isArray(r.values)) continue;
    (r.values as unknown[][]).forEach((v, i) => rows.set(r.row + i, v));
  }
  return rows;
}

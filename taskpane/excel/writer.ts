import { isWebAddress } from "../../src/contract";
import { Cell, CellRow, FormattedCell, GENERAL_FORMAT, inertText } from "../../src/sheet";
import { ExcelRun } from "./host";

/**
 * Writes result rows into a block of columns as they arrive, in chunks: rows gather until there are
 * `chunkRows` of them (or the oldest has waited `maxDelayMs`, so a slow run still shows progress in
 * the sheet), then go in one Excel.run with ONE context.sync — each run of consecutive rows as one
 * range, its number formats and values set together. Never a sync per row or per cell: each sync is
 * a round trip to Excel (across the network in Excel on the web), and a screening of 1,000 rows
 * takes about 1,000 / chunkRows of them.
 *
 * Chunks are written one after another, never two at once, in the order rows arrived; a write that
 * fails (the sheet was deleted or protected) stops the writer and is reported through `onError`.
 */
export interface ChunkedWriterOptions {
  run: ExcelRun;
  /** Worksheet id (a rename during the run does not lose it). */
  sheetId: string;
  /** 0-based sheet column of the block's first column, and its width in columns. */
  left: number;
  width: number;
  /** Columns (relative to `left`) holding web links, written as =HYPERLINK(…) so they can be clicked. */
  linkColumns?: readonly number[];
  /** @default 200 */
  chunkRows?: number;
  /** @default 3000 */
  maxDelayMs?: number;
  onError?: (error: unknown) => void;
}

export const DEFAULT_CHUNK_ROWS = 200;

/**
 * How long a row may wait for its chunk. At the service's 100 requests a second a chunk of 200 fills
 * in 2 s, so at full speed chunks are written full; slower runs still reach the sheet every few seconds.
 */
export const DEFAULT_MAX_DELAY_MS = 3000;

/** Longest text Excel's HYPERLINK takes as its link. */
const MAX_HYPERLINK = 255;

export class ChunkedWriter {
  readonly #o: Required<Omit<ChunkedWriterOptions, "onError" | "linkColumns">> & Pick<ChunkedWriterOptions, "onError">;
  readonly #links: ReadonlySet<number>;
  readonly #pending = new Map<number, CellRow>();
  #header: { row: number; cells: CellRow } | undefined;
  /** The header's sheet row until the columns are fitted to the first rows with figures. */
  #fitFrom: number | undefined;
  #chain: Promise<void> = Promise.resolve();
  #queued: "full" | "all" | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failure: { error: unknown } | undefined;
  /** context.sync() calls made so far. */
  syncs = 0;
  /** Rows written so far (the header not counted). */
  rowsWritten = 0;

  constructor(options: ChunkedWriterOptions) {
    if (!Number.isInteger(options.width) || options.width < 1)
      throw new RangeError(`width must be a whole number of 1 or more; got ${options.width}`);
    this.#o = { chunkRows: DEFAULT_CHUNK_ROWS, maxDelayMs: DEFAULT_MAX_DELAY_MS, ...options };
    this.#links = new Set(options.linkColumns ?? []);
  }

  /** The block's header, written (bold) with the first chunk; the columns are fitted to the first rows with figures. */
  header(sheetRow: number, cells: CellRow): void {
    this.#header = { row: sheetRow, cells: this.#fit(cells) };
    this.#fitFrom = sheetRow;
    this.#armTimer();
  }

  /** A row of the block; a later put for the same row replaces one not yet written. */
  put(sheetRow: number, cells: CellRow): void {
    if (this.#failure) return;
    this.#pending.set(sheetRow, this.#fit(cells));
    if (this.#pending.size >= this.#o.chunkRows) this.#request("full");
    else this.#armTimer();
  }

  /** Writes everything still pending; rejects with the write's failure, if one happened. */
  async close(): Promise<void> {
    this.#request("all");
    await this.#chain;
    if (this.#failure) throw this.#failure.error;
  }

  get failure(): unknown {
    return this.#failure?.error;
  }

  #fit(cells: CellRow): CellRow {
    if (cells.length === this.#o.width) return cells;
    // A narrower row (the block shrank since an earlier, wider run) blanks the rest of the old block.
    return Array.from({ length: this.#o.width }, (_, i) => cells[i] ?? { value: "" });
  }

  #armTimer(): void {
    if (this.#timer || this.#failure) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#request("all");
    }, this.#o.maxDelayMs);
  }

  /** Queues one drain; requests made while one is queued join it ("all" wins over "full"). */
  #request(mode: "full" | "all"): void {
    if (this.#queued) {
      if (mode === "all") this.#queued = "all";
      return;
    }
    this.#queued = mode;
    this.#chain = this.#chain.then(async () => {
      const all = this.#queued === "all";
      this.#queued = undefined;
      // Whatever the drain leaves waits its own maxDelayMs from here (or from the first row put while
      // it writes), not what is left of a timer set for rows this drain writes: otherwise a chunk
      // written full at 2 s is followed by a part-chunk when the old timer fires at 3 s.
      if (this.#timer) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
      await this.#drain(all);
      if (this.#pending.size > 0 || this.#header) this.#armTimer();
    });
  }

  /**
   * Writes full chunks; with `all`, as many rows again as were waiting when it began (and the header).
   * Not rows that arrive while it writes: an "all" drain that took those too would, with rows still
   * streaming in, never end — one sync every few rows, each a round trip to Excel.
   */
  async #drain(all: boolean): Promise<void> {
    let due = all ? this.#pending.size : 0;
    while (!this.#failure && (this.#pending.size >= this.#o.chunkRows || due > 0 || (all && this.#header))) {
      const rows = [...this.#pending.keys()].sort((a, b) => a - b).slice(0, this.#o.chunkRows);
      const chunk = rows.map((r) => [r, this.#pending.get(r) as CellRow] as const);
      for (const r of rows) this.#pending.delete(r);
      due -= chunk.length;
      const header = this.#header;
      this.#header = undefined;
      try {
        await this.#write(header, chunk);
        this.rowsWritten += chunk.length;
      } catch (error) {
        this.#failure = { error };
        this.#pending.clear();
        if (this.#timer) clearTimeout(this.#timer);
        this.#o.onError?.(error);
      }
    }
  }

  async #write(
    header: { row: number; cells: CellRow } | undefined,
    chunk: readonly (readonly [number, CellRow])[],
  ): Promise<void> {
    const { left, width, sheetId } = this.#o;
    await this.#o.run(async (context) => {
      const sheet = context.workbook.worksheets.getItem(sheetId);
      if (header) {
        const range = sheet.getRangeByIndexes(header.row, left, 1, width);
        this.#set(range, [header.cells]);
        range.format.font.bold = true;
        range.format.autofitColumns();
      }
      for (const [first, rows] of consecutiveRuns(chunk))
        this.#set(sheet.getRangeByIndexes(first, left, rows.length, width), rows);
      // Excel fits a column to the cells of the range it is asked about only (Range.AutoFit,
      // learn.microsoft.com/office/vba/api/excel.range.autofit; RangeFormat.autofitColumns in the
      // JavaScript API): fitted to the header alone, a date column showed "#######". So the header
      // and the first chunk holding figures, in the same sync; not the Warnings column, whose long
      // messages would make it as wide as Excel allows.
      const last = chunk.at(-1)?.[0];
      if (this.#fitFrom !== undefined && last !== undefined && width > 1 && chunk.some(([, c]) => hasFigures(c))) {
        sheet.getRangeByIndexes(this.#fitFrom, left, last - this.#fitFrom + 1, width - 1).format.autofitColumns();
        this.#fitFrom = undefined;
      }
      this.syncs++;
      await context.sync();
    });
  }

  #set(range: Excel.Range, rows: readonly CellRow[]): void {
    const values: Cell[][] = [];
    const formats: string[][] = [];
    for (const row of rows) {
      const v: Cell[] = [];
      const f: string[] = [];
      row.forEach((c, i) => {
        const out = excelCell(c, this.#links.has(i));
        v.push(out.value);
        f.push(out.format);
      });
      values.push(v);
      formats.push(f);
    }
    // Formats first: a text format ("@") must be in place before the value, or Excel reads text that
    // looks like a number or a date ("02134", "3-4") as one.
    range.numberFormat = formats;
    range.values = values;
  }
}

/** A row with figures: something between its status and its Warnings (a blank, failed or stopped row has none). */
function hasFigures(cells: CellRow): boolean {
  return cells.slice(1, -1).some((c) => c.value !== "" && c.value !== null && c.value !== undefined);
}

/** Consecutive sheet rows grouped: each group is one range to write. */
function consecutiveRuns(chunk: readonly (readonly [number, CellRow])[]): [number, CellRow[]][] {
  const runs: [number, CellRow[]][] = [];
  for (const [row, cells] of chunk) {
    const last = runs.at(-1);
    if (last && last[0] + last[1].length === row) last[1].push(cells);
    else runs.push([row, [cells]]);
  }
  return runs;
}

/**
 * A cell as Excel gets it. Excel takes a value set through the API as if typed: text that could
 * become a formula, the service's (an address, a listing name) as the user's, gets the apostrophe
 * that keeps it text (src/sheet/inert-text.ts); a web link becomes =HYPERLINK("…") so it can be clicked, its
 * value still the URL.
 */
export function excelCell(c: FormattedCell, link: boolean): { value: Cell; format: string } {
  const format = c.format ?? GENERAL_FORMAT;
  if (typeof c.value !== "string") return { value: c.value, format };
  if (link && isWebAddress(c.value) && c.value.length <= MAX_HYPERLINK) {
    // General, not the url unit's text format: a formula in a text-formatted cell stays text.
    return { value: `=HYPERLINK("${c.value.replace(/"/g, '""')}")`, format: GENERAL_FORMAT };
  }
  return { value: inertText(c.value), format };
}

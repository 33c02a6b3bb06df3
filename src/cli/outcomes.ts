import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { COMPARABLE_COLUMNS, RelayAnswer } from "../contract";
import { PlannedRow, RowOutcome } from "../screening";
import { Cell, FormattedCell, analysisOf, comparablesTable, monthlyTable } from "../sheet";
import { KeptReport, LocalReports, NO_LISTING_PAGE, NO_PHOTO } from "./local-reports";

/** Links into the run's own relay, dead once it ends: what each says instead. */
const GONE_LINKS = new Map([
  [COMPARABLE_COLUMNS.findIndex((c) => c.key === "listingUrl"), NO_LISTING_PAGE],
  [COMPARABLE_COLUMNS.findIndex((c) => c.key === "photo_urls.0"), NO_PHOTO],
]);

/**
 * The run's row outcomes (src/screening) kept for the output workbook, by sheet row. An answer's
 * whole analysis (50 comparables with photo lists) is dropped as soon as it is read; the comparables
 * go to a spool file on disk, so a run of thousands of rows holds a few cells per row in memory,
 * not thousands of analyses.
 */
export interface SpooledOutcome extends RowOutcome {
  /** Its answer's currency, which sets the money formats of its comparables. */
  currency?: string | undefined;
  /** Its answer's months as the STR Monthly sheet shows them (twelve rows of four cells, or one saying there are none). */
  monthly?: FormattedCell[][];
  /** Where its comparables are in the spool. */
  comps: { offset: number; length: number } | undefined;
  /** An enhancement that came back without figures, and why (notEnhancedNote): its figures are kept after the run. */
  notEnhanced?: string;
  /** Its report kept beside OUT (LocalReports), relative to OUT's folder, once written. */
  reportFile?: string;
  /** Its report could not be kept beside OUT: the file and why. */
  reportNotKept?: string;
}

export class Outcomes {
  /** Comparables kept of each analysis: all the relay need send (POST /v1/batch maxComparables). */
  readonly compsPerRow: number;
  readonly #bySheetRow = new Map<number, SpooledOutcome>();
  readonly #dir: string;
  readonly #fd: number;
  #spooled = 0;
  #closed = false;

  readonly #reports: LocalReports | undefined;
  readonly #reportWrites: Promise<KeptReport>[] = [];
  /** Rows whose report is still being written beside OUT. */
  readonly #reportPending = new Set<number>();

  /** Called when a row's outcome becomes final (isFinal): the output can take it then. */
  onFinal: (() => void) | undefined;

  /**
   * `compsPerRow` comparables of each analysis are kept for the Comparables sheet. With `reports`
   * (a relay that is gone after the run), reports are kept as files and listings are not linked.
   */
  constructor(compsPerRow: number, reports?: LocalReports) {
    this.compsPerRow = compsPerRow;
    this.#reports = reports;
    this.#dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-screen-"));
    this.#fd = fs.openSync(path.join(this.#dir, "comparables.ndjson"), "w+", 0o600);
  }

  get(row: PlannedRow): SpooledOutcome | undefined {
    return this.#bySheetRow.get(row.sheetRow);
  }

  /** Keeps a row's outcome, and the comparables of its answer. */
  record(row: PlannedRow, outcome: RowOutcome & { notEnhanced?: string }, answer: RelayAnswer | undefined): void {
    let comps: SpooledOutcome["comps"];
    const analysis = answer ? analysisOf(answer) : undefined;
    if (this.compsPerRow > 0 && analysis?.comparables && analysis.comparables.length > 0) {
      const table = comparablesTable(analysis, this.compsPerRow);
      if (table.ok)
        comps = this.#spool(
          table.grid
            .slice(1)
            .map((r) =>
              r.map((c, i) =>
                this.#reports && GONE_LINKS.has(i) && c.value !== "" ? (GONE_LINKS.get(i) as string) : c.value,
              ),
            ),
        );
    }
    const currency = typeof analysis?.currency === "string" ? analysis.currency : undefined;
    // A few dozen cells a row, kept in memory: the warnings column is the row's, added when written.
    const monthly = answer
      ? monthlyTable(analysis)
          .slice(1)
          .map((r) => r.slice(0, -1))
      : undefined;
    const kept: SpooledOutcome = {
      ...outcome,
      comps,
      ...(currency ? { currency } : {}),
      ...(monthly ? { monthly } : {}),
    };
    this.#bySheetRow.set(row.sheetRow, kept);
    const report = answer && this.#reports?.write(answer, "op" in row ? row.op : undefined);
    if (!report) {
      this.onFinal?.();
      return;
    }
    this.#reportPending.add(row.sheetRow);
    this.#reportWrites.push(
      report.then((r) => {
        if ("file" in r) kept.reportFile = r.file;
        else kept.reportNotKept = r.failed;
        this.#reportPending.delete(row.sheetRow);
        this.onFinal?.();
        return r;
      }),
    );
  }

  /** The row's outcome is in and its cells will not change: its report, if kept, is written; an enhancement's figures are not still to be recovered. */
  isFinal(row: PlannedRow): boolean {
    const outcome = this.#bySheetRow.get(row.sheetRow);
    return outcome !== undefined && outcome.notEnhanced === undefined && !this.#reportPending.has(row.sheetRow);
  }

  /** Waits for the reports being written beside OUT; the files that could not be, and why. */
  async reportsKept(): Promise<string[]> {
    const written = await Promise.all(this.#reportWrites.splice(0));
    return written.flatMap((r) => ("failed" in r ? [r.failed] : []));
  }

  /** The comparables of a row, as cell values in COMPARABLE_COLUMNS order. */
  comparables(outcome: SpooledOutcome): Cell[][] {
    if (!outcome.comps) return [];
    const buffer = Buffer.alloc(outcome.comps.length);
    fs.readSync(this.#fd, buffer, 0, outcome.comps.length, outcome.comps.offset);
    return JSON.parse(buffer.toString("utf8")) as Cell[][];
  }

  /** Removes the spool. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    fs.closeSync(this.#fd);
    fs.rmSync(this.#dir, { recursive: true, force: true });
  }

  #spool(rows: Cell[][]): { offset: number; length: number } {
    const bytes = Buffer.from(JSON.stringify(rows), "utf8");
    const offset = this.#spooled;
    fs.writeSync(this.#fd, bytes, 0, bytes.length, offset);
    this.#spooled += bytes.length;
    return { offset, length: bytes.length };
  }
}

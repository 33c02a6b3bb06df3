import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FieldInfo, RelayAnswer, RelayErrorBody } from "../contract";
import { Cell, CellRow, RowStatus, analysisOf, comparablesTable, resultBlockRow, rowStatusOf, screeningResultOf, sheetError, warningTexts } from "../sheet";

/**
 * What each screened row came to, kept only as the output needs it: its result cells, its warnings,
 * its cost, and where its comparables are. An answer's whole analysis (50 comparables with photo
 * lists) is dropped as soon as it is read; the comparables go to a spool file on disk, so a run of
 * thousands of rows holds a few cells per row in memory, not thousands of analyses.
 */
export interface RowOutcome {
  status: RowStatus;
  /** The row's result block (shared with the task pane): status, fetched, the fields, the warnings or error cell. */
  cells: CellRow;
  warnings: string[];
  /** "[CODE] what happened and what to do", for a row without figures. */
  error: string | undefined;
  costUSD: number;
  analysisId: string | undefined;
  /** Where its comparables are in the spool. */
  comps: { offset: number; length: number } | undefined;
}

export class Outcomes {
  readonly #fields: readonly FieldInfo[];
  readonly #compsPerRow: number;

  /** Comparables kept of each analysis: all the relay need send (POST /v1/batch maxComparables). */
  get compsPerRow(): number {
    return this.#compsPerRow;
  }
  readonly #byRow = new Map<number, RowOutcome>();
  readonly #dir: string;
  readonly #fd: number;
  #spooled = 0;
  #closed = false;

  /** `compsPerRow` comparables of each analysis are kept for the Comparables sheet. */
  constructor(fields: readonly FieldInfo[], compsPerRow: number) {
    this.#fields = fields;
    this.#compsPerRow = compsPerRow;
    this.#dir = fs.mkdtempSync(path.join(os.tmpdir(), "str-screen-"));
    this.#fd = fs.openSync(path.join(this.#dir, "comparables.ndjson"), "w+", 0o600);
  }

  get fields(): readonly FieldInfo[] {
    return this.#fields;
  }

  get(row: number): RowOutcome | undefined {
    return this.#byRow.get(row);
  }

  has(row: number): boolean {
    return this.#byRow.has(row);
  }

  /** A batch line's body for `row`: an answer, or the relay's error for it. */
  answered(row: number, body: RelayAnswer | RelayErrorBody): RowOutcome {
    const result = screeningResultOf(body);
    if (!("answer" in result)) return this.failed(row, result.error);
    const answer = result.answer;
    const analysis = analysisOf(answer);
    const status = rowStatusOf(body);
    const outcome: RowOutcome = {
      status,
      cells: resultBlockRow(result, this.#fields, status),
      warnings: warningTexts(answer),
      error: undefined,
      costUSD: answer.relay.costUSD,
      analysisId: analysis?._id,
      comps: undefined,
    };
    if (this.#compsPerRow > 0 && analysis?.comparables && analysis.comparables.length > 0) {
      const table = comparablesTable(analysis, this.#compsPerRow);
      if (table.ok) outcome.comps = this.#spool(table.grid.slice(1).map((r) => r.map((c) => c.value)));
    }
    this.#byRow.set(row, outcome);
    return outcome;
  }

  /** A row without figures: refused before sending, failed at the relay, or not reached (`stopped`). */
  failed(row: number, error: unknown, status: "failed" | "stopped" = "failed"): RowOutcome {
    const outcome: RowOutcome = {
      status,
      cells: resultBlockRow({ error }, this.#fields, status),
      warnings: [],
      error: sheetError(error).detail,
      costUSD: 0,
      analysisId: undefined,
      comps: undefined,
    };
    this.#byRow.set(row, outcome);
    return outcome;
  }

  /** The comparables of a row, as cell values in COMPARABLE_COLUMNS order. */
  comparables(outcome: RowOutcome): Cell[][] {
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

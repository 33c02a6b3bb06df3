import { findField } from "../../src/contract";
import { CellInput } from "../../src/inputs";
import { findResultBlock } from "../../src/sheet";
import { PaneError } from "../pane-error";
import { ExcelRun } from "./host";

/**
 * The analysis the selected cell is about, for the comparables viewer: the id in the cell itself (an
 * Analysis id, or a report link ending in it); the Analysis id or Report of the cell's row in a
 * screened table; or the Analysis id row of the STR.* card the cell is in.
 */
const ID_LABEL = findField("_id")?.label ?? "Analysis id";
const REPORT_LABEL = findField("url")?.label ?? "Report";

/** Rows above and below the selected cell searched for the card's Analysis id row (a card is about 50 rows). */
const CARD_REACH = 80;

export interface SelectedAnalysis {
  id: string;
  /** Where it was found, for the pane to say ("Sheet1!H7"). */
  where: string;
}

export async function analysisAtSelection(run: ExcelRun): Promise<SelectedAnalysis> {
  return run(async (context) => {
    const cell = context.workbook.getSelectedRange().getCell(0, 0);
    cell.load("rowIndex,columnIndex,values,address");
    const sheet = cell.worksheet;
    sheet.load("name");
    const used = sheet.getUsedRangeOrNullObject(true);
    used.load("rowIndex,columnIndex,values");
    await context.sync();
    const values = used.isNullObject ? [] : (used.values as CellInput[][]);
    const at = {
      row: cell.rowIndex - (used.isNullObject ? 0 : used.rowIndex),
      column: cell.columnIndex - (used.isNullObject ? 0 : used.columnIndex),
    };
    const id = findAnalysisId(values, at.row, at.column, (cell.values[0] as CellInput[] | undefined)?.[0]);
    if (!id) {
      throw new PaneError(
        `${cell.address} holds no analysis: select a cell with an Analysis id or a report link, a row of a screened table, or a cell of an STR.BUY (or ARB, OWNED, COHOST) card.`,
      );
    }
    return { id, where: cell.address };
  });
}

/**
 * The analysis id for the cell at (row, column) of `values` (the sheet's used range), whose own value
 * is `own`; undefined when none is found.
 */
export function findAnalysisId(
  values: readonly (readonly CellInput[])[],
  row: number,
  column: number,
  own: CellInput,
): string | undefined {
  const direct = idIn(own);
  if (direct) return direct;
  const text = (r: number, c: number) => {
    const v = values[r]?.[c];
    return typeof v === "string" ? v.trim() : "";
  };

  // A screened table: the nearest result block header above the row.
  for (let r = row - 1; r >= 0; r--) {
    const block = findResultBlock(values[r] ?? []);
    if (!block) continue;
    for (let c = block.start; c < block.start + block.width; c++) {
      const label = text(r, c);
      if (label === ID_LABEL || label === REPORT_LABEL) {
        const id = idIn(values[row]?.[c]);
        if (id) return id;
      }
    }
    break;
  }

  // A card: the "Analysis id" label in the cell's column or the one left of it, value to its right.
  for (const c of [column - 1, column]) {
    if (c < 0) continue;
    for (let d = 0; d <= CARD_REACH; d++) {
      for (const r of d === 0 ? [row] : [row - d, row + d]) {
        if (r < 0 || r >= values.length || text(r, c) !== ID_LABEL) continue;
        const id = idIn(values[r]?.[c + 1]);
        if (id) return id;
      }
    }
  }
  return undefined;
}

const ID = /^[A-Za-z0-9_-]{6,128}$/;

/** An id in a cell: the id itself (with a digit in it, so a word such as "Cached" is not one), or a report link's last segment. */
function idIn(value: CellInput): string | undefined {
  if (typeof value !== "string") return undefined;
  const v = value.trim();
  const report = /^https?:\/\/\S+\/reports?\/([A-Za-z0-9_-]{1,128})\/?(?:[?#]\S*)?$/i.exec(v);
  if (report) return report[1];
  return ID.test(v) && /\d/.test(v) ? v : undefined;
}

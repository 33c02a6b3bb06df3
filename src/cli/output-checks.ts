import fs from "node:fs";
import path from "node:path";
import { UsageError } from "./args";
import { REPORT_SHEETS, firstRowOf, isReportSheet } from "./report-sheets";
import { InputTable } from "./table-reader";

/*
 * Checks made before anything is sent or spent, so a run never pays for results it cannot write:
 * where OUT goes, whether it is the input itself (an in-place refresh), and that a refresh would
 * neither overwrite a sheet of the user's nor drop parts of the workbook the writer cannot keep.
 */

/** Parts of a workbook exceljs does not carry over when it rewrites one. */
const UNKEPT_PARTS: readonly [string, string][] = [
  ["xl/charts/", "charts"],
  ["xl/pivotTables/", "pivot tables"],
  ["xl/slicers/", "slicers"],
  ["xl/timelines/", "timelines"],
  ["xl/model/", "a data model"],
];

export function isSameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const [x, y] = [real(a), real(b)];
  // Windows and macOS file names ignore case by default.
  return process.platform === "win32" || process.platform === "darwin" ? x.toLowerCase() === y.toLowerCase() : x === y;
}

export function checkOutput(out: string, table: InputTable, options: { force: boolean }): { inPlace: boolean } {
  const inPlace = isSameFile(out, table.file);
  if (inPlace && table.format === "csv") {
    throw new UsageError(
      `--out ${JSON.stringify(out)} is the input CSV: write the results to another file (a CSV is not refreshed in place; an .xlsx workbook is)`,
    );
  }
  const dir = path.dirname(path.resolve(out));
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    throw new UsageError(`--out ${JSON.stringify(out)}: the folder ${dir} does not exist or cannot be written`);
  }
  if (fs.existsSync(out)) {
    try {
      fs.accessSync(out, fs.constants.W_OK);
    } catch {
      throw new UsageError(`--out ${JSON.stringify(out)} exists and cannot be written (read-only?)`);
    }
    // A scheduled run replaces last night's results on purpose; a typo must not replace someone's workbook.
    if (!inPlace && !options.force)
      throw new UsageError(`--out ${JSON.stringify(out)} exists: add --force to replace it`);
  }
  if ((REPORT_SHEETS as readonly string[]).includes(table.sheetName)) {
    throw new UsageError(
      `the sheet to screen is named ${JSON.stringify(table.sheetName)}, a name str-screen writes its report under (${REPORT_SHEETS.join(", ")}): rename it`,
    );
  }
  if (!inPlace) return { inPlace };

  // Sheets under the names str-screen used before ("Summary"…) are the user's unless their first row is ours: left alone either way here.
  for (const name of REPORT_SHEETS) {
    const sheet = table.workbook?.getWorksheet(name);
    if (!sheet) continue;
    if (!isReportSheet(name, firstRowOf(sheet))) {
      throw new UsageError(
        `${path.basename(out)} has a sheet named ${JSON.stringify(name)} that str-screen did not write; rename it, or write the results to another file with --out (str-screen writes its report in sheets named ${REPORT_SHEETS.join(", ")})`,
      );
    }
  }
  const bytes = fs.readFileSync(table.file);
  // Part names are stored uncompressed in a zip's directory, so a byte search finds them.
  const lost = UNKEPT_PARTS.filter(([part]) => bytes.includes(part)).map(([, what]) => what);
  if (lost.length > 0) {
    throw new UsageError(
      `${path.basename(out)} has ${lost.join(" and ")}, which a refresh in place cannot keep: write the results to another file with --out, and link to it`,
    );
  }
  return { inPlace };
}

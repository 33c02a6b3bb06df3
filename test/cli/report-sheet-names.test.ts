import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { MESSY_XLSX, readWorkbook, screen, sheet, summaryOf, tempDir, testEnv } from "./support";

/**
 * The report sheets carry an "STR " prefix, so a user's own "Summary" never blocks an in-place
 * refresh; a workbook screened when they were named Comparables, Warnings and Summary still
 * refreshes, its old report sheets replaced and nothing of the user's touched.
 */
describe("report sheet names", () => {
  const dir = tempDir();
  const env = testEnv(path.join(dir, "data"));

  test("a user's own Summary sheet is kept and does not block an in-place refresh", async () => {
    const file = path.join(dir, "own-summary.xlsx");
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(MESSY_XLSX);
    book.addWorksheet("Summary").getCell("A1").value = "My own summary";
    await book.xlsx.writeFile(file);

    const r = await screen([file, "--out", file], env);
    expect(r.code).toBe(1); // the messy fixture has bad rows
    const after = await readWorkbook(file);
    expect(after.worksheets.map((w) => w.name)).toEqual([
      "Portfolio",
      "Assumptions",
      "Summary",
      "STR Comparables",
      "STR Monthly",
      "STR Warnings",
      "STR Summary",
    ]);
    expect(sheet(after, "Summary").getCell("A1").value).toBe("My own summary");
    expect(summaryOf(after)).toMatchObject({ Output: "own-summary.xlsx (refreshed in place)" });
  }, 60_000);

  test("a workbook screened under the old names refreshes in place: its old report sheets are replaced", async () => {
    const file = path.join(dir, "older.xlsx");
    fs.copyFileSync(MESSY_XLSX, file);
    expect((await screen([file, "--out", file], env)).code).toBe(1);
    // As an earlier version wrote it: the same sheets under their old names.
    const older = await readWorkbook(file);
    for (const name of ["Comparables", "Warnings", "Summary"]) sheet(older, `STR ${name}`).name = name;
    await older.xlsx.writeFile(file);

    const r = await screen([file, "--out", file], env);
    expect(r.code).toBe(1);
    const after = await readWorkbook(file);
    expect(after.worksheets.map((w) => w.name)).toEqual([
      "Portfolio",
      "Assumptions",
      "STR Comparables",
      "STR Monthly",
      "STR Warnings",
      "STR Summary",
    ]);
    expect(summaryOf(after)).toMatchObject({ Created: 0, "Cost (USD)": 0 });
  }, 60_000);
});

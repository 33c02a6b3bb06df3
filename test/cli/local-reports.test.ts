import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { MESSY_CSV, columnOf, readWorkbook, screen, sheet, tempDir, testEnv } from "./support";

/**
 * A run on str-screen's own sandbox relay: that relay stops with the run, so no cell may link to it.
 * Reports are kept as HTML files beside the workbook and linked there; listings say why they are not linked.
 */
describe("report links of a run on str-screen's own sandbox relay", () => {
  const dir = tempDir();
  const out = path.join(dir, "deals.xlsx");
  let book: ExcelJS.Workbook;

  beforeAll(async () => {
    expect((await screen([MESSY_CSV, "--out", out], testEnv(dir))).code).toBe(1);
    book = await readWorkbook(out);
  });

  test("each report link opens an HTML file beside the workbook, which shows that row's simulated analysis", () => {
    const ws = sheet(book, "Screening");
    const reportColumn = columnOf(ws, 1, "Report");
    const idColumn = columnOf(ws, 1, "Analysis id");
    let linked = 0;
    for (let r = 2; r <= ws.rowCount; r++) {
      const id = ws.getRow(r).getCell(idColumn).value;
      if (typeof id !== "string" || id === "") continue;
      const link = ws.getRow(r).getCell(reportColumn).value as ExcelJS.CellHyperlinkValue;
      expect(link).toEqual({ text: `deals-reports/${id}.html`, hyperlink: `deals-reports/${id}.html` });
      const page = fs.readFileSync(path.join(dir, link.hyperlink), "utf8");
      expect(page).toContain("SIMULATED");
      expect(page).toContain(`id ${id}`);
      expect(page).toContain(String(ws.getRow(r).getCell(1).value).split(",")[0]);
      // The listings' pages went with the relay: the kept report does not link to them.
      expect(page).not.toMatch(/href="http/);
      linked++;
    }
    expect(linked).toBe(9);
  });

  test("no cell of any sheet links to the relay that is gone; listing cells say why they have no link", () => {
    const links: string[] = [];
    book.eachSheet((ws) =>
      ws.eachRow((row) =>
        row.eachCell((cell) => {
          const v = cell.value as ExcelJS.CellHyperlinkValue | null;
          if (v && typeof v === "object" && "hyperlink" in v) links.push(v.hyperlink);
        }),
      ),
    );
    expect(links.filter((l) => /^https?:/.test(l))).toEqual([]);
    const comps = sheet(book, "STR Comparables");
    expect(comps.getRow(2).getCell(columnOf(comps, 1, "Listing link")).value).toBe(
      "simulated listing: no page once the run ends",
    );
  });
});

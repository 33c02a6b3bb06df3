import fs from "node:fs";
import path from "node:path";
import JSZip from "jszip";
import { MESSY_CSV, MESSY_XLSX, screen, tempDir, testEnv } from "./support";

/**
 * Excel recalculates a workbook on opening only when its calcPr says fullCalcOnLoad: without it,
 * a user's formulas over the results (=AVERAGE over the cash-flow column) keep the values cached
 * before a refresh. Every workbook str-screen writes carries it: new (streamed) or refreshed in place.
 */
async function calcPr(file: string): Promise<string> {
  const zip = await JSZip.loadAsync(fs.readFileSync(file));
  const xml = (await zip.file("xl/workbook.xml")?.async("string")) ?? "";
  return /<calcPr\b[^>]*\/?>/.exec(xml)?.[0] ?? "(no calcPr)";
}

describe("every workbook str-screen writes is recalculated on opening", () => {
  const dir = tempDir();
  const env = testEnv(path.join(dir, "data"));

  test("a new workbook from a CSV and from a workbook", async () => {
    for (const [input, name] of [
      [MESSY_CSV, "from-csv.xlsx"],
      [MESSY_XLSX, "from-xlsx.xlsx"],
    ] as const) {
      const out = path.join(dir, name);
      await screen([input, "--out", out], env);
      expect({ name, calcPr: await calcPr(out) }).toEqual({
        name,
        calcPr: expect.stringContaining('fullCalcOnLoad="1"'),
      });
    }
  });

  test("a workbook refreshed in place, whose input did not ask for it", async () => {
    const file = path.join(dir, "portfolio.xlsx");
    fs.copyFileSync(MESSY_XLSX, file);
    expect(await calcPr(file)).not.toContain("fullCalcOnLoad");
    const r = await screen([file, "--out", file], env);
    expect(r.stdout).toContain("(refreshed in place)");
    expect(await calcPr(file)).toContain('fullCalcOnLoad="1"');
  });
});

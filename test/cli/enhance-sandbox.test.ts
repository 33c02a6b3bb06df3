import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { buyBodyWithPhotos } from "../support/relay";
import { columnOf, readWorkbook, screen, sheet, summaryOf, tempDir, testEnv } from "./support";

/*
 * `--enhance` on a workbook screened by str-screen's own sandbox relay: each run starts a new
 * embedded sandbox, and one that forgot the analyses the last run made refused every id
 * (STR_ANALYSIS_NOT_FOUND) and the rows were written blank — figures, ids, links erased. The sandbox
 * now keeps its analyses beside the relay's store, and an enhancement that fails keeps the row.
 */
describe("--enhance after a sandbox screening, run by run", () => {
  const dir = tempDir();
  const data = path.join(dir, "data");
  // AI steps that always complete: the bill is then known to the cent.
  const env = () => testEnv(data, { SANDBOX_AI_FAILURE_RATE: "0", SANDBOX_AI_TIMEOUT_RATE: "0" });

  async function screenedWorkbook(name: string, n: number): Promise<string> {
    const input = path.join(dir, `${name}.csv`);
    const rows = Array.from(
      { length: n },
      (_, i) => `"${buyBodyWithPhotos(true, i * 3).fullAddress}",${400000 + i * 1000},3,2,6`,
    );
    fs.writeFileSync(input, `Address,Price,Beds,Baths,Sleeps\n${rows.join("\n")}\n`);
    const out = path.join(dir, `${name}.xlsx`);
    const first = await screen([input, "--out", out], env());
    expect(first.code).toBe(0);
    return out;
  }

  function figures(ws: ExcelJS.Worksheet, rows: number): { id: unknown; revenue: unknown }[] {
    const id = columnOf(ws, 1, "Analysis id");
    const revenue = columnOf(ws, 1, "Annual revenue, median");
    return Array.from({ length: rows }, (_, i) => ({
      id: ws.getRow(i + 2).getCell(id).value,
      revenue: ws.getRow(i + 2).getCell(revenue).value,
    }));
  }

  test("a later run enhances the rows an earlier run screened: billed once each, figures and ids kept", async () => {
    const out = await screenedWorkbook("shortlist", 3);
    const before = figures(sheet(await readWorkbook(out), "Screening"), 3);
    for (const row of before) expect(typeof row.revenue).toBe("number");

    const run = await screen([out, "--out", out, "--enhance", "comps"], env());
    expect(run.stderr).not.toMatch(/STR_ANALYSIS_NOT_FOUND/);
    expect(run.code).toBe(0);
    const book = await readWorkbook(out);
    const after = figures(sheet(book, "Screening"), 3);
    expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
    for (const row of after) expect(typeof row.revenue).toBe("number");
    expect(summaryOf(book)).toMatchObject({ Created: 3, "Cost (USD)": 0.3 });
  }, 60_000);

  test("an id the service does not know: the row keeps its figures and id, and says why", async () => {
    const out = await screenedWorkbook("unknown", 2);
    const book = await readWorkbook(out);
    const ws = sheet(book, "Screening");
    const before = figures(ws, 2);
    // An analysis of another account, say: a well-formed id the service has never made for this key.
    const stranger = "f".repeat(24);
    ws.getRow(3).getCell(columnOf(ws, 1, "Analysis id")).value = stranger;
    await book.xlsx.writeFile(out);

    const run = await screen([out, "--out", out, "--enhance", "comps"], env());
    expect(run.code).toBe(1);
    const after = sheet(await readWorkbook(out), "Screening");
    const row3 = figures(after, 2)[1];
    expect(row3).toEqual({ id: stranger, revenue: before[1]?.revenue });
    expect(String(after.getRow(3).getCell(columnOf(after, 1, /^Warnings/)).value)).toMatch(
      /Not enhanced, figures kept \(enhance it again to retry\): .*STR_ANALYSIS_NOT_FOUND/,
    );
  }, 60_000);
});

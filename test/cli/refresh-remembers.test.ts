import path from "node:path";
import ExcelJS from "exceljs";
import { readWorkbook, screen, sheet, summaryOf, tempDir, testEnv } from "./support";

/**
 * An in-place refresh screens rows the way the earlier run did: its strategy (and decimal mark)
 * travel with the results in the STR Summary sheet, so a refresh without --strategy is not
 * re-screened as buy and billed again; a different --strategy needs --change-strategy.
 */
describe("a refresh remembers how the workbook was screened", () => {
  const dir = tempDir();
  const env = testEnv(path.join(dir, "data"));

  async function screenedAsCohost(name: string): Promise<string> {
    const input = path.join(dir, `${name}-in.xlsx`);
    const book = new ExcelJS.Workbook();
    const ws = book.addWorksheet("Deals");
    ws.addRow(["Address", "Price", "Beds", "Baths", "Sleeps"]);
    ws.addRow(["1 Cohost St, Austin TX", 450000, 3, 2, 6]);
    ws.addRow(["2 Cohost St, Austin TX", 380000, 2, 1, 4]);
    await book.xlsx.writeFile(input);
    const out = path.join(dir, `${name}.xlsx`);
    const first = await screen([input, "--out", out, "--strategy", "cohost"], env);
    expect(first.code).toBe(0);
    return out;
  }

  test("refreshed in place without --strategy: the rows stay cohost, come from the cache, nothing billed", async () => {
    const file = await screenedAsCohost("kept");
    const dry = await screen([file, "--dry-run"], env);
    expect(dry.stderr).toMatch(/Screened before with --strategy cohost: kept/);
    expect(dry.stdout).toMatch(/Cached\s+2/);
    expect(dry.stdout).toMatch(/To create\s+0/);

    const again = await screen([file, "--out", file], env);
    expect(again.code).toBe(0);
    const summary = summaryOf(await readWorkbook(file));
    expect(summary).toMatchObject({ Strategy: "cohost", Created: 0, Cached: 2, "Cost (USD)": 0 });
    expect(JSON.parse(String(summary["Screened with"]))).toEqual(["--strategy", "cohost"]);
  }, 60_000);

  test("a different --strategy is refused unless confirmed with --change-strategy", async () => {
    const file = await screenedAsCohost("changed");
    const refused = await screen([file, "--out", file, "--strategy", "buy"], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/screened with --strategy cohost.*--change-strategy/);

    const confirmed = await screen([file, "--out", file, "--strategy", "buy", "--change-strategy"], env);
    expect(confirmed.code).toBe(0);
    expect(summaryOf(await readWorkbook(file))).toMatchObject({ Strategy: "buy", Created: 2 });
  }, 60_000);

  test("an older workbook (Summary sheet, no settings row) is read by its Strategy row", async () => {
    const file = await screenedAsCohost("older");
    const book = await readWorkbook(file);
    const summary = sheet(book, "STR Summary");
    summary.name = "Summary";
    summary.eachRow((row) => {
      if (row.getCell(1).value === "Screened with") row.values = [];
    });
    await book.xlsx.writeFile(file);
    const dry = await screen([file, "--dry-run"], env);
    expect(dry.stderr).toMatch(/Screened before with --strategy cohost: kept/);
    expect(dry.stdout).toMatch(/To create\s+0/);
  }, 60_000);
});

import { recognizeColumns } from "../../src/inputs";
import { workbookNumberStyle } from "../../taskpane/excel/number-style";
import { ExcelRun } from "../../taskpane/excel/host";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { planScreening } from "../../taskpane/screen";
import { installFakeExcel } from "../support/fake-excel";

/** The pane reads text numbers by the workbook's own decimal mark, and refuses them when Excel cannot say it. */
function cultureRun(decimalMark: string): { run: ExcelRun; calls: () => number } {
  const excel = installFakeExcel({ sheets: [{ name: "Sheet1", rows: [] }], decimalSeparator: decimalMark });
  return { run: excel.run, calls: () => excel.runs };
}

describe("the workbook's decimal mark", () => {
  test.each([
    [",", "comma"],
    [".", "point"],
  ])("Excel's culture says %p → %p", async (mark, style) => {
    expect(await workbookNumberStyle(cultureRun(mark).run, () => true)).toBe(style);
  });

  test("a host without ExcelApi 1.11 cannot say: unknown, and Excel is not asked", async () => {
    const excel = cultureRun(",");
    expect(await workbookNumberStyle(excel.run, () => false)).toBe("unknown");
    expect(excel.calls()).toBe(0);
  });

  test("a German workbook's text 450.000 is sent as 450,000; with no known convention the row is refused with both readings", async () => {
    const grid = [
      ["Address", "Price", "Beds", "Baths", "Sleeps"],
      ["1 Main St, Austin TX", "450.000", 3, "1,5", 6],
      ["2 Main St, Austin TX", 450000, 3, 2, 6],
    ];
    const wb = installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
    const table = await readSelectedTable(wb.run);
    const mapping = recognizeColumns(table.headers);
    const numbers = await workbookNumberStyle(cultureRun(",").run, () => true);
    const german = planScreening(table, mapping, { strategy: "buy", numbers });
    expect(german.items.map((i) => i.params)).toMatchObject([
      { purchasePriceUSD: 450000, bathrooms: 1.5 },
      { purchasePriceUSD: 450000, bathrooms: 2 },
    ]);

    const unknown = planScreening(table, mapping, { strategy: "buy", numbers: "unknown" });
    const row = unknown.rows[0];
    expect(row?.kind).toBe("invalid");
    if (row?.kind !== "invalid") return;
    expect(row.sheetRow).toBe(1);
    expect(row.issues.map((i) => [i.path, i.message])).toEqual([
      ["Price", expect.stringMatching(/"450\.000" could mean 450 or 450000/)],
      ["Baths", expect.stringMatching(/"1,5" could mean 1\.5 or 15/)],
    ]);
    // The row holding numbers Excel keeps as numbers is sent either way.
    expect(unknown.items.map((i) => i.params)).toMatchObject([{ purchasePriceUSD: 450000 }]);
  });
});

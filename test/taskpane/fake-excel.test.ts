import { installFakeExcel } from "../support/fake-excel";

/**
 * The tests' stand-in for Excel behaves as office.js does where the pane's tests rely on it: a
 * property read before it was loaded and synced throws, writes reach the sheet at the sync, every
 * sync and every range handed out is counted.
 */
const seed = () => ({
  sheets: [
    {
      name: "Deals",
      rows: [
        ["Address", "Price"],
        ["1 Main St", 400000],
        ["2 Main St", "=B2*1.1"],
      ],
    },
    { name: "Empty", rows: [] },
  ],
  selection: { row: 1, column: 0 },
});

describe("the fake Excel", () => {
  test("a property read before load and sync throws PropertyNotLoaded, as office.js does; loaded, it reads the sheet as of that sync", async () => {
    const excel = installFakeExcel(seed());
    await excel.run(async (context) => {
      const range = context.workbook.worksheets.getItem("Deals").getRangeByIndexes(1, 0, 2, 2);
      expect(() => range.values).toThrow(
        expect.objectContaining({
          name: "RichApi.Error",
          code: "PropertyNotLoaded",
          message: expect.stringMatching(/'values'/),
        }),
      );
      range.load("values,rowCount");
      expect(() => range.values).toThrow(/not available/);
      excel.type("Deals", 1, 1, 410000);
      await context.sync();
      expect(range.values).toEqual([
        ["1 Main St", 410000],
        ["2 Main St", 0],
      ]);
      expect(range.rowCount).toBe(2);
      // Loaded once, not again: a later change is not seen without another load and sync.
      expect(() => range.formulas).toThrow(/'formulas'/);
      const sheet = context.workbook.getSelectedRange().worksheet;
      expect(() => sheet.name).toThrow(/'name'/);
      expect(() => context.workbook.worksheets.items).toThrow(/'items'/);
    });
  });

  test("formulas read as written, their values as 0; an empty sheet's used range is a null object", async () => {
    const excel = installFakeExcel(seed());
    await excel.run(async (context) => {
      const used = context.workbook.worksheets.getItem("Deals").getUsedRangeOrNullObject(true);
      const empty = context.workbook.worksheets.getItem("Empty").getUsedRangeOrNullObject(true);
      expect(() => empty.isNullObject).toThrow(/'isNullObject'/);
      used.load("address,formulas");
      empty.load("address");
      await context.sync();
      expect(used.address).toBe("Deals!A1:B3");
      expect(used.formulas[2]).toEqual(["2 Main St", "=B2*1.1"]);
      expect([used.isNullObject, empty.isNullObject]).toEqual([false, true]);
    });
  });

  test("writes reach the sheet at the sync, each logged with its sync; ranges handed out are logged with the syncs before them", async () => {
    const excel = installFakeExcel(seed());
    await excel.run(async (context) => {
      const sheet = context.workbook.worksheets.getItem("{Deals}");
      const range = sheet.getRangeByIndexes(0, 2, 2, 1);
      range.numberFormat = [["@"], ["$#,##0"]];
      range.values = [["Note"], ["'=not a formula"]];
      range.format.font.bold = true;
      // Set by the add-in: readable back at once, as office.js keeps it; the sheet is unchanged.
      expect(range.values).toEqual([["Note"], ["'=not a formula"]]);
      expect(excel.values("Deals")[0]).toEqual(["Address", "Price"]);
      await context.sync();
      sheet.getRangeByIndexes(3, 0, 1, 1).values = [['=HYPERLINK("https://x.example")']];
      await context.sync();
    });
    expect(excel.syncs).toBe(2);
    expect(excel.runs).toBe(1);
    expect(excel.values("Deals")).toEqual([
      ["Address", "Price", "Note"],
      ["1 Main St", 400000, "=not a formula"],
      ["2 Main St", 0, ""],
      ["https://x.example", "", ""],
    ]);
    expect(excel.formats("Deals")[1]?.[2]).toBe("$#,##0");
    expect(excel.formula("Deals", 3, 0)).toBe('=HYPERLINK("https://x.example")');
    expect(excel.writes.map((w) => [w.kind, w.sync, w.row])).toEqual([
      ["numberFormat", 1, 0],
      ["values", 1, 0],
      ["values", 2, 3],
    ]);
    expect(excel.ranges).toEqual([
      {
        sheet: "Deals",
        row: 0,
        column: 2,
        rows: 2,
        columns: 1,
        before: 0,
        numberFormat: [["@"], ["$#,##0"]],
        values: [["Note"], ["'=not a formula"]],
        bold: true,
      },
      {
        sheet: "Deals",
        row: 3,
        column: 0,
        rows: 1,
        columns: 1,
        before: 1,
        values: [['=HYPERLINK("https://x.example")']],
      },
    ]);
  });

  test("a write of the wrong shape fails the sync, as Excel refuses it", async () => {
    const excel = installFakeExcel(seed());
    await expect(
      excel.run(async (context) => {
        context.workbook.worksheets.getItem("Deals").getRangeByIndexes(0, 0, 2, 2).values = [["one row"]];
        await context.sync();
      }),
    ).rejects.toThrow(/InvalidArgument/);
  });

  test("sheets added and listed, tables seeded and found from the selection, recalculation heard at its sync", async () => {
    const heard: string[] = [];
    const excel = installFakeExcel(
      { ...seed(), tables: [{ name: "Deals", row: 0, column: 0, rows: 3, columns: 2, showTotals: true }] },
      { onCalculate: (address) => heard.push(address) },
    );
    await excel.run(async (context) => {
      const sheets = context.workbook.worksheets;
      sheets.load("items/name");
      const tables = context.workbook.getSelectedRange().getTables(false);
      tables.load("items");
      await context.sync();
      expect(sheets.items.map((s: { name: string }) => s.name)).toEqual(["Deals", "Empty"]);
      expect(tables.items.map((t: { name: string; showTotals: boolean }) => [t.name, t.showTotals])).toEqual([
        ["Deals", true],
      ]);
      const added = sheets.add("Comps");
      added.tables.add(added.getRangeByIndexes(0, 0, 2, 2), true);
      sheets.getItem("Deals").getRangeByIndexes(1, 0, 2, 2).calculate();
      expect(heard).toEqual([]);
      await context.sync();
    });
    expect(excel.sheetNames()).toEqual(["Deals", "Empty", "Comps"]);
    expect(excel.tables).toEqual([{ sheet: "Comps", row: 0, column: 0, rows: 2, columns: 2, hasHeaders: true }]);
    expect(heard).toEqual(["Deals!A2:B3"]);
    expect(excel.calculated).toEqual(["Deals!A2:B3"]);
  });

  test("the workbook's decimal mark, once loaded", async () => {
    const excel = installFakeExcel({ ...seed(), decimalSeparator: "," });
    await excel.run(async (context) => {
      const format = context.application.cultureInfo.numberFormat;
      expect(() => format.numberDecimalSeparator).toThrow(/not available/);
      format.load("numberDecimalSeparator");
      await context.sync();
      expect(format.numberDecimalSeparator).toBe(",");
    });
  });
});

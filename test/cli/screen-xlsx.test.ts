import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { MESSY_XLSX, columnOf, readWorkbook, rowValues, screen, sheet, summaryOf, tempDir, testEnv } from "./support";

/**
 * The workbook twin of the messy portfolio (test/fixtures/portfolio-messy.xlsx, made by
 * make-portfolio-xlsx.ts): a title above the header, formatted numbers, a formula, rich text, a
 * hyperlink, an error value, a date, lat/lng columns, and an Assumptions sheet of the user's.
 */
describe("screening an .xlsx portfolio into a new workbook", () => {
  const dir = tempDir();
  const env = testEnv(path.join(dir, "data"));

  test("finds the header under the title, reads every kind of cell, and copies the input with its formats", async () => {
    const out = path.join(dir, "new.xlsx");
    const r = await screen([MESSY_XLSX, "--out", out], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('portfolio-messy.xlsx (sheet "Portfolio"), header in row 3');
    const book = await readWorkbook(out);
    expect(book.worksheets.map((w) => w.name)).toEqual([
      "Portfolio",
      "STR Comparables",
      "STR Monthly",
      "STR Warnings",
      "STR Summary",
    ]);
    const ws = sheet(book, "Portfolio");
    expect(ws.getCell("A1").value).toBe("My STR portfolio — Q3 review");
    expect(ws.views[0]).toMatchObject({ state: "frozen", ySplit: 3 });
    const status = columnOf(ws, 3, "STR status");
    expect(status).toBe(13);
    // Formula result, rich text and hyperlink text are read as values; formats travel with them.
    expect(rowValues(ws, 5).slice(0, 5)).toEqual(["88 Ocean Dr, Miami Beach, FL", null, null, "buy", 1200000]);
    expect(ws.getCell("E4").numFmt).toBe("$#,##0");
    expect(ws.getCell("J4").value).toBe(0.065);
    expect(ws.getCell("J4").numFmt).toBe("0.0%");
    expect(ws.getCell("K4").value).toBeInstanceOf(Date);
    for (const r of [4, 5, 6, 7, 10, 11]) expect([r, ws.getRow(r).getCell(status).value]).toEqual([r, "Created"]);
    // The error value and the missing bedrooms mark their rows.
    expect(ws.getRow(9).getCell(status).value).toBe("Failed");
    expect(ws.getRow(9).getCell(columnOf(ws, 3, /^Warnings/)).value).toMatch(
      /Purchase Price must be an amount .* got "#N\/A"/,
    );
    expect(ws.getRow(12).getCell(columnOf(ws, 3, /^Warnings/)).value).toBe("✖ [STR_VALIDATION] Bedrooms is required");
    expect(ws.getRow(8).getCell(status).value).toBeNull();
    expect(summaryOf(book)).toMatchObject({ Sheet: "Portfolio", Rows: 8, Done: 6, Failed: 2, Blank: 1 });
  });

  test("--sheet names the sheet to screen; a missing one is a usage error listing the sheets", async () => {
    const wrong = await screen([MESSY_XLSX, "--sheet", "Deals", "--dry-run"], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '--sheet "Deals" is not a sheet of portfolio-messy.xlsx; its sheets: "Portfolio", "Assumptions"',
    );
    const none = await screen([MESSY_XLSX, "--sheet", "Assumptions", "--dry-run"], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no column holds the location/);
    const right = await screen([MESSY_XLSX, "--sheet", "portfolio", "--dry-run"], env);
    expect(right.stdout).toMatch(/Dry run of portfolio-messy.xlsx \(sheet "Portfolio"\)/);
  });
});

describe("refreshing a portfolio workbook in place", () => {
  const dir = tempDir();
  const env = testEnv(path.join(dir, "data"));
  const file = path.join(dir, "portfolio.xlsx");

  beforeAll(() => fs.copyFileSync(MESSY_XLSX, file));

  test("writes the results into the workbook and keeps the user's other sheets", async () => {
    const r = await screen([file, "--out", file], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("(refreshed in place)");
    const book = await readWorkbook(file);
    expect(book.worksheets.map((w) => w.name)).toEqual([
      "Portfolio",
      "Assumptions",
      "STR Comparables",
      "STR Monthly",
      "STR Warnings",
      "STR Summary",
    ]);
    const other = sheet(book, "Assumptions");
    expect(other.getCell("B1").value).toBe(0.08);
    expect(other.getCell("B1").numFmt).toBe("0.0%");
    expect(other.getCell("B2").value).toBe("kept across refreshes");
    expect(other.getCell("B3").value).toMatchObject({ formula: "COUNTA(Portfolio!A4:A12)" });
    const ws = sheet(book, "Portfolio");
    expect(ws.getCell("A1").font?.size).toBe(14);
    expect(ws.getCell("A5").value).toMatchObject({ richText: expect.any(Array) });
    expect(ws.getCell("E5").value).toMatchObject({ formula: "1000000+200000" });
    expect(ws.getCell("A7").value).toMatchObject({ hyperlink: "https://maps.example.com/5-elm-st" });
    expect(ws.getRow(4).getCell(columnOf(ws, 3, "STR status")).value).toBe("Created");
  });

  test("a refresh replaces the earlier results, and moves the user's columns after them rather than overwrite them", async () => {
    let book = await readWorkbook(file);
    let ws = sheet(book, "Portfolio");
    const after = ws.getRow(3).cellCount + 1;
    ws.getRow(3).getCell(after).value = "My score";
    ws.getRow(4).getCell(after).value = 7;
    await book.xlsx.writeFile(file);

    const r = await screen(
      [
        file,
        "--out",
        file,
        "--fields",
        "revenue.p50, adr.p50, occupancy.p50, yearOneCashFlowUSD, Cap rate, Cash-on-cash return, totalCashInvestment, ltrPerMonthUSD, url, _id, currency",
      ],
      env,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/earlier results in columns M–AA are replaced/);
    book = await readWorkbook(file);
    ws = sheet(book, "Portfolio");
    const header = rowValues(ws, 3);
    expect(header.filter((h) => h === "STR status")).toHaveLength(1);
    expect(header.filter((h) => typeof h === "string" && h.startsWith("Warnings"))).toHaveLength(1);
    expect(header.slice(12, 16)).toEqual([
      "STR status",
      "STR fetched",
      "Annual revenue, median",
      "Nightly rate, median",
    ]);
    const score = columnOf(ws, 3, "My score");
    expect(score).toBe(columnOf(ws, 3, /^Warnings/) + 1);
    expect(ws.getRow(4).getCell(score).value).toBe(7);
    expect(ws.getRow(4).getCell(columnOf(ws, 3, "STR status")).value).toBe("Cached");
    expect(book.worksheets.map((w) => w.name)).toEqual([
      "Portfolio",
      "Assumptions",
      "STR Comparables",
      "STR Monthly",
      "STR Warnings",
      "STR Summary",
    ]);
    expect(summaryOf(book)).toMatchObject({
      Created: 0,
      Cached: 6,
      "Cost (USD)": 0,
      Output: "portfolio.xlsx (refreshed in place)",
    });
  });

  test("a narrower refresh leaves no stale result cells behind", async () => {
    const r = await screen([file, "--out", file, "--fields", "revenue.p50"], env);
    expect(r.code).toBe(1);
    const ws = sheet(await readWorkbook(file), "Portfolio");
    expect(rowValues(ws, 3).slice(12)).toEqual([
      "STR status",
      "STR fetched",
      "Annual revenue, median",
      "Warnings (sandbox: simulated data)",
      "My score",
    ]);
    expect(rowValues(ws, 4).slice(12, 14)).toEqual(["Cached", expect.any(Date)]);
    expect(rowValues(ws, 4)[16]).toBe(7);
  });

  test("a refresh without --fields writes the columns the workbook already has", async () => {
    const r = await screen([file, "--out", file], env);
    expect(r.code).toBe(1);
    const ws = sheet(await readWorkbook(file), "Portfolio");
    expect(rowValues(ws, 3).slice(12)).toEqual([
      "STR status",
      "STR fetched",
      "Annual revenue, median",
      "Warnings (sandbox: simulated data)",
      "My score",
    ]);
  });

  test("a sheet named like a report sheet that str-screen did not write is never overwritten: usage error, file untouched", async () => {
    const mine = path.join(dir, "mine.xlsx");
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(MESSY_XLSX);
    book.addWorksheet("STR Summary").getCell("A1").value = "My own summary";
    await book.xlsx.writeFile(mine);
    const before = fs.readFileSync(mine);
    const r = await screen([mine, "--out", mine], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has a sheet named "STR Summary" that str-screen did not write/);
    expect(fs.readFileSync(mine).equals(before)).toBe(true);
  });
});

import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { DEFAULT_COMPS } from "../../src/cli/args";
import {
  MESSY_CSV,
  Ran,
  columnOf,
  readWorkbook,
  rowValues,
  screen,
  sheet,
  summaryOf,
  tempDir,
  testEnv,
} from "./support";

/**
 * The messy sample portfolio (test/fixtures/portfolio-messy.csv) screened end to end on the
 * in-process sandbox relay: a BOM, CRLF, a quoted multi-line note, currency strings, "1.2M" and
 * "$480k", odd headers, extra columns, a per-row strategy column, lat/lng in the address column,
 * blank rows, a duplicate row, and four bad rows.
 */
describe("screening the messy CSV portfolio", () => {
  const dir = tempDir();
  const env = testEnv(path.join(dir, "data"));
  const out = path.join(dir, "out.xlsx");
  let first: Ran;
  let book: ExcelJS.Workbook;
  let ws: ExcelJS.Worksheet;

  beforeAll(async () => {
    first = await screen([MESSY_CSV, "--out", out], env);
    book = await readWorkbook(out);
    ws = sheet(book, "Screening");
  });

  test("exits 1 because some rows failed, and says what it did", () => {
    expect(first.code).toBe(1);
    expect(first.stdout).toContain(
      "Done: 9 of 13 rows screened (8 created, 0 cached, 1 duplicate), 4 failed, 9 with warnings, 2 blank.",
    );
    expect(first.stdout).toMatch(/Cost: \$1\.70 \(sandbox/);
    expect(first.stderr).toContain('"List Price ($)" → Price');
    expect(first.stderr).toMatch(/not used: "Notes", "Agent"/);
    expect(first.stderr).toMatch(/row 7: \[STR_VALIDATION\] List Price \(\$\) must be an amount/);
  });

  test("STR Monthly: twelve months of each analysed row, in calendar order, with its warnings", () => {
    const ws = sheet(book, "STR Monthly");
    expect(rowValues(ws, 1)).toEqual([
      "Row",
      "Property",
      "Strategy",
      "Analysis id",
      "Month",
      "Nightly rate",
      "Occupancy",
      "Revenue",
      "Warnings",
    ]);
    const rows = Array.from({ length: ws.rowCount - 1 }, (_, k) => rowValues(ws, k + 2));
    const first = rows.filter((r) => r[0] === 2);
    expect(first).toHaveLength(12);
    expect(first[0]?.slice(1, 3)).toEqual(["12 Main St, Austin TX", "buy"]);
    expect(first.map((r) => r[4])).toEqual([
      "Jan",
      "Feb",
      "Mar",
      "Apr",
      "May",
      "Jun",
      "Jul",
      "Aug",
      "Sep",
      "Oct",
      "Nov",
      "Dec",
    ]);
    for (const r of first) {
      expect(typeof r[5]).toBe("number");
      expect(r[6] as number).toBeGreaterThan(0);
      expect(r[6] as number).toBeLessThan(1);
      expect(typeof r[7]).toBe("number");
      expect(r[8]).toMatch(/SANDBOX/);
    }
    expect(ws.getRow(2).getCell(7).numFmt).toBe("0.0%");
    expect(ws.getRow(2).getCell(8).numFmt).toBe("$#,##0");
    // Every created row has its months; failed rows have none.
    expect(new Set(rows.map((r) => r[0])).size).toBe(9);
    expect(rows.filter((r) => r[0] === 7)).toEqual([]);
  });

  test("writes the input sheet, then Comparables, Warnings and Summary", () => {
    expect(book.worksheets.map((w) => w.name)).toEqual([
      "Screening",
      "STR Comparables",
      "STR Monthly",
      "STR Warnings",
      "STR Summary",
    ]);
  });

  test("keeps the input columns as they were, then the results under a bold header", () => {
    const header = rowValues(ws, 1);
    expect(header.slice(0, 15)).toEqual([
      "Property Address",
      "List Price ($)",
      "Beds",
      "Baths #",
      "Sleeps",
      "Deal Type",
      "Monthly Rent",
      "Interest Rate (%)",
      "Down Payment",
      "Loan Term",
      "Years Left",
      "Management Fee (%)",
      "AI Comps",
      "Notes",
      "Agent",
    ]);
    expect(header.slice(15)).toEqual([
      "STR status",
      "STR fetched",
      "Annual revenue, median",
      "Nightly rate, median",
      "Occupancy, median",
      // A mixed table: every strategy's own columns, blank where a strategy has no such figure.
      "Monthly rent",
      "Year-one cash flow",
      "Cash-on-cash return",
      "Cap rate",
      "Total cash invested",
      "Co-host commission",
      "Host return",
      "Report",
      "Analysis id",
      "Warnings (sandbox: simulated data)",
    ]);
    expect(ws.getRow(1).getCell(16).font?.bold).toBe(true);
    expect(rowValues(ws, 2).slice(0, 5)).toEqual(["12 Main St, Austin TX", "$415,000", 3, 2, 8]);
    expect(ws.getRow(3).getCell(14).value).toBe("great view\nneeds roof");
  });

  test("results are numbers with currency and percent formats, and the report is a link", () => {
    const row = ws.getRow(2);
    expect(row.getCell(columnOf(ws, 1, "STR status")).value).toBe("Created");
    const revenue = row.getCell(columnOf(ws, 1, "Annual revenue, median"));
    expect(typeof revenue.value).toBe("number");
    expect(revenue.numFmt).toBe("$#,##0");
    const occupancy = row.getCell(columnOf(ws, 1, "Occupancy, median"));
    expect(occupancy.numFmt).toBe("0.0%");
    expect(occupancy.value as number).toBeGreaterThan(0);
    expect(occupancy.value as number).toBeLessThan(1);
    const coc = row.getCell(columnOf(ws, 1, "Cash-on-cash return"));
    // A return below zero shows red, as an analyst formats it by hand.
    expect(coc.numFmt).toBe("0.0%;[Red]-0.0%");
    expect(row.getCell(columnOf(ws, 1, "STR fetched")).numFmt).toBe("yyyy-mm-dd hh:mm");
    const report = row.getCell(columnOf(ws, 1, "Report")).value as ExcelJS.CellHyperlinkValue;
    // str-screen's own sandbox relay is gone after the run: the report is kept beside the workbook (local-reports.test.ts).
    expect(report.hyperlink).toMatch(/^out-reports\/\w+\.html$/);
    // Simulated figures say so in the row itself, so a row copied elsewhere carries it along.
    expect(row.getCell(columnOf(ws, 1, /^Warnings/)).value).toBe("⚠ SANDBOX: simulated data");
  });

  test("every strategy of the per-row column is screened: buy, arbitrage, owned, co-host, and lat,lng as the location", () => {
    const status = columnOf(ws, 1, "STR status");
    for (const r of [3, 5, 6, 9, 10, 16]) expect([r, ws.getRow(r).getCell(status).value]).toEqual([r, "Created"]);
    // Co-host answers have no cash flow: its cell is empty, not 0; its commission and return are there.
    const at = (r: number, label: string) => ws.getRow(r).getCell(columnOf(ws, 1, label)).value;
    expect(at(10, "Year-one cash flow")).toBeNull();
    expect(typeof at(10, "Co-host commission")).toBe("number");
    expect(typeof at(10, "Host return")).toBe("number");
    expect(at(10, "Cap rate")).toBeNull();
    // A buy row has its cap rate and cash invested, no commission; the arbitrage row its rent.
    expect(typeof at(3, "Cap rate")).toBe("number");
    expect(typeof at(3, "Total cash invested")).toBe("number");
    expect(at(3, "Co-host commission")).toBeNull();
    expect(at(5, "Monthly rent")).toBe(2100);
  });

  test("bad rows are kept in place and marked with their error, naming the user's column", () => {
    const status = columnOf(ws, 1, "STR status");
    const last = columnOf(ws, 1, /^Warnings/);
    const marked = (r: number) => [ws.getRow(r).getCell(status).value, ws.getRow(r).getCell(last).value];
    expect(marked(7)).toEqual([
      "Failed",
      '✖ [STR_VALIDATION] List Price ($) must be an amount such as 415000 or $415,000; got "call agent"',
    ]);
    expect(marked(12)).toEqual(["Failed", "✖ [STR_VALIDATION] Beds is required"]);
    expect(marked(13)[1]).toMatch(/^✖ \[STR_VALIDATION\] Interest Rate \(%\) must be a number from 0 to 15/);
    expect(marked(15)[1]).toMatch(/Deal Type must be one of buy, arb, owned, cohost; got "Flip"/);
    expect(ws.getRow(7).getCell(columnOf(ws, 1, "Annual revenue, median")).value).toBeNull();
    expect(rowValues(ws, 7)[0]).toBe("77 Hill Rd, Gatlinburg TN");
  });

  test("blank rows stay blank, and a repeated row shares the first one's analysis", () => {
    expect(ws.getRow(4).getCell(columnOf(ws, 1, "STR status")).value).toBeNull();
    expect(ws.getRow(11).getCell(columnOf(ws, 1, "STR status")).value).toBeNull();
    const id = columnOf(ws, 1, "Analysis id");
    expect(ws.getRow(14).getCell(columnOf(ws, 1, "STR status")).value).toBe("Duplicate");
    expect(ws.getRow(14).getCell(id).value).toBe(ws.getRow(2).getCell(id).value);
  });

  test("warnings are data: in the row's warnings cell and in the Warnings sheet, with the failed rows", () => {
    expect(ws.getRow(8).getCell(columnOf(ws, 1, /^Warnings/)).value).toMatch(
      /^⚠ SANDBOX: simulated data \| addAIComps skipped: AI comparables are available for US properties only/,
    );
    const warnings = sheet(book, "STR Warnings");
    expect(rowValues(warnings, 1)).toEqual(["Row", "Property", "Strategy", "Kind", "Message"]);
    const all = Array.from({ length: warnings.rowCount - 1 }, (_, i) => rowValues(warnings, i + 2));
    // Every answered row is simulated, and says so; the other rows are the service's warnings and the errors.
    expect(all.filter((r) => r[4] === "SANDBOX: simulated data").map((r) => r[0])).toEqual([
      2, 3, 5, 6, 8, 9, 10, 14, 16,
    ]);
    const rows = all.filter((r) => r[4] !== "SANDBOX: simulated data");
    expect(rows.map((r) => [r[0], r[3]])).toEqual([
      [7, "✖ Error"],
      [8, "⚠ Warning"],
      [12, "✖ Error"],
      [13, "✖ Error"],
      [15, "✖ Error"],
    ]);
    expect(rows[1]?.[1]).toBe("Rua Augusta 100, Lisbon, Portugal");
  });

  test("the Comparables sheet lists the nearest comparables of each property (five by default), with links and formats", () => {
    const comps = sheet(book, "STR Comparables");
    expect(rowValues(comps, 1).slice(0, 5)).toEqual(["Row", "Property", "Strategy", "Analysis id", "Listing"]);
    const byRow = new Map<number, number>();
    for (let r = 2; r <= comps.rowCount; r++)
      byRow.set(
        comps.getRow(r).getCell(1).value as number,
        (byRow.get(comps.getRow(r).getCell(1).value as number) ?? 0) + 1,
      );
    expect([...byRow.keys()]).toEqual([2, 3, 5, 6, 8, 9, 10, 14, 16]);
    expect([...byRow.values()].every((n) => n === DEFAULT_COMPS)).toBe(true);
    const first = comps.getRow(2);
    expect(first.getCell(2).value).toBe("12 Main St, Austin TX");
    expect(first.getCell(columnOf(comps, 1, "Occupancy")).numFmt).toBe("0.0%");
    expect(first.getCell(columnOf(comps, 1, "Annual revenue")).numFmt).toBe("$#,##0");
    expect(first.getCell(columnOf(comps, 1, "Listing link")).value).toBe(
      "simulated listing: no page once the run ends",
    );
    expect(first.getCell(columnOf(comps, 1, "Warnings")).value).toBe("⚠ SANDBOX: simulated data");
    const distance = columnOf(comps, 1, "Distance");
    const distances = [2, 3, 4].map((r) => comps.getRow(r).getCell(distance).value as number);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
  });

  test("the Summary says the mode, the counts, the cost and the date", () => {
    const s = summaryOf(book);
    expect(s).toMatchObject({
      Mode: "Sandbox (simulated data)",
      Input: "portfolio-messy.csv",
      Rows: 13,
      Done: 9,
      Created: 8,
      Cached: 0,
      Duplicates: 1,
      Failed: 4,
      "Invalid (of the failed)": 4,
      "With warnings": 9,
      Blank: 2,
      "Stopped early": "No",
    });
    expect(s["Cost (USD)"]).toBeCloseTo(1.7);
    expect(s.Date).toBeInstanceOf(Date);
    expect(Math.abs((s.Date as Date).getTime() - Date.now())).toBeLessThan(24 * 3600 * 1000);
  });

  test("a second run's dry run estimates 0 USD and creates nothing", async () => {
    const dry = await screen([MESSY_CSV, "--dry-run"], env);
    expect(dry.stdout).toMatch(/Cached\s+9\s+free/);
    expect(dry.stdout).toMatch(/To create\s+0\n/);
    expect(dry.stdout).toMatch(/Estimated cost\s+\$0\.00/);
    expect(dry.stdout).toMatch(/row 7: List Price \(\$\) must be an amount/);
    // Invalid rows would fail: the dry run says so with its exit code.
    expect(dry.code).toBe(1);
  });

  test("a second run answers every row from the cache and costs nothing", async () => {
    const again = await screen([MESSY_CSV, "--out", path.join(dir, "again.xlsx")], env);
    expect(again.stdout).toContain("(0 created, 9 cached, 0 duplicates)");
    expect(again.stdout).toMatch(/Cost: \$0\.00/);
    expect(summaryOf(await readWorkbook(path.join(dir, "again.xlsx")))).toMatchObject({
      Created: 0,
      Cached: 9,
      "Cost (USD)": 0,
    });
  });

  test("--refresh --dry-run estimates fetching every row again, and spends nothing", async () => {
    const dry = await screen([MESSY_CSV, "--refresh", "--dry-run"], env);
    expect(dry.stdout).toMatch(/To create\s+8\n/);
    // 8 reports and two rows asking for AI comparables, at their most.
    expect(dry.stdout).toMatch(/Estimated cost\s+\$1\.80/);
    const after = await screen([MESSY_CSV, "--dry-run"], env);
    expect(after.stdout).toMatch(/Estimated cost\s+\$0\.00/);
  });

  test("--fields chooses the result columns and --comps 0 leaves the Comparables sheet a header", async () => {
    const file = path.join(dir, "fields.xlsx");
    const r = await screen(
      [MESSY_CSV, "--out", file, "--fields", "revenue.p50; Occupancy, median; url", "--comps", "0"],
      env,
    );
    expect(r.code).toBe(1);
    const b = await readWorkbook(file);
    expect(rowValues(sheet(b, "Screening"), 1).slice(15)).toEqual([
      "STR status",
      "STR fetched",
      "Annual revenue, median",
      "Occupancy, median",
      "Report",
      "Warnings (sandbox: simulated data)",
    ]);
    expect(sheet(b, "STR Comparables").rowCount).toBe(1);
  });

  test("--strategy is the strategy of rows without one, and --fields is checked against it", async () => {
    const csv = path.join(dir, "leases.csv");
    fs.writeFileSync(csv, 'Address,Rent,Beds,Baths,Guests\n"200 Broadway, Nashville TN","$2,100",2,1,4\n');
    const file = path.join(dir, "leases.xlsx");
    const r = await screen([csv, "--out", file, "--strategy", "arb"], env);
    expect(r.code).toBe(0);
    const b = await readWorkbook(file);
    expect(summaryOf(b)).toMatchObject({ Strategy: "arb", Done: 1, Failed: 0 });
    // The arbitrage defaults include the rent.
    expect(rowValues(sheet(b, "Screening"), 1)).toContain("Monthly rent");
    const capRate = await screen([csv, "--out", file, "--strategy", "arb", "--fields", "Cap rate"], env);
    expect(capRate.code).toBe(2);
    expect(capRate.stderr).toMatch(/--fields: yearOneCapRatePercentage is not in arb analyses/);
  });

  test("screened again 40 days later: free from the cache, and each row says it is stale and what a refresh costs", async () => {
    const csv = path.join(dir, "stale.csv");
    fs.writeFileSync(csv, 'Address,Price,Beds,Baths,Guests\n"9 Elm St, Austin TX",450000,3,2,6\n');
    expect((await screen([csv, "--out", path.join(dir, "fresh.xlsx")], env)).code).toBe(0);
    const now = Date.now();
    jest.spyOn(Date, "now").mockReturnValue(now + 40 * 86_400_000);
    let later: Ran;
    try {
      later = await screen([csv, "--out", path.join(dir, "later.xlsx")], env);
    } finally {
      jest.restoreAllMocks();
    }
    expect(later.stdout).toMatch(/Cost: \$0\.00/);
    const screened = sheet(await readWorkbook(path.join(dir, "later.xlsx")), "Screening");
    expect(screened.getRow(2).getCell(columnOf(screened, 1, /^Warnings/)).value).toBe(
      "⚠ SANDBOX: simulated data | STALE: fetched 40 days ago; a refresh costs up to 0.20 USD",
    );
  });
});

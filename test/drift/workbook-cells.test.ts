import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { findField } from "../../src/contract";
import { columnOf, readWorkbook, rowValues, screen, tempDir, testEnv } from "../cli/support";
import { STAND_IN_KEY, StandIn, startStandIn } from "../support/live-standin";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { FIELDS, PRICE, RIGHT, SHAPES } from "./shapes";

/**
 * The drift suite in str-screen's workbook: one row per drifted shape, screened through a relay
 * configured for the live service (the stand-in answers by the row's address). Each result cell
 * holds the right figure, or is blank and the row's Warnings cell says why; a row without an
 * analysis says what failed and what it cost.
 */

const names = Object.keys(SHAPES);
const idOf = (name: string) => `live${String(names.indexOf(name)).padStart(4, "0")}`;

describe("every drifted answer, in str-screen's workbook", () => {
  let standIn: StandIn;
  let t: TestRelay;
  let ws: ExcelJS.Worksheet;
  let book: ExcelJS.Workbook;
  const dir = tempDir("str-drift-");

  beforeAll(async () => {
    standIn = await startStandIn(({ body }) => {
      const name = String(body.fullAddress);
      const shape = SHAPES[name];
      return shape ? shape.answer(idOf(name)) : { status: 400, body: { success: false, error: "unknown shape" } };
    });
    t = await startRelay({ STR_API_KEY: STAND_IN_KEY, STR_API_BASE_URL: standIn.url });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
    const csv = path.join(dir, "drift.csv");
    const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
    fs.writeFileSync(
      csv,
      `Address,Price,Beds,Baths,Guests\n${names.map((n) => `${quote(n)},${PRICE},3,2,8`).join("\n")}\n`,
    );
    const out = path.join(dir, "drift.xlsx");
    const r = await screen([csv, "--out", out, "--strategy", "buy", "--fields", FIELDS.join(",")], {
      ...testEnv(path.join(dir, "unused")),
      STR_RELAY_URL: url,
      STR_RELAY_TOKEN: TEST_TOKEN,
    });
    if (!fs.existsSync(out)) throw new Error(`no workbook: ${r.stderr}`);
    book = await readWorkbook(out);
    ws = book.worksheets[0]!;
  });
  afterAll(async () => {
    await t.close();
    await standIn.close();
  });

  test.each(names)("%s", (name) => {
    const shape = SHAPES[name]!;
    const row = rowValues(ws, names.indexOf(name) + 2);
    expect(row[0]).toBe(name);
    const warnings = String(row[columnOf(ws, 1, /^Warnings/) - 1] ?? "");
    if (shape.expect.kind === "error") {
      expect(FIELDS.map((f) => row[columnOf(ws, 1, findField(f)!.label) - 1] ?? "")).toEqual(FIELDS.map(() => ""));
      expect(warnings).toContain(`[${shape.expect.code}]`);
      expect(warnings).toMatch(shape.expect.message);
      return;
    }
    const blank = new Set<string>(shape.expect.blank ?? []);
    for (const field of FIELDS) {
      const value = row[columnOf(ws, 1, findField(field)!.label) - 1] ?? "";
      const want = field === "_id" ? idOf(name) : blank.has(field) ? "" : (shape.expect.cells?.[field] ?? RIGHT[field]);
      if (typeof want === "number") {
        expect({ field, type: typeof value }).toEqual({ field, type: "number" });
        expect(value as number).toBeCloseTo(want, 6);
      } else expect({ field, value }).toEqual({ field, value: want });
    }
    for (const pattern of shape.expect.warnings) expect(warnings).toMatch(pattern);
    if (blank.size > 0) expect(warnings).toMatch(/left blank/);
    for (const [field, format] of Object.entries(shape.expect.formats ?? {})) {
      const cell = ws.getRow(names.indexOf(name) + 2).getCell(columnOf(ws, 1, findField(field)!.label));
      expect({ field, format: cell.numFmt }).toEqual({ field, format: expect.stringMatching(format) });
    }
  });
});

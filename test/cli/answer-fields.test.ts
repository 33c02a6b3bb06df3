import path from "node:path";
import { RelayAnswer, findField } from "../../src/contract";
import { Outcomes } from "../../src/cli/outcomes";
import { Plan } from "../../src/cli/table-plan";
import { blockCells, comparablesRows } from "../../src/cli/report-sheets";
import { PlannedRow, lineOutcome } from "../../src/screening";
import { buyAnswer } from "../sheet/fixtures";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { MESSY_CSV, columnOf, readWorkbook, screen, sheet, tempDir, testEnv } from "./support";

/** The answer fields str-screen writes: the geocoded point and quartiles by --fields, comparables' photos, money in the answer's currency. */
describe("str-screen writes every answer field", () => {
  test("a non-USD answer's money cells, in the block and the Comparables sheet, carry its currency", () => {
    const eur = RelayAnswer.parse({ ...buyAnswer, data: { ...(buyAnswer.data as object), currency: "EUR" } });
    const fields = [findField("revenue.p50")!, findField("occupancy.p50")!];
    const row: PlannedRow = { sheetRow: 1, property: "12 Main St", kind: "request", op: "buy", item: 0, unusual: [] };
    const plan = { rows: [row], fields } as unknown as Plan;
    const outcomes = new Outcomes(5);
    try {
      const { outcome, answer } = lineOutcome(eur, fields);
      outcomes.record(row, outcome, answer);
      const block = blockCells(outcomes.get(row)!, fields);
      expect(block.slice(2, 4).map((c) => c.format)).toEqual(["[$EUR] #,##0", "0.0%"]);
      const [header, first] = [...comparablesRows(plan, outcomes)];
      const revenue = header!.findIndex((c) => c.value === "Annual revenue");
      expect(first![revenue]?.format).toBe("[$EUR] #,##0");
    } finally {
      outcomes.close();
    }
  });

  describe("through a running relay", () => {
    let t: TestRelay;
    let url: string;
    const dir = tempDir();
    beforeAll(async () => {
      t = await startRelay();
      await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
      const address = t.relay.app.server.address();
      url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    });
    afterAll(() => t.close());

    test("--fields takes latitude, longitude and the quartiles; the Comparables sheet has each listing's photo URL", async () => {
      const out = path.join(dir, "fields.xlsx");
      const env = testEnv(path.join(dir, "unused"), { STR_RELAY_URL: url, STR_RELAY_TOKEN: TEST_TOKEN });
      const r = await screen(
        [MESSY_CSV, "--out", out, "--fields", "latitude, longitude, Quartiles: revenue, median, revenue.p50"],
        env,
      );
      expect(r.stderr).not.toMatch(/usage/i);
      const book = await readWorkbook(out);
      const ws = sheet(book, "Screening");
      const lat = ws.getRow(2).getCell(columnOf(ws, 1, "Latitude")).value;
      const lng = ws.getRow(2).getCell(columnOf(ws, 1, "Longitude")).value;
      expect(lat).toBeGreaterThan(24);
      expect(lat).toBeLessThan(50);
      expect(lng).toBeLessThan(-60);
      expect(typeof ws.getRow(2).getCell(columnOf(ws, 1, "Quartiles: revenue, median")).value).toBe("number");
      const comps = sheet(book, "STR Comparables");
      const photo = comps.getRow(2).getCell(columnOf(comps, 1, "Photo")).value as { hyperlink?: string };
      expect(photo.hyperlink).toMatch(/^http:\/\/.+\/sandbox\/photos\//);
    }, 60_000);
  });
});

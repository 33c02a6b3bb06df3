import { AddressInfo } from "node:net";
import { RelayClient } from "../../src/client";
import { recognizeColumns } from "../../src/inputs";
import { resultBlockWidth } from "../../src/sheet";
import { checkDestination, destinationOf, placeBlock } from "../../taskpane/excel/destination";
import { ExcelRun, canMergeUndo, holdUndoGroup, ungrouped } from "../../taskpane/excel/host";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { planScreening } from "../../taskpane/screen";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { installFakeExcel } from "../support/fake-excel";

/**
 * The pane writes its results beside the table. Whatever the user has in those cells — not only in
 * the header row — is found first, and the block goes further right unless they choose to overwrite.
 */
const HEADER = ["Address", "Price", "Beds", "Baths", "Guests", "Type"];
const ROWS = [
  ["1 Oak St, Austin TX", 400000, 3, 2, 6, "buy"],
  ["2 Oak St, Austin TX", 410000, 3, 2, 6, "buy"],
  ["3 Oak St, Austin TX", 420000, 3, 2, 6, "buy"],
];

function sheet(extra: (rows: unknown[][]) => void = () => undefined) {
  const rows: unknown[][] = [HEADER, ...ROWS].map((r) => [...r]);
  extra(rows);
  const excel = installFakeExcel({
    sheets: [{ name: "Deals", rows }],
    selection: { row: 0, column: 0, rows: 4, columns: 6 },
  });
  return { excel, run: excel.run as ExcelRun };
}

async function plan(run: ExcelRun) {
  const table = await readSelectedTable(run);
  const job = planScreening(table, recognizeColumns(table.headers), { strategy: "buy", numbers: "point" });
  const earlier = table.block ? { left: table.left + table.block.start, width: table.block.width } : undefined;
  return { table, job, destination: destinationOf(job, earlier) };
}

describe("what is in the way of the results", () => {
  test("a note in a column without a header, under the header row, is found, and the block can go right of it", async () => {
    const { run } = sheet((rows) => {
      (rows[2] as unknown[])[7] = "call back";
    });
    const { job, destination } = await plan(run);
    expect(destination).toMatchObject({ top: 0, rows: 4, left: 6, width: job.writeWidth, oursWidth: 0 });
    const check = await checkDestination(run, destination);
    expect(check).toEqual({ occupied: 1, first: { address: "Deals!H3", content: "call back" }, freeLeft: 8 });
    expect(placeBlock(job, check, "right", resultBlockWidth(job.fields))).toMatchObject({ blockColumn: 8 });
    expect(placeBlock(job, check, "overwrite", resultBlockWidth(job.fields))).toBe(job);
  });

  test("a formula counts even when it shows nothing; the count covers the whole block", async () => {
    const { run } = sheet((rows) => {
      (rows[1] as unknown[])[9] = '=IF(B2>0,"","x")';
      (rows[3] as unknown[])[10] = 5;
    });
    const { destination } = await plan(run);
    const check = await checkDestination(run, destination);
    expect(check.occupied).toBe(2);
    expect(check.first).toEqual({ address: "Deals!J2", content: '=IF(B2>0,"","x")' });
    expect(check.freeLeft).toBe(11);
  });

  test("nothing in the way: nothing occupied, the block where planned, two syncs", async () => {
    const { excel, run } = sheet();
    const { destination } = await plan(run);
    const before = excel.syncs;
    expect(await checkDestination(run, destination)).toEqual({ occupied: 0, first: undefined, freeLeft: 6 });
    expect(excel.syncs - before).toBeLessThanOrEqual(2);
  });

  test("an earlier block of ours is replaced in place; the user's column right after it is in the way of a wider block", async () => {
    const { run } = sheet((rows) => {
      // A narrow earlier block (status, fetched, one field, warnings), then the user's own "My score".
      rows[0]?.push("STR status", "STR fetched", "Annual revenue, median", "Warnings", "My score");
      for (let r = 1; r <= 3; r++) rows[r]?.push("Created", 45000, 60000, "", r * 10);
    });
    const { job, destination } = await plan(run);
    expect(destination).toMatchObject({ left: 6, oursWidth: 4 });
    expect(job.writeWidth).toBeGreaterThan(4);
    const check = await checkDestination(run, destination);
    // "My score" and its three values; the old block's own cells are not counted.
    expect(check.occupied).toBe(4);
    expect(check.first).toEqual({ address: "Deals!K1", content: "My score" });
    // Moved, the new block leaves the old one and My score where they are.
    expect(check.freeLeft).toBe(11);
  });
});

describe("a screening is one undo step where Excel has ExcelApi 1.20", () => {
  let t: TestRelay;
  let client: RelayClient;
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    client = new RelayClient({
      baseUrl: `http://127.0.0.1:${(t.relay.app.server.address() as AddressInfo).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  test("every chunk is written in one Excel.run opened with mergeUndoGroup; without it, one run per chunk", async () => {
    const { runScreening } = await import("../../taskpane/screen");
    for (const grouped of [true, false]) {
      const { excel, run } = sheet();
      const { job } = await plan(run);
      const options: unknown[] = [];
      const runsBefore = excel.runs;
      const group = grouped
        ? holdUndoGroup((opts, batch) => {
            options.push(opts);
            return excel.run(batch);
          })
        : ungrouped(run);
      const result = await runScreening({ client, run: group.run }, job, {
        sandbox: true,
        chunkRows: 1,
        maxDelayMs: 10,
      });
      await group.close();
      expect(result.writeError).toBeUndefined();
      expect(result.syncs).toBeGreaterThanOrEqual(3);
      expect(excel.runs - runsBefore).toBe(grouped ? 1 : result.syncs);
      expect(options).toEqual(grouped ? [{ mergeUndoGroup: true }] : []);
      expect(excel.values("Deals")[1]?.[6]).toBe(grouped ? "Created" : "Cached");
    }
  }, 30_000);

  test("grouping is used only where Office says ExcelApi 1.20 is supported", () => {
    const g = globalThis as { Office?: unknown };
    const asked: string[] = [];
    try {
      g.Office = {
        context: {
          requirements: {
            isSetSupported: (set: string, version: string) => (asked.push(`${set} ${version}`), version === "1.20"),
          },
        },
      };
      expect(canMergeUndo()).toBe(true);
      g.Office = { context: { requirements: { isSetSupported: () => false } } };
      expect(canMergeUndo()).toBe(false);
      delete g.Office;
      expect(canMergeUndo()).toBe(false);
    } finally {
      delete g.Office;
    }
    expect(asked).toEqual(["ExcelApi 1.20"]);
  });
});

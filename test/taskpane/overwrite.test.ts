import { recognizeColumns } from "../../src/inputs";
import { checkDestination, destinationOf } from "../../taskpane/excel/destination";
import { ExcelRun } from "../../taskpane/excel/host";
import { readSelectedTable } from "../../taskpane/excel/read-table";
import { PlannedBlock, inTheWay, mayCover, placeResults } from "../../taskpane/overwrite";
import { planScreening } from "../../taskpane/screen";
import { FakeExcel, installFakeExcel } from "../support/fake-excel";

/**
 * The one rule for results that would land on the user's cells, as the Screen and Refresh tabs
 * both use it: the cells are read again just before anything is sent, and the run goes only if the
 * results cover no more of the user's cells than the user agreed to — with Overwrite, as many as
 * they were shown; otherwise none. Else the pane asks again, with what is in the way now.
 */
const HEADER = ["Address", "Price", "Beds", "Baths", "Guests"];
const ROWS = [
  ["1 Oak St, Austin TX", 400000, 3, 2, 6],
  ["2 Oak St, Austin TX", 410000, 3, 2, 6],
];

/** A table in A1:E3 of Deals (results from column F), and maybe a second one under it from row 10. */
function workbook(second = false) {
  const rows: unknown[][] = [HEADER, ...ROWS].map((r) => [...r]);
  if (second) {
    rows[9] = [...HEADER];
    rows[10] = ["9 Elm St, Austin TX", 300000, 2, 1, 4];
  }
  const excel = installFakeExcel({ sheets: [{ name: "Deals", rows }] });
  /** Excel.run with the table from `row` selected. */
  const selecting =
    (row: number): ExcelRun =>
    (batch) => {
      excel.select("Deals", row, 0, row === 0 ? 3 : 2, HEADER.length);
      return excel.run(batch);
    };
  return { excel, run: selecting(0), second: selecting(9) };
}

/** The table's block as planned, and what was in its way when the user was asked. */
async function planned(run: ExcelRun, read: ExcelRun = run): Promise<PlannedBlock> {
  const table = await readSelectedTable(read);
  const job = planScreening(table, recognizeColumns(table.headers), { strategy: "buy", numbers: "point" });
  return { job, earlier: undefined, shown: await checkDestination(run, destinationOf(job, undefined)) };
}

const type = (excel: FakeExcel, row: number, column: number, value: unknown) => excel.type("Deals", row, column, value);

describe("the results may cover only what the user agreed to", () => {
  test("with Overwrite, as many of the user's cells as they were shown; writing further right, none", () => {
    const shown = { occupied: 3, first: { address: "Deals!G2", content: "x" }, freeLeft: 9 };
    expect(mayCover(shown, "overwrite")).toBe(3);
    expect(mayCover(shown, "right")).toBe(0);
    expect(mayCover({ occupied: 0, first: undefined, freeLeft: 5 }, "overwrite")).toBe(0);
  });
});

describe("placing the results just before anything is sent", () => {
  test("nothing in the way then or now: the block goes where planned", async () => {
    const { run } = workbook();
    const block = await planned(run);
    expect(block.shown.occupied).toBe(0);
    const placed = await placeResults(run, [block], "right");
    expect(placed).toEqual({ go: true, jobs: [block.job] });
  });

  test("a note typed where the results go after the question was asked (none shown): asked again, with that note", async () => {
    const { excel, run } = workbook();
    const block = await planned(run);
    type(excel, 2, 7, "call back");
    for (const placement of ["right", "overwrite"] as const) {
      const placed = await placeResults(run, [block], placement);
      expect(placed).toEqual({
        go: false,
        now: [{ occupied: 1, first: { address: "Deals!H3", content: "call back" }, freeLeft: 8 }],
      });
    }
  });

  test("further right, as the user chose: written where they were told while those columns stay free", async () => {
    const { excel, run } = workbook();
    type(excel, 1, 6, "call back");
    const block = await planned(run);
    expect(block.shown).toMatchObject({ occupied: 1, freeLeft: 7 });
    const placed = await placeResults(run, [block], "right");
    expect(placed.go && placed.jobs[0]?.blockColumn).toBe(7);
  });

  test("further right, but a note typed since in the columns the user was told: asked again, about the block where planned", async () => {
    const { excel, run } = workbook();
    type(excel, 1, 6, "call back");
    const block = await planned(run);
    type(excel, 2, 10, "ring Tuesday");
    const placed = await placeResults(run, [block], "right");
    // The question names the block's own columns; the free columns now start right of the new note.
    expect(placed).toEqual({
      go: false,
      now: [{ occupied: 2, first: { address: "Deals!G2", content: "call back" }, freeLeft: 11 }],
    });
  });

  test("Overwrite: goes while no more of the user's cells are in the way than were shown; one more, asked again", async () => {
    const { excel, run } = workbook();
    type(excel, 1, 6, "call back");
    type(excel, 2, 6, "twice");
    const block = await planned(run);
    expect(block.shown.occupied).toBe(2);
    type(excel, 2, 6, "");
    expect(await placeResults(run, [block], "overwrite")).toEqual({ go: true, jobs: [block.job] });
    type(excel, 2, 6, "twice");
    type(excel, 0, 9, "My notes");
    const placed = await placeResults(run, [block], "overwrite");
    expect(placed.go).toBe(false);
    expect(!placed.go && placed.now[0]?.occupied).toBe(3);
  });

  test("block by block: a cell typed beside one table is not made up for by one cleared beside another", async () => {
    const { excel, run, second } = workbook(true);
    type(excel, 1, 6, "call back");
    const blocks = [await planned(run), await planned(run, second)];
    expect(blocks.map((b) => b.shown.occupied)).toEqual([1, 0]);
    // Both answered "overwrite": the first note cleared, a note typed where the second table's results go.
    type(excel, 1, 6, "");
    type(excel, 10, 7, "sold");
    const placed = await placeResults(run, blocks, "overwrite");
    expect(placed.go).toBe(false);
    expect(!placed.go && placed.now.map((c) => c.occupied)).toEqual([0, 1]);
    expect(await inTheWay(run, blocks)).toEqual(!placed.go && placed.now);
  });
});

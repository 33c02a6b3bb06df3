import { RefreshGate } from "../../src/client";
import { DryRunAnswer, fieldsOf } from "../../src/contract";
import { defaultScreeningFields, excelDateTime, resultBlockHeader } from "../../src/sheet";
import { findRefreshTargets } from "../../taskpane/excel/scope";
import { formulaCalls } from "../../taskpane/excel/formula-arguments";
import { estimateFormulas, pricedRequests, readFormulaRequests } from "../../taskpane/formula-requests";
import { inTheWay, placeResults } from "../../taskpane/overwrite";
import { coveredCells, planRefresh, plannedBlocks, recalculateFormulas, strategyOfBlock } from "../../taskpane/refresh";
import { installFakeExcel } from "../support/fake-excel";

/**
 * Refresh by scope (selection, sheet, workbook): which STR formulas and screened tables each scope
 * holds, what refreshing them costs, and the refresh gate open only while the formulas recalculate.
 */
const buyFields = defaultScreeningFields("buy");
const arbFields = defaultScreeningFields("arb");
const block = (fields: typeof buyFields) => resultBlockHeader(fields, true).map((c) => c.value);
const FORMULA_COLUMN = 20;

function portfolioSheet(): unknown[][] {
  const grid: unknown[][] = [];
  grid[0] = ["Address", "Price", "Beds", "Baths", "Guests", ...block(buyFields)];
  for (let i = 1; i <= 5; i++)
    grid[i] = [`${i} Main St, Austin TX`, 400000 + i, 3, 2, 6, "Created", 45800, ...buyFields.map(() => 1), ""];
  // Formulas to the right of the first table.
  (grid[1] as unknown[])[FORMULA_COLUMN] = '=STR.BUY(A2,B2,C2,D2,E2,,"revenue.p50")';
  (grid[2] as unknown[])[FORMULA_COLUMN] = "=STR.COMPS(Q3)";
  (grid[3] as unknown[])[FORMULA_COLUMN] = "=STR.ARB(A4,2000,2,1,4)+0*str.cohost(A4, 2, 1, 4)";
  // A second screened table further down: rental arbitrage, no strategy column.
  grid[10] = ["Address", "Rent", "Beds", "Baths", "Guests", ...block(arbFields)];
  grid[11] = ["7 Oak Ave, Austin TX", 2100, 2, 1, 4, "Created"];
  grid[12] = ["8 Oak Ave, Austin TX", 2300, 2, 2, 5, "Cached"];
  return grid;
}

const otherSheet = () => [
  ['=STR.ENHANCE("64f1a2b3c4d5e6f7a8b9c0d1")'],
  ['=STR.BUY("1 Main St, Austin TX", 400000, 3, 2, 6, "addAIComps=TRUE")'],
  ['=STR.BUY("1 Main St, Austin TX", 400000, 3, 2, 6, "addAIComps=TRUE")'],
  [42],
];

const workbook = (
  selection?: { row: number; column: number; rows?: number; columns?: number; sheet?: string },
  onCalculate?: (address: string) => void,
) =>
  installFakeExcel(
    {
      sheets: [
        { name: "Portfolio", rows: portfolioSheet() },
        { name: "Other", rows: otherSheet() },
        { name: "Empty", rows: [] },
      ],
      ...(selection ? { selection } : {}),
    },
    { onCalculate },
  );

describe("what a refresh scope holds", () => {
  test("selection: the formulas in it and the screened rows it touches, nothing else", async () => {
    const wb = workbook({ row: 2, column: 0, rows: 2, columns: 25 });
    const t = await findRefreshTargets(wb.run, "selection");
    expect(t.sheets).toEqual(["Portfolio"]);
    expect(t.formulas.map((f) => [f.address, f.calls])).toEqual([["Portfolio!U4", ["ARB", "COHOST"]]]);
    expect(t.tables).toHaveLength(1);
    expect(t.tables[0]?.rows.map((r) => r.sheetRow)).toEqual([2, 3]);
    expect(t.tables[0]?.block.start).toBe(5);
    expect(t.recalculate).toEqual([{ sheetId: "{Portfolio}", bounds: { row: 2, column: 0, rows: 2, columns: 25 } }]);
  });

  test("selection of a table's header alone: the whole table", async () => {
    const wb = workbook({ row: 10, column: 0, rows: 1, columns: 3 });
    const t = await findRefreshTargets(wb.run, "selection");
    expect(t.tables.map((x) => [x.address, x.rows.length])).toEqual([["Portfolio!A11:Q13", 2]]);
  });

  test("a selected cell holding nothing to refresh: told so, with what to do", async () => {
    const wb = workbook({ row: 30, column: 30 });
    await expect(findRefreshTargets(wb.run, "selection")).rejects.toThrow(/holds no STR formula.*This sheet/);
  });

  test("sheet: every billed STR formula of the active sheet (STR.COMPS is free) and both screened tables", async () => {
    const wb = workbook();
    const t = await findRefreshTargets(wb.run, "sheet");
    expect(t.formulas.map((f) => f.address)).toEqual(["Portfolio!U2", "Portfolio!U4"]);
    expect(t.tables.map((x) => [x.address, x.rows.length])).toEqual([
      ["Portfolio!A1:Q6", 5],
      ["Portfolio!A11:Q13", 2],
    ]);
    // One sync for the sheet, one for its used range.
    expect(wb.syncs).toBe(2);
  });

  test("workbook: every sheet, an empty one skipped; the formulas of each, recalculated by used range", async () => {
    const wb = workbook();
    const t = await findRefreshTargets(wb.run, "workbook");
    expect(t.sheets).toEqual(["Portfolio", "Other", "Empty"]);
    expect(t.formulas.map((f) => f.address)).toEqual([
      "Portfolio!U2",
      "Portfolio!U4",
      "Other!A1",
      "Other!A2",
      "Other!A3",
    ]);
    expect(t.tables).toHaveLength(2);
    expect(t.recalculate.map((r) => r.sheetId)).toEqual(["{Portfolio}", "{Other}"]);
  });
});

describe("what a refresh costs, before anything is sent", () => {
  test("formulas: each call's arguments read as Excel passes them, references from the sheet, into the functions' request", async () => {
    const t = await findRefreshTargets(
      workbook({ sheet: "Other", row: 0, column: 0, rows: 4, columns: 1 }).run,
      "selection",
    );
    const wb = workbook();
    const requests = await readFormulaRequests(wb.run, t.formulas);
    expect(requests.map((r) => [r.fn, r.kind])).toEqual([
      ["ENHANCE", "request"],
      ["BUY", "request"],
      ["BUY", "request"],
    ]);
    expect(requests[0]).toMatchObject({
      op: "enhance",
      params: { analysisId: "64f1a2b3c4d5e6f7a8b9c0d1", addAIComps: true, addAIExpenseEstimates: true },
    });
    expect(requests[1]).toMatchObject({ op: "buy", params: { purchasePriceUSD: 400000, addAIComps: true } });
    // On the Portfolio sheet, references are read from the cells (A4 is an address, B2 a price).
    const sheet = await findRefreshTargets(wb.run, "sheet");
    const read = await readFormulaRequests(wb.run, sheet.formulas);
    expect(read.map((r) => (r.kind === "request" ? [r.op, r.params.fullAddress] : [r.kind]))).toEqual([
      ["buy", "1 Main St, Austin TX"],
      ["arb", "3 Main St, Austin TX"],
      ["cohost", "3 Main St, Austin TX"],
    ]);
  });

  test("formulas: priced by the relay's dry run of those requests; unreadable arguments not refreshed, invalid ones free", async () => {
    const cell = (formula: string) => ({
      sheetId: "{Other}",
      sheetName: "Other",
      row: 0,
      column: 0,
      address: "Other!A1",
      formula,
      calls: [],
    });
    const wb = workbook();
    const requests = await readFormulaRequests(wb.run, [
      cell('=STR.BUY("1 Main St, Austin TX", 400000, 3, 2, 6)'),
      cell('=STR.BUY("1 Main St, Austin TX", B2*1.1, 3, 2, 6)'),
      cell("=STR.ENHANCE(MyId, TRUE)"),
      cell('=STR.BUY("1 Main St, Austin TX", "call agent", 3, 2, 6)'),
    ]);
    expect(requests.map((r) => r.kind)).toEqual(["request", "unread", "unread", "invalid"]);
    // A referenced cell holding an error: Excel shows the error and does not call the function.
    const portfolio = (formula: string) => ({ ...cell(formula), sheetId: "{Portfolio}", sheetName: "Portfolio" });
    const errors = await readFormulaRequests(
      installFakeExcel({ sheets: [{ name: "Portfolio", rows: [["#N/A", 400000]] }] }).run,
      [portfolio("=STR.BUY(A1,B1,3,2,6)"), portfolio('=STR.BUY("1 Main St, Austin TX",B1,3,2,6)')],
    );
    expect(errors.map((r) => r.kind)).toEqual(["invalid", "request"]);
    const asked: unknown[][] = [];
    const client = {
      dryRun: async (items: readonly unknown[]): Promise<DryRunAnswer> => {
        asked.push([...items]);
        return {
          items: items.length,
          cached: 0,
          toCreate: items.length,
          invalid: 0,
          unknownOutcome: 0,
          estimatedCostUSD: 0.2,
          budgetRemainingUSD: 50,
          sandbox: true,
          verdicts: items.map(() => "create" as const),
        };
      },
      usage: async () => {
        throw new Error("not called when there are items");
      },
    };
    const est = await estimateFormulas(client, requests, { refresh: true });
    expect(asked).toEqual([
      [{ strategy: "buy", params: expect.objectContaining({ purchasePriceUSD: 400000 }), refresh: true }],
    ]);
    // 0.20 from the relay; the BUY and the ENHANCE it cannot read are not priced, and not refreshed.
    expect(est).toMatchObject({ calls: 1, costUSD: 0.2, unread: 2, invalid: 1 });
  });

  test("formula text: arguments split at top-level commas only; literals, references and the rest told apart", () => {
    const [call, other] = formulaCalls(
      `=IF(A1,STR.BUY('My Sheet'!$A$2, "1,000", 2.5E1, TRUE, , Opts!H2:I3, "x"")"), 0)+STR.ENHANCE(SUM(1,2))&"STR.ARB("`,
    );
    expect(call?.fn).toBe("BUY");
    expect(call?.args).toEqual([
      { kind: "reference", sheet: "My Sheet", row: 1, column: 0, rows: 1, columns: 1 },
      { kind: "value", value: "1,000" },
      { kind: "value", value: 25 },
      { kind: "value", value: true },
      { kind: "omitted" },
      { kind: "reference", sheet: "Opts", row: 1, column: 7, rows: 2, columns: 2 },
      { kind: "value", value: 'x")' },
    ]);
    expect(other).toEqual({ fn: "ENHANCE", args: [{ kind: "unread", text: "SUM(1,2)" }] });
    expect(formulaCalls('="STR.BUY(1)"')).toEqual([]);
    expect(formulaCalls("=STR.COHOST(A1,2,1,4,15%)")[0]?.args[4]).toEqual({ kind: "value", value: 0.15 });
  });

  test("tables: a dry run with refresh on every item, the block's own fields, the strategy its columns tell", async () => {
    const wb = workbook();
    const sent: { items: unknown[] }[] = [];
    const client = {
      dryRun: async (items: readonly unknown[]): Promise<DryRunAnswer> => {
        sent.push({ items: [...items] });
        return {
          items: items.length,
          cached: 0,
          toCreate: items.length,
          invalid: 0,
          unknownOutcome: 0,
          estimatedCostUSD: items.length * 0.2,
          budgetRemainingUSD: 50,
          sandbox: true,
          verdicts: items.map(() => "create" as const),
        };
      },
      usage: async () => {
        throw new Error("not called when there are items");
      },
    };
    const plan = await planRefresh({ client, run: wb.run }, "sheet", { strategy: "buy" });
    // The formulas' three calls, then the tables' seven rows, each dry run with refresh on.
    expect(plan.formulaCalls).toBe(3);
    expect(plan.formulaCostUSD).toBe(0.6);
    expect(plan.jobs.map((j) => j.items.length)).toEqual([5, 2]);
    expect(sent.map((s) => s.items.length)).toEqual([3, 7]);
    for (const item of sent.flatMap((s) => s.items)) expect(item).toMatchObject({ refresh: true });
    expect(plan.jobs[0]?.fields).toEqual(buyFields);
    expect(plan.jobs[1]?.items.map((i) => i.strategy)).toEqual(["arb", "arb"]);
    expect(plan.jobs[1]?.items[0]?.params).toMatchObject({ monthlyRentUSD: 2100, fullAddress: "7 Oak Ave, Austin TX" });
    // The results go back into each table's own block.
    expect(plan.jobs.map((j) => [j.headerRow, j.blockColumn])).toEqual([
      [0, 5],
      [10, 5],
    ]);
    expect(plan.tables).toMatchObject({ items: 7, toCreate: 7, estimatedCostUSD: 1.4 });
  });

  test("a block names its strategy only when one strategy has all its fields", () => {
    expect(strategyOfBlock({ block: { start: 0, width: 0, fields: arbFields } })).toBe("arb");
    expect(strategyOfBlock({ block: { start: 0, width: 0, fields: defaultScreeningFields("cohost") } })).toBe("cohost");
    expect(strategyOfBlock({ block: { start: 0, width: 0, fields: buyFields } })).toBeUndefined();
    expect(strategyOfBlock({ block: { start: 0, width: 0, fields: fieldsOf("owned").slice(0, 3) } })).toBeUndefined();
  });
});

/** A dry run that says every item would be created at 0.20 USD. */
const creatingClient = () => ({
  dryRun: async (items: readonly unknown[]): Promise<DryRunAnswer> => ({
    items: items.length,
    cached: 0,
    toCreate: items.length,
    invalid: 0,
    unknownOutcome: 0,
    estimatedCostUSD: items.length * 0.2,
    budgetRemainingUSD: 50,
    sandbox: true,
    verdicts: items.map(() => "create" as const),
  }),
  usage: async () => ({ mode: "sandbox" as const }) as never,
});

describe("what a table's rewrite would cover", () => {
  // A table whose Warnings column the user deleted, with their own notes in the column after the last field.
  const withNotes = (notes: unknown[]) => {
    const header = block(arbFields).slice(0, -1);
    const grid: unknown[][] = [["Address", "Rent", "Beds", "Baths", "Guests", ...header, "My notes"]];
    notes.forEach((note, i) =>
      grid.push([`${i + 1} Oak Ave, Austin TX`, 2100, 2, 1, 4, "Created", 45800, ...arbFields.map(() => 1), note]),
    );
    return installFakeExcel({ sheets: [{ name: "Deals", rows: grid }] });
  };

  test("the user's cells where the block now reaches are found; the block goes right of them unless told to overwrite", async () => {
    const wb = withNotes(["call the owner", "", '=IF(B4>0,"","x")']);
    const plan = await planRefresh({ client: creatingClient(), run: wb.run }, "sheet", { strategy: "arb" });
    const notes = 5 + arbFields.length + 2;
    expect(plan.jobs[0]).toMatchObject({ blockColumn: 5, writeWidth: notes - 5 + 1 });
    // The header "My notes" and two rows: a note, and a formula that shows nothing.
    expect(coveredCells(plan.destinations)).toBe(3);
    expect(plan.destinations[0]?.first?.content).toBe("My notes");
    const right = await placeResults(wb.run, plannedBlocks(plan), "right");
    expect(right.go && right.jobs[0]).toMatchObject({ blockColumn: notes + 1, writeWidth: arbFields.length + 3 });
    const over = await placeResults(wb.run, plannedBlocks(plan), "overwrite");
    expect(over.go && over.jobs[0]).toBe(plan.jobs[0]);
  });

  test("a block whose columns hold only our results: nothing to ask", async () => {
    const wb = workbook();
    const plan = await planRefresh({ client: creatingClient(), run: wb.run }, "sheet", { strategy: "buy" });
    expect(plan.destinations.map((d) => d.occupied)).toEqual([0, 0]);
    expect(await inTheWay(wb.run, plannedBlocks(plan))).toEqual(plan.destinations);
  });
});

describe("refresh older than N days", () => {
  test("a screened table: only rows whose STR fetched date is before the cutoff; rows never fetched are left out", async () => {
    const grid = portfolioSheet();
    const today = excelDateTime(new Date().toISOString()) as number;
    (grid[2] as unknown[])[6] = today - 2;
    (grid[3] as unknown[])[6] = "";
    (grid[3] as unknown[])[5] = "Failed";
    const wb = installFakeExcel({ sheets: [{ name: "Portfolio", rows: grid }] });
    const plan = await planRefresh({ client: creatingClient(), run: wb.run }, "sheet", {
      strategy: "buy",
      olderThanDays: 30,
    });
    // Rows 2, 5 and 6 were fetched on 45800 (May 2025); row 3 two days ago; row 4 never. The second table has no dates.
    expect(plan.jobs.map((j) => j.rows.map((r) => r.sheetRow))).toEqual([[1, 4, 5]]);
    expect(plan.olderThan?.days).toBe(30);
    const recent = await planRefresh({ client: creatingClient(), run: wb.run }, "sheet", {
      strategy: "buy",
      olderThanDays: 1,
    });
    expect(recent.jobs.map((j) => j.rows.length)).toEqual([4]);
    await expect(
      planRefresh({ client: creatingClient(), run: wb.run }, "sheet", { strategy: "buy", olderThanDays: -1 }),
    ).rejects.toThrow(/older than must be a number of days of 0 or more; got -1/);
  });

  test("the gate carries the cutoff to the functions while open, and forgets it when closed", () => {
    const gate = new RefreshGate();
    gate.open(["buy:a", "buy:b"], { freshSince: 123 });
    expect(gate.admit("buy:a")).toEqual({ freshSince: 123 });
    gate.close();
    expect(gate.admit("buy:b")).toBeUndefined();
  });
});

describe("refreshing formulas through the gate", () => {
  test("the gate admits each priced request once, nothing else, and the wait ends once all were made", async () => {
    const gate = new RefreshGate();
    const seen: [string, boolean][] = [];
    let priced: string[] = [];
    // Excel runs the functions after the recalculation: each asks the gate, a little later; a call
    // the pane did not price (elsewhere in the workbook) and a repeat are ordinary calls.
    const wb = workbook(undefined, () => {
      const asked = ["buy:{other}", ...priced, priced[0] ?? ""];
      asked.forEach((c, i) => setTimeout(() => seen.push([c, gate.admit(c) !== undefined]), 5 + i * 5));
    });
    const targets = await findRefreshTargets(wb.run, "sheet");
    const requests = await readFormulaRequests(wb.run, targets.formulas);
    priced = pricedRequests(requests);
    expect(priced).toHaveLength(3);
    // A quiet period past the test's own timeout: only the last priced call can end the wait.
    const result = await recalculateFormulas(wb.run, gate, targets, requests, { quietMs: 60_000 });
    expect(result).toEqual({ calls: 3, notMade: 0 });
    expect(seen.slice(0, 4).map(([, admitted]) => admitted)).toEqual([false, true, true, true]);
    expect(gate.isOpen()).toBe(false);
    expect(wb.calculated).toEqual(["Portfolio!A1:U13"]);
  });

  test("priced calls that never come: the wait ends after the quiet period and the gate is closed", async () => {
    const gate = new RefreshGate();
    const wb = workbook();
    const targets = await findRefreshTargets(wb.run, "sheet");
    const requests = await readFormulaRequests(wb.run, targets.formulas);
    const result = await recalculateFormulas(wb.run, gate, targets, requests, { quietMs: 100 });
    expect(result).toEqual({ calls: 0, notMade: 3 });
    expect(gate.isOpen()).toBe(false);
    expect(gate.admit(pricedRequests(requests)[0] ?? "")).toBeUndefined();
  });
});

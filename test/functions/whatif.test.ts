import { excelError, installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

const OMITTED = null as unknown as undefined;
const cell = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];
const NUMERIC_ROWS = (grid: unknown[][]) => grid.filter((row) => typeof row[1] === "number" && row[0] !== "Fetched");

describe("STR.WHATIF and STR.SENSITIVITY compute locally from a stored analysis", () => {
  let t: TestRelay;
  const requests = async () =>
    [
      ...(await t.relay.metrics.render()).matchAll(
        /^str_relay_requests_total\{route="([^"]+)",status="(\d+)"\} (\d+)$/gm,
      ),
    ].reduce((s, m) => s + Number(m[3]), 0);

  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  test.each([
    ["buy", () => STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8)],
    ["owned", () => STR.owned([["4 Ridge Rd, Asheville NC"]], 380000, 25, 3.5, 30, 22, 3, 2, 6)],
    ["arb", () => STR.arb([["1 Broadway, Nashville TN"]], 2200, 2, 1, 4)],
    ["cohost", () => STR.cohost([["3 Lake Rd, Big Bear CA"]], 3, 2, 8, 22)],
  ])("%s: WHATIF at the analysis's own inputs gives back the card's figures, and calls nothing", async (_s, make) => {
    const card = await make();
    const id = cell(card, "Analysis id");
    const before = await requests();
    const arrivals = t.sandboxStats().arrivals;
    const same = await STR.whatif(id);
    expect(await requests()).toBe(before);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    for (const [label, value] of NUMERIC_ROWS(card)) {
      const got = cell(same, label as string) as number;
      expect({
        label,
        close: Math.abs(got - (value as number)) <= Math.max(0.05, Math.abs(value as number) * 1e-4),
      }).toEqual({ label, close: true });
    }
    expect(cell(same, "Cached")).toMatch(/^No: computed in Excel/);
  });

  test("other financing and a bear scenario change what they should", async () => {
    const card = await STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8);
    const id = cell(card, "Analysis id");
    const dearer = await STR.whatif(id, OMITTED, OMITTED, "7.5%");
    expect(cell(dearer, "Interest rate")).toBeCloseTo(0.075);
    // A what-if says so first, with what it changed; its price is the card's.
    expect(dearer[0]?.slice(0, 3)).toEqual(["What-if", "Sandbox (simulated data)", "Changed: interest rate 7.5%"]);
    expect(cell(dearer, "Purchase price")).toBe(450000);
    const cheaper = await STR.whatif(id, 400000, 25);
    expect(cheaper[0]?.[2]).toBe("Changed: purchase price $400,000; down payment 25%");
    expect(cell(cheaper, "Purchase price")).toBe(400000);
    expect(cell(cheaper, "Loan amount")).toBe(300000);
    expect(cell(card, "Mode")).toBe("Sandbox (simulated data)");
    expect(cell(dearer, "Year-one cash flow") as number).toBeLessThan(cell(card, "Year-one cash flow") as number);
    expect(cell(dearer, "Year-one revenue")).toBe(cell(card, "Year-one revenue"));
    const bear = await STR.whatif(id, OMITTED, OMITTED, OMITTED, OMITTED, "p25", [
      ["yearOneRevenueUSD, Cash flow, bear case (p25 revenue)"],
    ]);
    expect(bear[0]?.[0]).toBeCloseTo(card.find((row) => row[0] === "Annual revenue")?.[1] as number, 1);
    expect(bear[0]?.[1]).toBeCloseTo(cell(card, "Cash flow, bear case (p25 revenue)") as number, 0);
  });

  test("SENSITIVITY: the grid's cells agree with WHATIF at the same values", async () => {
    const id = cell(await STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8), "Analysis id");
    const grid = await STR.sensitivity(
      id,
      "purchasePrice",
      [[400000], [450000], [500000]],
      "interestRatePct",
      [["5%", "6%", "7%"]],
      "Cash-on-cash return",
    );
    expect(grid).toHaveLength(5);
    // The axes in words: the metric in the corner, the columns' variable across, the rows' down; simulated, so marked.
    expect(grid[0]).toEqual(["Cash-on-cash return", "Interest rate →", "", "SANDBOX: simulated data"]);
    expect(grid[1]).toEqual(["Purchase price ↓", 0.05, 0.06, 0.07]);
    expect(grid.slice(2).map((r) => r[0])).toEqual([400000, 450000, 500000]);
    for (const [r, price] of [400000, 450000, 500000].entries()) {
      for (const [c, rate] of [5, 6, 7].entries()) {
        const w = await STR.whatif(id, price, OMITTED, rate, OMITTED, OMITTED, [["yearOneCashOnCashPercentage"]]);
        expect(grid[r + 2]?.[c + 1]).toBe(w[0]?.[0]);
      }
    }
    const scenarios = await STR.sensitivity(id, "scenario", [["p25, p50, p75"]], "occupancy", [["50%, 60%"]], "DSCR");
    expect(scenarios[0]).toEqual(["DSCR", "Occupancy →", "SANDBOX: simulated data"]);
    expect(scenarios[1]).toEqual(["Revenue scenario ↓", 0.5, 0.6]);
    // One column leaves no room beside the title: the mark is the last row.
    const narrow = await STR.sensitivity(id, "price", [[400000]], "rate", [[5]], "DSCR");
    expect(narrow).toEqual([
      ["DSCR", "Interest rate →"],
      ["Purchase price ↓", 0.05],
      [400000, expect.any(Number)],
      ["SANDBOX: simulated data", ""],
    ]);
  });

  test("bad sensitivity arguments name the argument and the rule", async () => {
    const id = cell(await STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8), "Analysis id");
    const e = await excelError(STR.sensitivity(id, "color", [[1]], "interestRatePct", [["x"]], "Cap rate"));
    expect(e.code).toBe("#VALUE!");
    expect(e.message).toMatch(/rowVariable must be a what-if variable \(purchasePrice/);
    expect(e.message).toMatch(/columnValues must be a percentage/);
    expect((await excelError(STR.sensitivity(id, "price", [[1]], "rate", [[5]], "address"))).message).toMatch(
      /metric must be a numeric field/,
    );
    expect((await excelError(STR.whatif("not an id!"))).code).toBe("#VALUE!");
    expect((await excelError(STR.whatif("0123456789abcdef01234567"))).message).toMatch(/STR_ANALYSIS_NOT_FOUND/);
  });

  test("STR.CARD outside Excel (no data types) spills the card", async () => {
    const spill = await STR.card("buy", [["12 Main St, Austin TX"]], [[[450000]], [[3]], [[2]], [[8]]]);
    expect(cell(spill, "Mode")).toBe("Sandbox (simulated data)");
    expect((await excelError(STR.card("flip", [["x"]], []))).message).toMatch(
      /strategy must be one of buy, arb, owned, cohost/,
    );
    expect((await excelError(STR.card("buy", [["x"]], [[[1]]]))).message).toMatch(/bedrooms is required/);
  });
});

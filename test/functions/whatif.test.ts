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
    expect(cell(same, "Cached")).toMatch(/^Yes/);
  });

  test("other financing and a bear scenario change what they should", async () => {
    const card = await STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8);
    const id = cell(card, "Analysis id");
    const dearer = await STR.whatif(id, OMITTED, OMITTED, "7.5%");
    expect(cell(dearer, "Interest rate")).toBeCloseTo(0.075);
    expect(cell(dearer, "Year-one cash flow") as number).toBeLessThan(cell(card, "Year-one cash flow") as number);
    expect(cell(dearer, "Year-one revenue")).toBe(cell(card, "Year-one revenue"));
    const bear = await STR.whatif(id, OMITTED, OMITTED, OMITTED, OMITTED, "p25", [
      ["yearOneRevenueUSD, Cash flow, bear case (p25 revenue)"],
    ]);
    expect(bear[0]?.[0]).toBeCloseTo(cell(card, "Annual revenue, 25th percentile") as number, 1);
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
    expect(grid).toHaveLength(4);
    expect(grid[0]?.slice(1)).toEqual([0.05, 0.06, 0.07]);
    expect(grid.slice(1).map((r) => r[0])).toEqual([400000, 450000, 500000]);
    for (const [r, price] of [400000, 450000, 500000].entries()) {
      for (const [c, rate] of [5, 6, 7].entries()) {
        const w = await STR.whatif(id, price, OMITTED, rate, OMITTED, OMITTED, [["yearOneCashOnCashPercentage"]]);
        expect(grid[r + 1]?.[c + 1]).toBe(w[0]?.[0]);
      }
    }
    const scenarios = await STR.sensitivity(id, "scenario", [["p25, p50, p75"]], "occupancy", [["50%, 60%"]], "DSCR");
    expect(scenarios[0]?.slice(1)).toEqual([0.5, 0.6]);
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

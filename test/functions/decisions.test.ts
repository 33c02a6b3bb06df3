import { excelError, installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { MONTH_NAMES } from "../../src/contract";
import { npv } from "../../src/model";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

const OMITTED = null as unknown as undefined;
const cell = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];

let t: TestRelay;
const requests = async () =>
  [...(await t.relay.metrics.render()).matchAll(/^str_relay_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
    (s, m) => s + Number(m[1]),
    0,
  );

beforeAll(async () => {
  t = await startRelay();
  await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
  await addinConnection().update({
    relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
    token: TEST_TOKEN,
  });
});
afterAll(() => t.close());

const PURCHASES = {
  buy: () => STR.buy([["12 Main St, Austin TX"]], 450000, 3, 2, 8),
  owned: () => STR.owned([["4 Ridge Rd, Asheville NC"]], 380000, 25, 3.5, 30, 22, 3, 2, 6),
};
/** Each metric: its name as typed, a target per strategy, the WHATIF field, the target in the cell's unit, and the tolerance the issue allows. */
const METRICS = [
  {
    metric: "cash-on-cash",
    field: "yearOneCashOnCashPercentage",
    targets: { buy: "8%", owned: "15%" },
    inCell: (v: string) => parseFloat(v) / 100,
    tolerance: 0.0001,
  },
  { metric: "DSCR", field: "DSCR", targets: { buy: 1.25, owned: 1.8 }, inCell: (v: number) => v, tolerance: 0 },
  {
    metric: "cap rate",
    field: "Cap rate",
    targets: { buy: "7%", owned: "9%" },
    inCell: (v: string) => parseFloat(v) / 100,
    tolerance: 0.0001,
  },
  {
    metric: "cash flow",
    field: "yearOneCashFlowUSD",
    targets: { buy: 10000, owned: 15000 },
    inCell: (v: number) => v,
    tolerance: 1,
  },
] as const;

describe("STR.MAXBID: at the price it returns STR.WHATIF meets the target, and 100 USD more does not", () => {
  test.each(
    (Object.keys(PURCHASES) as (keyof typeof PURCHASES)[]).flatMap((s) =>
      METRICS.map((m) => [s, m.metric, m] as const),
    ),
  )("%s, %s", async (strategy, _name, m) => {
    const id = cell(await PURCHASES[strategy](), "Analysis id");
    const target = m.targets[strategy];
    const before = await requests();
    const arrivals = t.sandboxStats().arrivals;
    const bid = await STR.maxbid(id, m.metric, target);
    // Computed in the add-in from the analysis the session holds: nothing reaches the relay.
    expect(await requests()).toBe(before);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
    // The sandbox simulated the analysis: the bid spills its mark beside it.
    expect(bid).toEqual([[expect.any(Number), "SANDBOX: simulated data"]]);
    const price = bid[0]?.[0] as number;
    expect(Math.round(price * 100)).toBeCloseTo(price * 100, 6);
    const at = async (p: number) =>
      (await STR.whatif(id, p, OMITTED, OMITTED, OMITTED, OMITTED, [[m.field]]))[0]?.[0] as number;
    const goal = (m.inCell as (v: unknown) => number)(target);
    expect(await at(price)).toBeGreaterThanOrEqual(goal - m.tolerance);
    expect(await at(price + 100)).toBeLessThan(goal);
  });

  test("financing and a scenario are STR.WHATIF's: the bid holds with them too", async () => {
    const id = cell(await PURCHASES.buy(), "Analysis id");
    const bid = (await STR.maxbid(id, "CoC", 0.06, "p75", "25%", 7, 20))[0]?.[0] as number;
    const at = async (p: number) =>
      (await STR.whatif(id, p, "25%", 7, 20, "p75", [["Cash-on-cash return"]]))[0]?.[0] as number;
    expect(await at(bid)).toBeGreaterThanOrEqual(0.06);
    expect(await at(bid + 100)).toBeLessThan(0.06);
    expect(bid).toBeGreaterThan((await STR.maxbid(id, "CoC", 0.06))[0]?.[0] as number);
  });

  test("no price meets the target: #N/A saying why; no price at all, or bad arguments: #VALUE! naming them", async () => {
    const id = cell(await PURCHASES.buy(), "Analysis id");
    // Operating income is below 10,000,000 USD, so no price leaves that much cash flow.
    const none = await excelError(STR.maxbid(id, "cash flow", "$10,000,000"));
    expect(none.code).toBe("#N/A");
    expect(none.message).toMatch(
      /^\[STR_TARGET_UNREACHABLE\] Not billed: no price from 1 USD gives year-one cash flow ≥ 10,000,000 USD: at 1 USD it is/,
    );
    const arb = cell(await STR.arb([["1 Broadway, Nashville TN"]], 2200, 2, 1, 4), "Analysis id");
    expect(await excelError(STR.maxbid(arb, "cash flow", 0))).toEqual({
      code: "#VALUE!",
      message: expect.stringMatching(/analysisId has no maximum bid: the analysis is not a purchase/),
    });
    expect((await excelError(STR.maxbid(id, "ROI", "8%"))).message).toMatch(
      /metric must be one of cash-on-cash, DSCR, cap rate or cash flow; got "ROI"/,
    );
    expect((await excelError(STR.maxbid(id, "DSCR", "high"))).message).toMatch(/target must be a number; got "high"/);
    expect((await excelError(STR.maxbid(id, "DSCR", OMITTED))).message).toMatch(
      /target must be a number in the metric's unit; it is required/,
    );
    expect((await excelError(STR.maxbid(id, "DSCR", 1.2, "p42"))).message).toMatch(
      /scenario must be one of p25, p50, p75, p90 or avg/,
    );
  });
});

/** The projection's summary (label → value) and its year rows (after the header). */
function parts(spill: unknown[][]) {
  const header = spill.findIndex((row) => row[0] === "Year");
  const monthsTitle = spill.findIndex((row) => row[0] === "Year one by month");
  return {
    summary: (label: string) => cell(spill.slice(0, header), label) as number,
    // The year rows end at the blank row before year one's months.
    years: spill.slice(header + 1, monthsTitle - 1) as number[][],
    months: spill.slice(monthsTitle + 2) as [string, number, number, number, number][],
  };
}

describe("STR.PROJECTION", () => {
  test.each(Object.keys(PURCHASES) as (keyof typeof PURCHASES)[])(
    "%s, 30 years: year one is the card's, and the IRR zeroes the NPV of the spilled flows",
    async (strategy) => {
      const card = await PURCHASES[strategy]();
      const before = await requests();
      const spill = await STR.projection(cell(card, "Analysis id"), 30);
      expect(await requests()).toBe(before);
      expect(spill.every((row) => row.length === 9)).toBe(true);
      // A simulated analysis: its projection says so beside its title and the year table's.
      expect(spill[0]?.[1]).toBe("SANDBOX: simulated data");
      expect(spill.find((row) => row[0] === "Year by year")?.[1]).toBe("SANDBOX: simulated data");
      const { summary, years } = parts(spill);
      expect(years).toHaveLength(30);
      const [year, revenue, expenses, income, debt, cashFlow] = years[0] as number[];
      expect({ year, revenue, income, debt, cashFlow }).toEqual({
        year: 1,
        revenue: cell(card, "Year-one revenue"),
        income: cell(card, "Year-one operating income"),
        debt: cell(card, "Year-one mortgage & taxes"),
        cashFlow: cell(card, "Year-one cash flow"),
      });
      expect(expenses).toBeCloseTo((revenue as number) - (income as number), 2);
      expect(summary("Cash invested")).toBe(cell(card, "Total cash invested"));
      const flows = [-summary("Cash invested"), ...years.map((y) => y[5] as number)];
      flows[30] = (flows[30] as number) + summary("Proceeds at sale");
      expect(Math.abs(npv(summary("IRR"), flows))).toBeLessThan(1e-6);
      // Year one month by month: the service's seasons, adding up to year one's revenue and cash flow.
      expect(spill.find((row) => row[0] === "Year one by month")?.[1]).toBe("SANDBOX: simulated data");
      const { months } = parts(spill);
      expect(months.map((m) => m[0])).toEqual([...MONTH_NAMES]);
      const total = (i: number) => months.reduce((s, m) => s + (m[i] as number), 0);
      expect(total(1)).toBeCloseTo(revenue as number, 0);
      expect(total(4)).toBeCloseTo(cashFlow as number, 0);
      expect(new Set(months.map((m) => m[1])).size).toBeGreaterThan(1);
      expect(new Set(months.map((m) => m[3])).size).toBe(1);
    },
  );

  test("bad arguments name themselves; an arbitrage has nothing to project", async () => {
    const id = cell(await PURCHASES.buy(), "Analysis id");
    const e = await excelError(STR.projection(id, 31, "25%", OMITTED, OMITTED, OMITTED, OMITTED, 120));
    expect(e.code).toBe("#VALUE!");
    expect(e.message).toMatch(/years must be a whole number of years from 1 to 30; got 31/);
    expect(e.message).toMatch(/appreciationPct must be a yearly appreciation from -20 to 20 %; got 25/);
    expect(e.message).toMatch(/downPaymentPct must be a down payment from 0 to 100 %; got 120/);
    expect((await excelError(STR.projection(id, 5, OMITTED, OMITTED, OMITTED, -1))).message).toMatch(
      /sellingCostPct must be selling costs from 0 to 20 % of the sale price; got -1/,
    );
    expect((await excelError(STR.projection(id, OMITTED))).message).toMatch(
      /years must be a whole number of years from 1 to 30; it is required/,
    );
    const arb = cell(await STR.arb([["1 Broadway, Nashville TN"]], 2200, 2, 1, 4), "Analysis id");
    expect((await excelError(STR.projection(arb, 5))).message).toMatch(
      /analysisId cannot be projected: the analysis is not a purchase/,
    );
  });
});

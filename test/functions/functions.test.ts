import { excelError, installCustomFunctionsRuntime, invocation } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { canonicalRequest } from "../../src/contract";
import { billedCallRequest } from "../../src/inputs";

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection, refreshGate } = require("../../src/client") as typeof import("../../src/client");

const ADDRESS = [["12 Main St, Austin TX"]];
/** Excel passes an omitted optional argument as null; the TypeScript signatures say undefined. */
const OMITTED = null as unknown as undefined;
const cell = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];

describe("the STR.* functions, end to end through the real relay and sandbox", () => {
  let t: TestRelay;
  const batchRequests = () => t.relay.metrics.read(t.relay.metrics.requests, { route: "/v1/batch", status: "200" });

  beforeAll(async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "100" });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  test("STR.BUY spills the card: mode, percentiles, cash flow, report link, id — numbers as numbers", async () => {
    const grid = await STR.buy(ADDRESS, 450000, 3, 2, 8);
    // A label, then the values: six columns, the percentiles' table the widest.
    expect(grid.every((row) => row.length === 6)).toBe(true);
    expect(cell(grid, "Mode")).toBe("Sandbox (simulated data)");
    const revenue = grid.find((row) => row[0] === "Annual revenue");
    expect(revenue?.slice(1).every((v) => typeof v === "number")).toBe(true);
    expect(typeof cell(grid, "Year-one cash flow")).toBe("number");
    expect(String(cell(grid, "Report"))).toMatch(/\/sandbox\/reports\//);
    expect(String(cell(grid, "Analysis id"))).toMatch(/^[0-9a-f]{24}$/);
    // Percents are fractions, so =B5*B6 computes.
    const capRate = cell(grid, "Cap rate") as number;
    expect(capRate).toBeGreaterThan(0);
    expect(capRate).toBeLessThan(1);
  });

  test("values typed the way spreadsheets hold them are read, and a recalculation sends nothing", async () => {
    const before = t.sandboxStats().arrivals;
    const grid = await STR.buy([["12 Main St, Austin TX"]], "$450,000", "3", [[2]], 8);
    expect(cell(grid, "Cached")).toMatch(/^Yes/);
    expect(t.sandboxStats().arrivals).toBe(before);
  });

  test("with fields, one screening row and a trailing warnings cell that says the figures are simulated", async () => {
    const row = await STR.buy(ADDRESS, 450000, 3, 2, 8, OMITTED, [["revenue.p50, Cap rate, yearOneCashFlowUSD"]]);
    expect(row).toHaveLength(1);
    expect(row[0]).toHaveLength(4);
    expect(row[0]?.slice(0, 3).every((v) => typeof v === "number")).toBe(true);
    // The sandbox answered: the row carries that wherever it is copied.
    expect(row[0]?.[3]).toBe("⚠ SANDBOX: simulated data");
  });

  test("bad arguments fail at once with #VALUE! naming the argument and the rule; nothing is sent", async () => {
    const before = t.sandboxStats().arrivals;
    const e = await excelError(STR.buy(ADDRESS, -5, 2.5, 2, "", OMITTED, OMITTED));
    expect(e.code).toBe("#VALUE!");
    expect(e.message).toContain("purchasePrice must be a number greater than 0");
    expect(e.message).toContain("bedrooms must be a whole number from 0 to 50; got 2.5");
    expect(e.message).toContain("guests is required");
    expect((await excelError(STR.buy([[""]], 1, 1, 1, 1))).message).toContain("location is required");
    expect((await excelError(STR.buy(ADDRESS, 1, 1, 1, 1, [["interest=99"]]))).message).toMatch(
      /interestRatePercentage must be a number from 0 to 15/,
    );
    expect((await excelError(STR.buy(ADDRESS, 1, 1, 1, 1, [["commission=5"]]))).message).toMatch(
      /options.*"commission" is not an option of buy/,
    );
    expect((await excelError(STR.arb(ADDRESS, 2000, 2, 1, 4, OMITTED, [["cap rate"]]))).message).toMatch(
      /fields.*not in arb analyses/,
    );
    expect((await excelError(STR.owned(ADDRESS, 300000, 20, 6, 15, 20, 3, 2, 6))).message).toContain(
      "yearsRemaining must not exceed mortgageLength",
    );
    expect(t.sandboxStats().arrivals).toBe(before);
  });

  test("STR.ARB, STR.OWNED and STR.COHOST (with lat,lng and a 1×2 range) answer their own metrics", async () => {
    const arb = await STR.arb([["36.1627,-86.7816"]], "$2,100", 2, 1, 4);
    expect(cell(arb, "Monthly rent")).toBe(2100);
    const owned = await STR.owned([[30.2672, -97.7431]], 300000, 0.2, "6.5%", 30, 22, 3, 2, 6);
    expect(cell(owned, "Interest rate")).toBeCloseTo(0.065);
    expect(cell(owned, "Down payment")).toBeCloseTo(0.2);
    const cohost = await STR.cohost(ADDRESS, 2, 1, 4, 25);
    expect(cell(cohost, "Co-host commission")).toBeCloseTo((cell(cohost, "Year-one revenue") as number) * 0.25, 0);
  });

  test("STR.ENHANCE and STR.COMPS work from an analysis id", async () => {
    const card = await STR.buy(ADDRESS, 450000, 3, 2, 8);
    const id = cell(card, "Analysis id");
    const enhanced = await STR.enhance(id, OMITTED, true);
    expect(cell(enhanced, "Analysis id")).toBe(id);
    const comps = await STR.comps([[id]], 5);
    expect(comps[0]?.[0]).toBe("Listing");
    expect(comps).toHaveLength(6);
    // The first photo of each listing, a URL IMAGE() can show.
    const photo = (comps[0] as unknown[]).indexOf("Photo");
    expect(String(comps[1]?.[photo])).toMatch(/^https?:\/\/.+\/photos\//);
    // Simulated figures say so in their own cells, so a copied comparable row carries it.
    const warningsColumn = (comps[0] as unknown[]).length - 1;
    expect(comps[0]?.[warningsColumn]).toBe("Warnings");
    expect(String(comps[1]?.[warningsColumn])).toMatch(/SANDBOX: simulated data/);
    expect((await excelError(STR.comps("no such id!", 5))).code).toBe("#VALUE!");
    expect((await excelError(STR.comps("0123456789abcdef01234567", 5))).message).toMatch(/STR_ANALYSIS_NOT_FOUND/);
  });

  test("200 calls in one tick → at most 2 HTTP requests, each cell right; the same 200 again → nothing sent", async () => {
    const batchesBefore = await batchRequests();
    const arrivalsBefore = t.sandboxStats().arrivals;
    const grids = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        STR.cohost([[`${i} Lake Rd, Asheville NC`]], 2, 1, 4, OMITTED, OMITTED, [["fullAddress, revenue.p50"]]),
      ),
    );
    expect((await batchRequests()) - batchesBefore).toBeLessThanOrEqual(2);
    expect(grids.map((g) => g[0]?.[0])).toEqual(Array.from({ length: 200 }, (_, i) => `${i} Lake Rd, Asheville NC`));
    expect(t.sandboxStats().reports).toBeGreaterThanOrEqual(200);
    const created = t.sandboxStats().arrivals;
    expect(created - arrivalsBefore).toBeGreaterThanOrEqual(200);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        STR.cohost([[`${i} Lake Rd, Asheville NC`]], 2, 1, 4, OMITTED, OMITTED, [["fullAddress, revenue.p50"]]),
      ),
    );
    expect(t.sandboxStats().arrivals).toBe(created);
  });

  test("a formula being typed (value preview) sends nothing", async () => {
    const before = t.sandboxStats().arrivals;
    const grid = await STR.buy(
      ADDRESS,
      999999,
      3,
      2,
      8,
      OMITTED,
      OMITTED,
      invocation({ isInValuePreview: "true" }) as never,
    );
    expect(String(grid[0]?.[0])).toMatch(/press Enter/);
    expect(t.sandboxStats().arrivals).toBe(before);
  });

  test("a cancelled cell settles with #N/A and its call is dropped", async () => {
    const inv = invocation();
    const pending = STR.buy(ADDRESS, 777777, 3, 2, 8, OMITTED, OMITTED, inv as never);
    inv.cancel();
    const e = await excelError(pending);
    expect(e.code).toBe("#N/A");
    expect(e.message).toMatch(/STR_CANCELLED/);
  });

  test("the refresh gate makes the priced call a billed refresh, once, then closes by itself", async () => {
    const first = cell(await STR.buy(ADDRESS, 450000, 3, 2, 8), "Analysis id");
    const built = billedCallRequest("BUY", [ADDRESS, 450000, 3, 2, 8]);
    if (!built.ok) throw new Error("the test's request is valid");
    refreshGate.open([canonicalRequest(built.op, built.request)]);
    const refreshed = await STR.buy(ADDRESS, 450000, 3, 2, 8);
    expect(refreshGate.isOpen()).toBe(false);
    expect(cell(refreshed, "Analysis id")).not.toBe(first);
    expect(cell(refreshed, "Cached")).toMatch(/^No/);
    expect(cell(await STR.buy(ADDRESS, 450000, 3, 2, 8), "Analysis id")).toBe(cell(refreshed, "Analysis id"));
  });

  test("over budget → #N/A saying what to do, and nothing is sent", async () => {
    const poor = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.1" });
    await poor.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const { settings } = await addinConnection().get();
    try {
      await addinConnection().update({
        relayUrl: `http://127.0.0.1:${(poor.relay.app.server.address() as { port: number }).port}`,
        token: TEST_TOKEN,
      });
      const e = await excelError(STR.buy(ADDRESS, 450000, 3, 2, 8));
      expect(e.code).toBe("#N/A");
      expect(e.message).toMatch(/^\[STR_BUDGET_EXCEEDED\] .*RELAY_BUDGET_USD_PER_DAY/);
      expect(poor.sandboxStats().arrivals).toBe(0);
    } finally {
      await addinConnection().update(settings);
      await poor.close();
    }
  });
});

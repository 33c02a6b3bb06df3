import { monthlyOf } from "../../src/contract";
import { installCustomFunctionsRuntime } from "../support/custom-functions";
import { STAND_IN_KEY, StandIn, startStandIn } from "../support/live-standin";
import { BUY_PATH, TEST_TOKEN, TestRelay, startRelay } from "../support/relay";
import { MONTHLY_EXPECTED, PRICE, liveData } from "./shapes";

/**
 * Twelve months: the live answer's `revenueData` becomes `monthly` (calendar order, occupancy a
 * fraction), STR.MONTHLY spills it, and an answer without months says so instead of inventing them.
 * The sandbox simulates a season per market, so the same works offline.
 */

installCustomFunctionsRuntime();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { addinConnection } = require("../../src/client") as typeof import("../../src/client");

const body = (fullAddress: string) => ({
  fullAddress,
  purchasePriceUSD: PRICE,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
});

describe("revenueData as twelve months", () => {
  test("YYYY-MM keys out of order are sorted by year and month", () => {
    const read = monthlyOf({ "2026-03": 3, "2025-12": 1, "2026-01": 2 });
    expect(read?.monthly.map((m) => m.month)).toEqual(["2025-12", "2026-01", "2026-03"]);
  });

  test("month names and numbers are read; occupancy in percent becomes a fraction", () => {
    const read = monthlyOf({
      March: { average_daily_rate: 200, average_occupancy_rate: 61, average_revenue: 3_782 },
      jan: { average_daily_rate: "180", average_occupancy_rate: 0.4, average_revenue: 2_232 },
      "2": { average_daily_rate: 190, average_occupancy_rate: 50, average_revenue: 2_660 },
    });
    expect(read?.monthly).toEqual([
      { month: "Jan", ratePerNightUSD: 180, occupancy: 0.4, revenueUSD: 2_232 },
      { month: "Feb", ratePerNightUSD: 190, occupancy: 0.5, revenueUSD: 2_660 },
      { month: "Mar", ratePerNightUSD: 200, occupancy: 0.61, revenueUSD: 3_782 },
    ]);
    expect(read?.notes).toContain("the service gave 3 months of figures, not 12");
  });

  test("a key that names no month is left out and said; an occupancy over 100 % is blank and said", () => {
    const read = monthlyOf({ total: 1, "2026-01": { average_occupancy_rate: 250 } });
    expect(read?.monthly).toEqual([{ month: "2026-01" }]);
    expect(read?.notes).toEqual(
      expect.arrayContaining([
        'monthly figures: "total" names no month; left out',
        "monthly occupancy outside 0–100 % in 1 months; left blank",
      ]),
    );
  });
});

describe("STR.MONTHLY and STR.COMPS on a live answer, and the sandbox's months", () => {
  let standIn: StandIn;
  let live: TestRelay;
  let sandbox: TestRelay;
  const connect = async (t: TestRelay) =>
    addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });

  beforeAll(async () => {
    standIn = await startStandIn(({ body: b }) => {
      const id = b.fullAddress === "no months" ? "an_nomonths" : "an_months";
      const { revenueData, ...withoutMonths } = liveData(id);
      return {
        status: 200,
        body: { success: true, data: id === "an_nomonths" ? withoutMonths : { ...withoutMonths, revenueData } },
      };
    });
    live = await startRelay({ STR_API_KEY: STAND_IN_KEY, STR_API_BASE_URL: standIn.url });
    await live.relay.app.listen({ host: "127.0.0.1", port: 0 });
    sandbox = await startRelay();
    await sandbox.relay.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await live.close();
    await sandbox.close();
    await standIn.close();
  });

  test("a live answer's twelve months, labelled, in calendar order", async () => {
    await connect(live);
    expect((await live.post(BUY_PATH, body("1 Beach Rd, Destin FL"))).status).toBe(200);
    const grid = await STR.monthly("an_months");
    expect(grid[0]).toEqual(["Month", "Nightly rate", "Occupancy", "Revenue", "Warnings"]);
    expect(grid).toHaveLength(13);
    expect(grid.slice(1).map((r) => ({ month: r[0], ratePerNightUSD: r[1], occupancy: r[2] }))).toEqual(
      MONTHLY_EXPECTED,
    );
    expect(grid.slice(1).every((r) => typeof r[3] === "number")).toBe(true);
  });

  test("STR.COMPS shows what the live service gives beyond the spec: cleaning fee, rating, reviews, superhost, coordinates", async () => {
    await connect(live);
    const grid = await STR.comps("an_months");
    const header = grid[0] as string[];
    const first = grid[1] as unknown[];
    const at = (label: string) => first[header.indexOf(label)];
    // The nearest listing (Beach house 1, 161 m away), its trailing-twelve-month figures under the spec's columns.
    expect(at("Listing")).toBe("Beach house 1");
    expect(at("Annual revenue")).toBe(41_000);
    expect(at("Occupancy")).toBeCloseTo(0.51, 10);
    expect(at("Distance")).toBeCloseTo(0.1, 3);
    expect(at("Listing id")).toBe("40000001");
    expect(at("Photo")).toBe("https://img.example/1.jpg");
    expect([at("Cleaning fee"), at("Rating"), at("Reviews"), at("Superhost")]).toEqual([151, 4.8, 101, false]);
    expect(at("Latitude") as number).toBeCloseTo(30.391, 9);
    expect(at("Longitude") as number).toBeCloseTo(-86.491, 9);
  });

  test("an answer without months says the service gave none, and invents nothing", async () => {
    await connect(live);
    await live.post(BUY_PATH, body("no months"));
    const grid = await STR.monthly("an_nomonths");
    expect(grid).toHaveLength(2);
    expect(grid[1]?.slice(0, 4)).toEqual(["The service gave no monthly figures for this analysis", "", "", ""]);
  });

  test("the sandbox's months are marked simulated, and follow the market's season", async () => {
    await connect(sandbox);
    const beach = (await sandbox.post(BUY_PATH, body("12 Gulf Shore Dr, Destin FL"))).json.data._id as string;
    const ski = (await sandbox.post(BUY_PATH, body("5 Main St, Breckenridge CO"))).json.data._id as string;
    const occupancy = async (id: string) => {
      const grid = await STR.monthly(id);
      expect(grid).toHaveLength(13);
      expect(String(grid[1]?.[4])).toMatch(/^⚠ SANDBOX: simulated data/);
      return grid.slice(1).map((r) => r[2] as number);
    };
    const summer = (o: number[]) => (o[5]! + o[6]! + o[7]!) / 3;
    const winter = (o: number[]) => (o[11]! + o[0]! + o[1]!) / 3;
    const b = await occupancy(beach);
    const s = await occupancy(ski);
    expect(summer(b)).toBeGreaterThan(winter(b) * 1.5);
    expect(winter(s)).toBeGreaterThan(summer(s) * 1.3);
  });
});

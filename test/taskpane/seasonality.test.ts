import { seasonalityOf } from "../../taskpane/seasonality";

/** The pane's twelve months: calendar rows as the answer carries them, the high and low months, or none said. */
describe("the seasonality the pane draws", () => {
  test("twelve months: short names, revenue for the bars, the high and low months", () => {
    const monthly = Array.from({ length: 12 }, (_, i) => ({
      month: `2026-${String(i + 1).padStart(2, "0")}`,
      revenueUSD: i === 6 ? 9000 : i === 0 ? 1200 : 4000,
      ratePerNightUSD: 200,
      occupancy: 0.5,
    }));
    const s = seasonalityOf({ monthly });
    if (s.kind !== "months") throw new Error("months expected");
    expect(s.months.map((m) => m.label)).toEqual([
      "Jan",
      "Feb",
      "Mar",
      "Apr",
      "May",
      "Jun",
      "Jul",
      "Aug",
      "Sep",
      "Oct",
      "Nov",
      "Dec",
    ]);
    expect([s.high?.label, s.low?.label]).toEqual(["Jul", "Jan"]);
  });

  test("a month without revenue is kept, not counted as the low one", () => {
    const s = seasonalityOf({ monthly: [{ month: "Jan" }, { month: "Feb", revenueUSD: 10 }] });
    expect(s.kind === "months" && [s.months.length, s.low?.label]).toEqual([2, "Feb"]);
  });

  test("no months: said, nothing made up", () => {
    expect(seasonalityOf({ monthly: [] })).toEqual({
      kind: "none",
      message: "The service gave no monthly figures for this analysis.",
    });
    expect(seasonalityOf(undefined).kind).toBe("none");
  });
});

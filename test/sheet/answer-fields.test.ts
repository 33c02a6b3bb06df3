import { RelayAnswer, findField, moneyFormat } from "../../src/contract";
import { maxBid, maxBidField, parseMaxBidRule } from "../../src/model";
import { analysisOf, comparablesTable, fieldsRow, parseFieldList } from "../../src/sheet";
import { buyAnswer } from "./fixtures";

/** Every answer field reaches a cell: the geocoded point, the quartiles, a comparable's photo; money in the answer's currency. */
const withData = (extra: Record<string, unknown>): RelayAnswer =>
  RelayAnswer.parse({ ...buyAnswer, data: { ...(buyAnswer.data as object), ...extra } });

const QUARTILES = {
  "25th_percentile": { revenue: 47_000, average_daily_rate: 205, occupancy_rate: 61 },
  "50th_percentile": { revenue: 59_000, average_daily_rate: 248, occupancy_rate: 72.5 },
  "75th_percentile": { revenue: 71_000, average_daily_rate: 288, occupancy_rate: 79 },
  "90th_percentile": { revenue: 84_000, average_daily_rate: 335, occupancy_rate: 87 },
};

describe("every answer field is reachable in cells", () => {
  test("latitude and longitude come from the answer's location (GeoJSON: longitude first)", () => {
    const list = parseFieldList("latitude, longitude");
    if (!list.ok) throw new Error(list.message);
    const row = fieldsRow(buyAnswer, list.fields);
    expect(row.slice(0, 2)).toEqual([
      { value: 30.27, format: "0.000000" },
      { value: -97.74, format: "0.000000" },
    ]);
    expect(fieldsRow(withData({ location: undefined }), list.fields)[0]?.value).toBe("");
  });

  test("the quartiles, by path or label; occupancy_rate (a percent) as a fraction", () => {
    const list = parseFieldList(
      "quartiles.25th_percentile.revenue; Quartiles: nightly rate, median; Quartiles: occupancy, 90th percentile",
    );
    if (!list.ok) throw new Error(list.message);
    const row = fieldsRow(withData({ quartiles: QUARTILES }), list.fields);
    expect(row.slice(0, 3).map((c) => c.value)).toEqual([47_000, 248, 0.87]);
    expect(row[2]?.format).toBe("0.0%");
  });

  test("STR.COMPS and the Comparables sheet have a Photo column: the first photo's URL, for IMAGE()", () => {
    const table = comparablesTable(analysisOf(buyAnswer));
    if (!table.ok) throw new Error(table.message);
    const photo = table.grid[0]?.findIndex((c) => c.value === "Photo") as number;
    expect(photo).toBeGreaterThan(0);
    expect(table.grid[1]?.[photo]?.value).toMatch(/^https:\/\/photos\.example\/\d\.jpg$/);
  });

  test("a non-USD currency sets the money formats of the answer's cells; USD and no currency keep $", () => {
    const eur = withData({ currency: "eur" });
    const fields = [findField("revenue.p50")!, findField("occupancy.p50")!, findField("yearOneCashFlowUSD")!];
    const row = fieldsRow(eur, fields);
    expect(row.map((c) => c.format)).toEqual(["[$EUR] #,##0", "0.0%", "[$EUR] #,##0", undefined]);
    expect(fieldsRow(buyAnswer, fields)[0]?.format).toBe("$#,##0");
    const comps = comparablesTable(analysisOf(eur));
    if (!comps.ok) throw new Error(comps.message);
    const revenue = comps.grid[0]?.findIndex((c) => c.value === "Annual revenue") as number;
    expect(comps.grid[1]?.[revenue]?.format).toBe("[$EUR] #,##0");
    expect(moneyFormat(undefined)).toBe("$#,##0");
    // Only a currency code goes into a format: anything else could break it, and has no symbol (never "$").
    expect(moneyFormat('E"UR')).toBe("#,##0");
  });

  test("a currency sent as a symbol is formatted as its code: € is EUR, never $", () => {
    expect(moneyFormat("€")).toBe("[$EUR] #,##0");
    expect(moneyFormat(" £ ")).toBe("[$GBP] #,##0");
    expect(moneyFormat("$")).toBe("$#,##0");
    expect(moneyFormat("₿")).toBe("#,##0");
  });

  test("the max-bid column holds STR.MAXBID's price, in the answer's currency", () => {
    const rule = parseMaxBidRule("cash-on-cash >= 6%");
    if (!rule.ok) throw new Error(rule.message);
    const column = maxBidField(rule.rule);
    expect(column.label).toBe("Max bid (cash-on-cash>=6%)");
    const bid = maxBid(analysisOf(buyAnswer)!, rule.rule);
    if (!bid.ok) throw new Error(bid.message);
    expect(fieldsRow(buyAnswer, [column])[0]).toEqual({ value: bid.priceUSD, format: "$#,##0" });
  });
});

import { BID_METRICS, BidMetric, PROJECTION_YEARS, findBidMetric } from "../contract";
import { CellInput, Read, isBlank, readMoney, readNumber, readPercent } from "./values";
import { within } from "./whatif-variables";

/*
 * The arguments of the decision functions (STR.MAXBID, STR.PROJECTION) beyond those they share
 * with STR.WHATIF: the metric and its target, the hold and its growth rates.
 */

const METRIC_NAMES = "cash-on-cash, DSCR, cap rate or cash flow";

export function readBidMetric(input: CellInput): Read<BidMetric> {
  if (isBlank(input)) return { ok: false, message: `one of ${METRIC_NAMES}; it is required` };
  const metric = findBidMetric(String(input));
  return metric
    ? { ok: true, value: metric }
    : { ok: false, message: `one of ${METRIC_NAMES}; got ${JSON.stringify(String(input))}` };
}

/** The target in the metric's unit: a percentage ("8%", 8 or a %-formatted 0.08), a ratio (1.25) or USD. */
export function readBidTarget(input: CellInput, metric: BidMetric): Read<number> {
  if (isBlank(input)) return { ok: false, message: "a number in the metric's unit; it is required" };
  const unit = BID_METRICS[metric].unit;
  if (unit === "percent") return readPercent(input);
  return unit === "usd" ? readMoney(input) : readNumber(input);
}

/** The hold: a whole number of years. */
export function readYears(input: CellInput): Read<number> {
  const { min, max } = PROJECTION_YEARS;
  const r = readNumber(input);
  if (!r.ok) return r;
  if (r.value === undefined)
    return { ok: false, message: `a whole number of years from ${min} to ${max}; it is required` };
  return Number.isInteger(r.value) && r.value >= min && r.value <= max
    ? r
    : { ok: false, message: `a whole number of years from ${min} to ${max}; got ${r.value}` };
}

/** The projection's yearly rates, in percent, each within what it can mean. */
export const PROJECTION_RATES = [
  {
    name: "appreciationPct",
    field: "appreciationPercentage",
    read: within(readPercent, -20, 20, "a yearly appreciation from -20 to 20 %"),
  },
  {
    name: "revenueGrowthPct",
    field: "revenueGrowthPercentage",
    read: within(readPercent, -20, 20, "a yearly revenue growth from -20 to 20 %"),
  },
  {
    name: "expenseGrowthPct",
    field: "expenseGrowthPercentage",
    read: within(readPercent, -20, 20, "a yearly expense growth from -20 to 20 %"),
  },
  {
    name: "sellingCostPct",
    field: "sellingCostPercentage",
    read: within(readPercent, 0, 20, "selling costs from 0 to 20 % of the sale price"),
  },
] as const;

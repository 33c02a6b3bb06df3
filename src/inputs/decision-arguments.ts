import { FieldIssue, Validated } from "../contract";
import { BID_METRICS, BidMetric, PROJECTION_YEARS, ProjectionInputs, findBidMetric } from "../model";
import { single } from "./arguments";
import { CellInput, Read, isBlank, readMoney, readNumber, readPercent } from "./values";
import { readWhatIfArguments, within } from "./whatif-variables";

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

/** STR.MAXBID's metric and target: a target is read in its metric's unit, so a bad metric is named alone. */
export function readBidArguments(metric: unknown, target: unknown): Validated<{ metric: BidMetric; target: number }> {
  const m = readBidMetric(single(metric));
  if (!m.ok || m.value === undefined)
    return { ok: false, issues: [{ path: "metric", message: `must be ${m.ok ? "given" : m.message}` }] };
  const t = readBidTarget(single(target), m.value);
  if (!t.ok || t.value === undefined)
    return { ok: false, issues: [{ path: "target", message: `must be ${t.ok ? "given" : t.message}` }] };
  return { ok: true, value: { metric: m.value, target: t.value } };
}

export type ProjectionRateName = (typeof PROJECTION_RATES)[number]["name"];

/**
 * STR.PROJECTION's arguments: the hold, its rates by name (omitted: the model's own) and the
 * financing by name (what-if variables). Every bad one is named: the hold, the financing, the rates.
 */
export function readProjectionArguments(
  years: unknown,
  rates: Readonly<Partial<Record<ProjectionRateName, unknown>>>,
  financing: Readonly<Record<string, unknown>>,
): Validated<ProjectionInputs> {
  const issues: FieldIssue[] = [];
  const hold = readYears(single(years));
  if (!hold.ok) issues.push({ path: "years", message: `must be ${hold.message}` });
  const loan = readWhatIfArguments(financing);
  if (!loan.ok) issues.push(...loan.issues);
  const inputs: ProjectionInputs = { ...(loan.ok ? loan.value : {}), years: hold.ok ? (hold.value as number) : 0 };
  for (const rate of PROJECTION_RATES) {
    const r = rate.read(single(rates[rate.name]));
    if (!r.ok) issues.push({ path: rate.name, message: `must be ${r.message}` });
    else if (r.value !== undefined) inputs[rate.field] = r.value;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: inputs };
}

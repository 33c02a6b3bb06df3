import { Analysis } from "../contract/analysis";
import { FieldInfo } from "../contract/catalogue";
import { BID_METRICS, BidMetric, findBidMetric, maxBid } from "./max-bid";

/**
 * The maximum bid as a screening column (the pane's option, `str-screen --max-bid "cash-on-cash>=8%"`):
 * a rule such as `cash-on-cash>=8%` read once, then a column of the result block whose cells are
 * STR.MAXBID of each row's analysis — computed from the answer with the same model, free. The
 * column's header is the rule itself ("Max bid (cash-on-cash>=8%)"), so a later run or refresh of
 * the table finds the column and keeps it.
 */
export interface MaxBidRule {
  metric: BidMetric;
  /** In the metric's unit: percent (8 for 8 %), ratio (1.25) or USD. */
  target: number;
}

/** The names a rule writes each metric with (any name findBidMetric knows is read). */
export const MAX_BID_METRIC_NAMES: Readonly<Record<BidMetric, string>> = {
  yearOneCashOnCashPercentage: "cash-on-cash",
  dscr: "dscr",
  yearOneCapRatePercentage: "cap-rate",
  yearOneCashFlowUSD: "cash-flow",
};

const METRIC_LIST = Object.values(MAX_BID_METRIC_NAMES).join(", ");
const EXAMPLES = '"cash-on-cash>=8%", "cap-rate>=6%", "dscr>=1.25" or "cash-flow>=5000 USD"';
const MAX_BID_LABEL = /^max bid \((.*)\)$/i;

export type MaxBidRuleResult = { ok: true; rule: MaxBidRule } | { ok: false; message: string };

/** Reads "METRIC>=VALUE"; the message names what is wrong and how to write it. */
export function parseMaxBidRule(input: string): MaxBidRuleResult {
  const fail = (why: string): MaxBidRuleResult => ({ ok: false, message: `${why}; write it as ${EXAMPLES}` });
  const text = input.trim();
  const op = /(>=|≥|<=|≤|=>|=<|==|>|<|=)/.exec(text);
  if (!op) return fail(`${JSON.stringify(input)} has no >=`);
  if (op[0] !== ">=" && op[0] !== "≥")
    return fail(
      `${JSON.stringify(op[0])} is not supported, only >=: the maximum bid is the highest price at which the metric is at least the target`,
    );
  const name = text.slice(0, op.index).trim();
  const metric = findBidMetric(name);
  if (!metric) return fail(`${JSON.stringify(name)} is not a metric (${METRIC_LIST})`);
  const target = readTarget(metric, text.slice(op.index + op[0].length).trim());
  return typeof target === "number" ? { ok: true, rule: { metric, target } } : fail(target);
}

/** The value after >=, in the metric's unit; or why it cannot be read. */
function readTarget(metric: BidMetric, value: string): number | string {
  const unit = BID_METRICS[metric].unit;
  const name = MAX_BID_METRIC_NAMES[metric];
  if (value === "") return `${name}>= needs a target value`;
  const percent = /%\s*$/.test(value);
  const usd = /^\$|\bUSD\b/i.test(value);
  const digits = value
    .replace(/%\s*$/, "")
    .replace(/^\$|\bUSD\b/gi, "")
    .replace(/,/g, "")
    .trim();
  const n = /^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isFinite(n)) return `the target ${JSON.stringify(value)} is not a number`;
  if (unit === "percent" && (!percent || usd))
    return `${name} is a percent: write the target with %, such as ${name}>=8%; got ${JSON.stringify(value)}`;
  if (unit === "ratio" && (percent || usd))
    return `${name} is a ratio such as 1.25, without % or USD; got ${JSON.stringify(value)}`;
  if (unit === "usd" && percent)
    return `${name} is an amount in USD, such as ${name}>=5000 USD; got ${JSON.stringify(value)}`;
  return n;
}

/** The rule as written in the column's header: "cash-on-cash>=8%". */
export function maxBidRuleText(rule: MaxBidRule): string {
  const unit = BID_METRICS[rule.metric].unit;
  const value = unit === "percent" ? `${rule.target}%` : unit === "usd" ? `${rule.target} USD` : String(rule.target);
  return `${MAX_BID_METRIC_NAMES[rule.metric]}>=${value}`;
}

/** The column: a derived USD field of buy and owned analyses, blank where no price meets the target. */
export function maxBidField(rule: MaxBidRule): FieldInfo {
  const text = maxBidRuleText(rule);
  return {
    path: `maxBid(${text})`,
    label: `Max bid (${text})`,
    unit: "usd",
    group: "Investor metrics",
    strategies: ["buy", "owned"],
    derive: (analysis: Analysis) => {
      const bid = maxBid(analysis, rule);
      return bid.ok ? bid.priceUSD : undefined;
    },
  };
}

/** The column a header names ("Max bid (cash-on-cash>=8%)"), for reading a screened table back. */
export function findMaxBidField(header: string): FieldInfo | undefined {
  const m = MAX_BID_LABEL.exec(header.trim());
  const parsed = m ? parseMaxBidRule(m[1] as string) : undefined;
  return parsed?.ok ? maxBidField(parsed.rule) : undefined;
}

/** Whether a field is a max-bid column. */
export function isMaxBidField(field: Pick<FieldInfo, "path">): boolean {
  return field.path.startsWith("maxBid(");
}

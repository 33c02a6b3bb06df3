import { FieldIssue, PERCENTILE_KEYS, PercentileKey, Validated } from "../contract";
import { WhatIfInputs } from "../model";
import { single } from "./arguments";
import { CellInput, Read, isBlank, readMoney, readNumber, readPercent } from "./values";

/**
 * The variables a what-if can change (STR.WHATIF's arguments, STR.SENSITIVITY's rows and columns):
 * each with the names users write, how its values read, and where it goes in the model's inputs.
 */
export interface WhatIfVariable {
  name: string;
  names: readonly string[];
  /** "usd", "percent" (given 6.5 → 6.5), "fraction" (given 55% → 0.55), "years", "scenario". */
  unit: "usd" | "percent" | "fraction" | "years" | "scenario";
  read: (input: CellInput) => Read<number | PercentileKey>;
  apply: (inputs: WhatIfInputs, value: number | PercentileKey) => void;
}

const readScenario = (input: CellInput): Read<PercentileKey> => {
  if (isBlank(input)) return { ok: true, value: undefined };
  const key = String(input)
    .trim()
    .toLowerCase()
    .replace(/^(\d\d)(th)?$/, "p$1")
    .replace(/^median$/, "p50")
    .replace(/^average$|^mean$/, "avg") as PercentileKey;
  return PERCENTILE_KEYS.includes(key)
    ? { ok: true, value: key }
    : { ok: false, message: `one of p25, p50, p75, p90 or avg; got ${JSON.stringify(String(input))}` };
};
/** A what-if's percent up to `maxPercent`: 1 is 100 % where that is allowed (readPercent). */
const percentUpTo = (maxPercent: number) => (input: CellInput) => readPercent(input, { maxPercent });
const readFraction = (input: CellInput): Read<number> => {
  const r = readPercent(input, { maxPercent: 100 });
  return r.ok && r.value !== undefined ? { ok: true, value: r.value / 100 } : r;
};

/**
 * A reader that also holds a value within the range a what-if can mean. Wider than the service's own
 * ranges (its 0–40 % down payment, 0–15 % interest), since a what-if is for trying what the service
 * would not be asked; but a 500 % down payment or a negative price is a typing slip, not a scenario.
 */
export function within<T extends number>(
  read: (input: CellInput) => Read<T>,
  min: number,
  max: number,
  what: string,
): (input: CellInput) => Read<T> {
  return (input) => {
    const r = read(input);
    if (!r.ok || r.value === undefined) return r;
    if (r.value < min || r.value > max) return { ok: false, message: `${what}; got ${r.value}` };
    return r;
  };
}

export const WHATIF_VARIABLES: readonly WhatIfVariable[] = [
  {
    name: "purchasePrice",
    names: ["purchaseprice", "price"],
    unit: "usd",
    read: within(readMoney, 1, 1e9, "a price in USD from 1 to 1,000,000,000"),
    apply: (i, v) => (i.purchasePriceUSD = v as number),
  },
  {
    name: "downPaymentPct",
    names: ["downpaymentpct", "downpayment", "down"],
    unit: "percent",
    read: within(percentUpTo(100), 0, 100, "a down payment from 0 to 100 %"),
    apply: (i, v) => (i.downPaymentPercentage = v as number),
  },
  {
    name: "interestRatePct",
    names: ["interestratepct", "interestrate", "interest", "rate"],
    unit: "percent",
    read: within(percentUpTo(30), 0, 30, "an interest rate from 0 to 30 %"),
    apply: (i, v) => (i.interestRatePercentage = v as number),
  },
  {
    name: "mortgageYears",
    names: ["mortgageyears", "mortgagelength", "term", "years"],
    unit: "years",
    read: within(readNumber, 0, 50, "a mortgage length from 0 to 50 years"),
    apply: (i, v) => (i.mortgageLength = v as number),
  },
  {
    name: "scenario",
    names: ["scenario", "percentile"],
    unit: "scenario",
    read: readScenario,
    apply: (i, v) => (i.scenario = v as PercentileKey),
  },
  {
    name: "occupancy",
    names: ["occupancy", "occ"],
    unit: "fraction",
    read: within(readFraction, 0, 1, "an occupancy from 0 to 100 %"),
    apply: (i, v) => (i.occupancy = v as number),
  },
  {
    name: "nightlyRate",
    names: ["nightlyrate", "adr", "ratepernight"],
    unit: "usd",
    read: within(readMoney, 0, 100_000, "a nightly rate in USD from 0 to 100,000"),
    apply: (i, v) => (i.ratePerNightUSD = v as number),
  },
  {
    name: "revenue",
    names: ["revenue", "annualrevenue"],
    unit: "usd",
    read: within(readMoney, 0, 1e8, "an annual revenue in USD from 0 to 100,000,000"),
    apply: (i, v) => (i.yearOneRevenueUSD = v as number),
  },
  {
    name: "rent",
    names: ["rent", "monthlyrent"],
    unit: "usd",
    read: within(readMoney, 0, 1e7, "a monthly rent in USD from 0 to 10,000,000"),
    apply: (i, v) => (i.monthlyRentUSD = v as number),
  },
  {
    name: "commissionPct",
    names: ["commissionpct", "commission"],
    unit: "percent",
    read: within(percentUpTo(100), 0, 100, "a commission from 0 to 100 %"),
    apply: (i, v) => (i.cohostCommissionPercentage = v as number),
  },
  {
    name: "expenses",
    names: ["expenses", "monthlyexpenses"],
    unit: "usd",
    read: within(readMoney, 0, 1e7, "monthly expenses in USD from 0 to 10,000,000"),
    apply: (i, v) => (i.monthlyExpensesUSD = v as number),
  },
];

export function findWhatIfVariable(name: CellInput): WhatIfVariable | undefined {
  const key = String(name ?? "")
    .toLowerCase()
    .replace(/[^a-z]/g, "");
  return WHATIF_VARIABLES.find((v) => v.names.includes(key));
}

/** A list of values: a row or column of cells, or text such as "5, 6, 7" or "p25; p50; p75". */
export function readValueList(
  input: CellInput | readonly (readonly CellInput[])[],
  variable: WhatIfVariable,
): { ok: true; values: (number | PercentileKey)[] } | { ok: false; message: string } {
  // Text lists split on semicolons, line breaks and commas — but not a thousands comma ("415,000").
  const split = (c: CellInput): CellInput[] => (typeof c === "string" ? c.split(/[;\n]|,(?!\d{3}(?:\D|$))/) : [c]);
  const cells: CellInput[] = (
    Array.isArray(input) ? (input as readonly (readonly CellInput[])[]).flat() : [input as CellInput]
  ).flatMap(split);
  const values: (number | PercentileKey)[] = [];
  for (const cell of cells) {
    if (isBlank(cell)) continue;
    const r = variable.read(cell);
    if (!r.ok) return { ok: false, message: `must be ${r.message}` };
    if (r.value !== undefined) values.push(r.value);
  }
  if (values.length === 0) return { ok: false, message: "is empty: give one or more values" };
  return { ok: true, values };
}

/**
 * What-if arguments by their names (STR.WHATIF's, STR.MAXBID's and STR.PROJECTION's financing): each
 * one given goes where its variable says, an omitted one keeps the analysis's own value. Every bad
 * one is named, in the order given.
 */
export function readWhatIfArguments(given: Readonly<Record<string, unknown>>): Validated<WhatIfInputs> {
  const inputs: WhatIfInputs = {};
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(given)) {
    const variable = findWhatIfVariable(name);
    const read = variable?.read(single(value));
    if (!variable || !read) continue;
    if (!read.ok) issues.push({ path: name, message: `must be ${read.message}` });
    else if (read.value !== undefined) variable.apply(inputs, read.value);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: inputs };
}

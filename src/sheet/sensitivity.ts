import { Analysis, FieldInfo, PercentileKey } from "../contract";
import { WhatIfInputs, whatIf } from "../model";
import { BLANK, CellRow, Grid, cell, text } from "./cells";
import { SANDBOX_NOTICE } from "./answer";
import { fieldCell } from "./field-values";

/*
 * STR.SENSITIVITY: one metric across two variables — cash-on-cash by price × interest rate, cash
 * flow by occupancy × rent — computed locally with the what-if model, so a 100 × 100 grid costs
 * nothing and calls nothing. Its axes are named in words where they are read:
 *
 *   Cash-on-cash return   Interest rate →                 SANDBOX: simulated data
 *   Purchase price ↓      5.0%          6.0%          7.0%
 *   $400,000              …
 *
 * The metric in the corner, the column variable above its values, the row variable above its own;
 * an analysis the sandbox simulated says so in the first row (or, with one column, in a last row).
 */

export interface Axis {
  variable: {
    name: string;
    unit: "usd" | "percent" | "fraction" | "years" | "scenario";
    apply: (inputs: WhatIfInputs, value: number | PercentileKey) => void;
  };
  values: readonly (number | PercentileKey)[];
}

const AXIS_FORMAT = { usd: "$#,##0", percent: "0.0#%", fraction: "0.0%", years: "0", scenario: undefined } as const;

/** Each what-if variable in words (src/inputs/whatif-variables.ts names them). */
const AXIS_WORDS: Readonly<Record<string, string>> = {
  purchasePrice: "Purchase price",
  downPaymentPct: "Down payment",
  interestRatePct: "Interest rate",
  mortgageYears: "Mortgage years",
  scenario: "Revenue scenario",
  occupancy: "Occupancy",
  nightlyRate: "Nightly rate",
  revenue: "Revenue a year",
  rent: "Rent a month",
  commissionPct: "Commission",
  expenses: "Expenses a month",
};

export const ACROSS = "→";
export const DOWN = "↓";

export function axisWords(axis: Axis): string {
  return AXIS_WORDS[axis.variable.name] ?? axis.variable.name;
}

function axisCell(axis: Axis, value: number | PercentileKey) {
  if (typeof value === "string") return text(value);
  // Percents shown the Excel way, as fractions under a % format, like every rate the add-in writes.
  return cell(
    axis.variable.unit === "percent" ? Number((value / 100).toPrecision(15)) : value,
    AXIS_FORMAT[axis.variable.unit],
  );
}

export function sensitivityGrid(
  analysis: Analysis,
  rows: Axis,
  columns: Axis,
  metric: FieldInfo,
  options: { sandbox?: boolean } = {},
): { ok: true; grid: Grid } | { ok: false; message: string } {
  if (rows.variable.name === columns.variable.name)
    return {
      ok: false,
      message: `rowVariable and columnVariable are both ${rows.variable.name}: choose two different variables`,
    };
  const width = 1 + columns.values.length;
  const title: CellRow = [text(metric.label), text(`${axisWords(columns)} ${ACROSS}`)];
  while (title.length < width) title.push(BLANK);
  const markInTitle = options.sandbox === true && width >= 3;
  if (markInTitle) title[width - 1] = text(SANDBOX_NOTICE);
  const grid: Grid = [
    title.slice(0, width),
    [text(`${axisWords(rows)} ${DOWN}`), ...columns.values.map((v) => axisCell(columns, v))],
  ];
  for (const rv of rows.values) {
    const row = [axisCell(rows, rv)];
    for (const cv of columns.values) {
      const inputs: WhatIfInputs = {};
      rows.variable.apply(inputs, rv);
      columns.variable.apply(inputs, cv);
      const result = whatIf(analysis, inputs);
      if (!result.ok) return { ok: false, message: result.message };
      row.push(fieldCell(result.analysis, metric));
    }
    grid.push(row);
  }
  if (options.sandbox === true && !markInTitle)
    grid.push([text(SANDBOX_NOTICE), ...Array.from({ length: width - 1 }, () => BLANK)]);
  return { ok: true, grid };
}

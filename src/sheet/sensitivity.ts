import { Analysis, FieldInfo, PercentileKey, WhatIfInputs, whatIf } from "../contract";
import { Grid, cell, text } from "./cells";
import { fieldCell } from "./values";

/*
 * STR.SENSITIVITY: one metric across two variables — cash-on-cash by price × interest rate, cash
 * flow by occupancy × rent — computed locally with the what-if model, so a 100 × 100 grid costs
 * nothing and calls nothing. The first row holds the column variable's values, the first column
 * the row variable's, the corner names the metric and the two variables.
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
): { ok: true; grid: Grid } | { ok: false; message: string } {
  if (rows.variable.name === columns.variable.name)
    return {
      ok: false,
      message: `rowVariable and columnVariable are both ${rows.variable.name}: choose two different variables`,
    };
  const grid: Grid = [
    [
      text(`${metric.label} by ${rows.variable.name} (rows) and ${columns.variable.name} (columns)`),
      ...columns.values.map((v) => axisCell(columns, v)),
    ],
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
  return { ok: true, grid };
}

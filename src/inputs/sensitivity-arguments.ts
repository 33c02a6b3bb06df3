import { FieldInfo, FieldIssue, PercentileKey, Validated, findField } from "../contract";
import { RangeInput, single } from "./arguments";
import { WHATIF_VARIABLES, WhatIfVariable, findWhatIfVariable, readValueList } from "./whatif-variables";

/*
 * STR.SENSITIVITY's arguments: a what-if variable and its values down the rows, another across the
 * columns, and the metric in the grid, a field of money, a percentage or a ratio.
 */

/** One side of the grid: what varies, and through which values. */
export interface SensitivityAxis {
  variable: WhatIfVariable;
  values: (number | PercentileKey)[];
}

export interface SensitivityArguments {
  rows: SensitivityAxis;
  columns: SensitivityAxis;
  field: FieldInfo;
}

/** The units a metric may have: a grid of numbers, each comparable to its neighbours. */
export const SENSITIVITY_METRIC_UNITS: readonly FieldInfo["unit"][] = ["usd", "percent", "fraction", "ratio"];

/**
 * Both axes and the metric, every bad one named. The same variable down and across is the
 * arguments' fault too: refused here, before the relay is asked for the analysis.
 */
export function readSensitivityArguments(
  rowVariable: unknown,
  rowValues: RangeInput,
  columnVariable: unknown,
  columnValues: RangeInput,
  metric: unknown,
): Validated<SensitivityArguments> {
  const issues: FieldIssue[] = [];
  const rows = readAxis(["rowVariable", rowVariable], ["rowValues", rowValues], issues);
  const columns = readAxis(["columnVariable", columnVariable], ["columnValues", columnValues], issues);
  const field = findField(String(single(metric) ?? ""));
  if (!field || !SENSITIVITY_METRIC_UNITS.includes(field.unit))
    issues.push({
      path: "metric",
      message: `must be a numeric field such as yearOneCashFlowUSD, yearOneCashOnCashPercentage or DSCR; got ${JSON.stringify(String(single(metric) ?? ""))}`,
    });
  if (issues.length > 0 || !rows || !columns || !field) return { ok: false, issues };
  if (rows.variable.name === columns.variable.name)
    return {
      ok: false,
      issues: [
        {
          path: "",
          message: `rowVariable and columnVariable are both ${rows.variable.name}: choose two different variables`,
        },
      ],
    };
  return { ok: true, value: { rows, columns, field } };
}

/** One axis: its variable by name, then its values as that variable reads them; a bad one is added to `issues`. */
function readAxis(
  [variableName, variableArg]: [string, unknown],
  [valuesName, valuesArg]: [string, RangeInput],
  issues: FieldIssue[],
): SensitivityAxis | undefined {
  const variable = findWhatIfVariable(single(variableArg));
  if (!variable) {
    const names = WHATIF_VARIABLES.map((v) => v.name).join(", ");
    issues.push({
      path: variableName,
      message: `must be a what-if variable (${names}); got ${JSON.stringify(String(single(variableArg) ?? ""))}`,
    });
    return undefined;
  }
  const values = readValueList(valuesArg, variable);
  if (!values.ok) {
    issues.push({ path: valuesName, message: values.message });
    return undefined;
  }
  return { variable, values: values.values };
}

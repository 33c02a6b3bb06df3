import { AnyRequest, FieldIssue, Operation, Strategy, requestFieldNames, validateRequest } from "../contract";
import { ColumnMapping, INPUT_FIELDS, InputField } from "./columns";
import { CellInput, NumberStyle, isBlank } from "./values";

/**
 * One row of a user's table turned into a request for the service, or into the reasons it cannot
 * be: each reason names the column (as the user titled it) and the rule. Nothing is dropped: a bad
 * row is reported, a blank row is said to be blank.
 */
export type RowRequest =
  | { kind: "request"; op: Operation; request: AnyRequest }
  | { kind: "invalid"; op: Operation | undefined; issues: FieldIssue[] }
  | { kind: "blank" };

export interface RowOptions {
  /** The strategy for rows without a strategy column or value. @default "buy" */
  strategy?: Strategy;
  /** The user's headers, for messages that name columns the way the sheet does. */
  headers?: readonly CellInput[];
  /** Optional parameters added to every row (a row's own column wins). */
  extra?: Record<string, unknown>;
  /** How the table writes numbers as text; omitted, the readers' first behaviour. */
  numbers?: NumberStyle;
}

export function readRow(cells: readonly CellInput[], mapping: ColumnMapping, options: RowOptions = {}): RowRequest {
  if (mapping.every((field, i) => field === null || isBlank(cells[i]))) return { kind: "blank" };
  const columnOf = new Map<InputField, number>();
  mapping.forEach((field, i) => field && columnOf.set(field, i));
  const nameOf = (field: string): string => {
    const column = columnOf.get(field as InputField);
    const header = column === undefined ? undefined : options.headers?.[column];
    return header !== undefined && !isBlank(header)
      ? String(header).trim()
      : field in INPUT_FIELDS
        ? INPUT_FIELDS[field as InputField].label
        : field;
  };

  const issues: FieldIssue[] = [];
  const values: Record<string, unknown> = {};
  for (const [field, column] of columnOf) {
    const read = INPUT_FIELDS[field].read(cells[column], options.numbers ? { numbers: options.numbers } : {});
    if (!read.ok) issues.push({ path: nameOf(field), message: `must be ${read.message}` });
    else if (read.value !== undefined) values[field] = read.value;
  }

  const op = (values.strategy as Operation | undefined) ?? options.strategy ?? "buy";
  delete values.strategy;
  const location = values.fullAddress as { lat: number; lng: number } | { fullAddress: string } | undefined;
  delete values.fullAddress;
  if (location) Object.assign(values, location);
  if (issues.length > 0) return { kind: "invalid", op, issues };

  // Columns the strategy has no use for (a commission column on a buy row) are left out.
  const accepted = new Set(requestFieldNames(op));
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries({ ...options.extra, ...values }))
    if (accepted.has(key)) params[key] = value;

  const validated = validateRequest(op, params);
  if (!validated.ok)
    return { kind: "invalid", op, issues: validated.issues.map((i) => ({ path: nameOf(i.path), message: i.message })) };
  return { kind: "request", op, request: validated.value };
}

import { FieldInfo, RelayAnswer, Strategy, findField } from "../contract";
import { CellRow, text } from "./cells";
import { analysisOf, warningTexts } from "./answer";
import { closeFields } from "./suggest";
import { fieldCell } from "./field-values";
import { warningsCell } from "./warnings";

/*
 * The screening layout: `=STR.BUY(…, "revenue.p50, yearOneCashFlowUSD")` spills ONE row, the chosen
 * fields' values then a warnings cell, so a formula filled down a table of properties gives a table
 * of results. The CLI and the task pane build the same rows (screening.ts).
 */

/** How users give the list: text ("revenue.p50; Cap rate"), or a range of cells holding names. */
export type FieldListInput = string | readonly (readonly unknown[])[];

export type FieldListResult = { ok: true; fields: readonly FieldInfo[] } | { ok: false; message: string };

/** Header of the trailing warnings column. */
export const WARNINGS_HEADER = "Warnings";

/**
 * Reads a field list. Names are field paths (`revenue.p50`) or labels (`Cash-on-cash return`),
 * case and punctuation ignored, separated by commas, semicolons or line breaks, or one or more per
 * cell of a range (blank cells skipped); a label's own comma ("Occupancy, median") is not a
 * separator. Order is kept and so are duplicates: the row's cells line up with the list the user
 * wrote. With `strategy`, a field that strategy's answers never have is an error too (a cap rate
 * asked of STR.ARB would otherwise be a column of blanks).
 */
export function parseFieldList(input: FieldListInput, options: { strategy?: Strategy } = {}): FieldListResult {
  const segments = typeof input === "string" ? [input] : input.flatMap((row) => row.map(cellText));
  // A column of formulas passes the same list in every row: read each list once.
  const key = `${options.strategy ?? ""}\u0000${segments.join("\u0001")}`;
  const known = readLists.get(key);
  if (known) return known;
  const result = readFieldList(segments, options.strategy);
  if (readLists.size >= READ_LISTS_KEPT) readLists.delete(readLists.keys().next().value as string);
  readLists.set(key, result);
  return result;
}

/** Field lists already read, by strategy and text (frozen: every caller shares them); the oldest goes first when full. */
const readLists = new Map<string, FieldListResult>();
const READ_LISTS_KEPT = 64;

function readFieldList(segments: readonly string[], strategy: Strategy | undefined): FieldListResult {
  const names = segments.flatMap(splitNames);
  if (names.length === 0) {
    return Object.freeze({
      ok: false,
      message:
        'fields is empty: list field names such as "revenue.p50, yearOneCashFlowUSD", or leave it out for the whole card',
    });
  }
  const fields: FieldInfo[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const field = findField(name);
    if (!field) problems.push(unknownName(name));
    else if (strategy && !field.strategies.includes(strategy)) {
      problems.push(`${field.path} is not in ${strategy} analyses (only ${field.strategies.join(", ")})`);
    } else fields.push(field);
  }
  if (problems.length > 0) return Object.freeze({ ok: false, message: `fields: ${problems.join("; ")}` });
  return Object.freeze({ ok: true, fields: Object.freeze(fields) });
}

/** One screening row: each field's value, then the warnings cell ("" when none, else "⚠ a | b"). */
export function fieldsRow(answer: RelayAnswer, fields: readonly FieldInfo[]): CellRow {
  const analysis = analysisOf(answer);
  return [...fields.map((f) => fieldCell(analysis, f)), text(warningsCell(warningTexts(answer)))];
}

/**
 * The header above screening rows: the fields' labels (which parseFieldList reads back) and the
 * warnings column. With `sandbox`, the warnings header says the figures are simulated, once for the
 * whole table rather than in every row.
 */
export function fieldsHeader(fields: readonly FieldInfo[], options: { sandbox?: boolean } = {}): CellRow {
  const warnings = options.sandbox ? `${WARNINGS_HEADER} (sandbox: simulated data)` : WARNINGS_HEADER;
  return [...fields.map((f) => text(f.label)), text(warnings)];
}

/** Labels may hold a comma ("Occupancy, median"): a comma joins its neighbours when together they name a field. */
const MAX_PARTS_IN_A_LABEL = 3;

function splitNames(input: string): string[] {
  const names: string[] = [];
  for (const segment of input.split(/[;\r\n]+/)) {
    const parts = segment
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    for (let i = 0; i < parts.length;) {
      let taken = 1;
      for (let k = Math.min(MAX_PARTS_IN_A_LABEL, parts.length - i); k > 1; k--) {
        if (findField(parts.slice(i, i + k).join(", "))) {
          taken = k;
          break;
        }
      }
      names.push(parts.slice(i, i + taken).join(", "));
      i += taken;
    }
  }
  return names;
}

function cellText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}

function unknownName(name: string): string {
  const close = closeFields(name).map((f) => f.path);
  const hint =
    close.length === 0
      ? ""
      : `; did you mean ${close.length === 1 ? close[0] : `${close.slice(0, -1).join(", ")} or ${close.at(-1)}`}?`;
  return `${JSON.stringify(name)} is not a field${hint}`;
}

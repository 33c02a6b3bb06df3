import { Analysis, FieldInfo, UNIT_FORMATS, UNIT_SCALE, Unit, countFormat, moneyFormat } from "../contract";
import { BLANK, Cell, FormattedCell } from "./cells";

/*
 * One field of an analysis as a cell value. Percents become fractions (72.5 → 0.725) so that every
 * rate in a sheet is a fraction under a % format, like the fraction fields already are; numbers stay
 * numbers (never text), text stays text, and anything missing is "" — never 0, which would read as a
 * real figure, and never undefined, which Excel cannot hold.
 */

/** The raw value at a dot path (`revenue.p50`); undefined when any step is missing. Own properties only. */
export function valueAt(source: unknown, path: string): unknown {
  let current: unknown = source;
  for (const key of stepsOf(path)) {
    if (typeof current !== "object" || current === null || !Object.prototype.hasOwnProperty.call(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A path's steps, split once: the catalogue's few dozen paths are read for every cell of every answer. */
const steps = new Map<string, readonly string[]>();
function stepsOf(path: string): readonly string[] {
  let known = steps.get(path);
  if (!known) {
    known = path.split(".");
    // Paths come from the catalogue and comparable columns, but valueAt takes any: keep the map bounded.
    if (steps.size < 1000) steps.set(path, known);
  }
  return known;
}

/** A raw value in a unit as it goes in a cell. */
export function cellValue(raw: unknown, unit: Unit): Cell {
  if (typeof raw === "number") return Number.isFinite(raw) ? scale(raw, unit) : "";
  if (typeof raw === "string") return raw;
  if (typeof raw === "boolean") return raw;
  return "";
}

/** The field's value in `analysis`, scaled for the cell; "" when absent or there is no analysis. */
export function readField(analysis: Analysis | undefined, field: Pick<FieldInfo, "path" | "unit" | "derive">): Cell {
  if (analysis === undefined) return "";
  // Investor metrics the service does not send are computed; a value the answer carries under the same name is not trusted over the formula.
  return cellValue(field.derive ? field.derive(analysis) : valueAt(analysis, field.path), field.unit);
}

/**
 * The field's value with its unit's number format; money in the answer's `currency` (moneyFormat).
 * A blank keeps no format: there is nothing to format.
 */
export function fieldCell(
  analysis: Analysis | undefined,
  field: Pick<FieldInfo, "path" | "unit" | "derive">,
): FormattedCell {
  const value = readField(analysis, field);
  if (value === "") return BLANK;
  return { value, format: unitFormat(field.unit, analysis?.currency, value) };
}

/**
 * A unit's number format in an answer of `currency`, for `value`: money depends on the currency,
 * counts and years on the value (a whole 3 in `0`, 2.5 baths in `0.0`).
 */
export function unitFormat(unit: Unit, currency: unknown, value?: unknown): string {
  if (unit === "usd") return moneyFormat(currency);
  if ((unit === "count" || unit === "years") && typeof value === "number") return countFormat(value);
  return UNIT_FORMATS[unit];
}

function scale(value: number, unit: Unit): number {
  const factor = UNIT_SCALE[unit];
  if (factor === 1) return value;
  // 8.53 / 100 is 0.08529999999999999 in binary; Excel keeps 15 significant digits, so rounding to 15
  // gives the 0.0853 a user typing "8.53%" would get, and nothing Excel could show is lost.
  return Number((value * factor).toPrecision(15));
}

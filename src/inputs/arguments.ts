import { AnyRequest, FieldIssue, Operation, Strategy, requestFieldNames, validateRequest } from "../contract";
import { INPUT_FIELDS, InputField, fieldOfHeader } from "./columns";
import { CellInput, LocationInput, Read, isBlank, readLocation } from "./values";

/*
 * The arguments of the STR.* functions that are not plain numbers: the location (an address,
 * "lat,lng", or a 1×2 range) and the options (a two-column name/value range, or "name=value; …"
 * text) that reach every optional parameter of the spec.
 */

/** A custom function's range argument: rows of cells. */
export type RangeInput = readonly (readonly CellInput[])[];

/** location: an address, "lat,lng" text, or a 1×2 (or 2×1) range of latitude and longitude. */
export function readLocationArgument(input: CellInput | RangeInput): Read<LocationInput> {
  // One cell, as a formula's own text or a cell reference arrives: read as it is, without flattening.
  if (Array.isArray(input) && input.length === 1 && input[0]?.length === 1)
    return readLocationArgument((input as RangeInput)[0]?.[0] as CellInput);
  if (Array.isArray(input)) {
    const cells = (input as RangeInput).flat().filter((c) => !isBlank(c));
    if (cells.length === 0) return { ok: true, value: undefined };
    if (cells.length === 1) return readLocationArgument(cells[0] as CellInput);
    if (cells.length === 2 && cells.every((c) => typeof c === "number"))
      return { ok: true, value: { lat: cells[0] as number, lng: cells[1] as number } };
    return { ok: false, message: 'an address, "lat,lng", or a range of two cells holding latitude and longitude' };
  }
  if (typeof input === "number") return { ok: false, message: `an address or "lat,lng"; got the number ${input}` };
  return readLocation(input as CellInput);
}

/**
 * Names an option can go by: the spec's parameter name (any case) or a column synonym
 * ("interest", "ai comps", "zip"). Only the operation's own optional parameters are accepted.
 */
export function optionField(name: CellInput, op: Operation): InputField | undefined {
  const field = fieldOfHeader(name);
  if (!field || field === "strategy") return undefined;
  const target = field === "fullAddress" ? "fullAddress" : field;
  return requestFieldNames(op).includes(target) ? field : undefined;
}

export type OptionsRead = { ok: true; params: Record<string, unknown> } | { ok: false; message: string };

/** The names `op` takes as options (its optional parameters), for help and error messages. */
export function optionNames(op: Operation, required: readonly string[] = []): string[] {
  return requestFieldNames(op).filter(
    (f) => !required.includes(f) && f !== "lat" && f !== "lng" && f !== "fullAddress",
  );
}

/**
 * Reads options: "interestRatePercentage=6.5; addAIComps=TRUE" or a two-column range of names and
 * values. Each value is read the way the field's column would be ("6.5%", "$2,100", "yes"); an
 * unknown or repeated name, or a value that does not read, is an error naming it.
 */
export function readOptions(
  input: CellInput | RangeInput | undefined,
  op: Operation,
  taken: readonly string[] = [],
): OptionsRead {
  if (input === undefined || input === null || (typeof input === "string" && input.trim() === ""))
    return { ok: true, params: {} };
  let pairs: [CellInput, CellInput][];
  // One cell of text is the text form: Excel passes "a=1; b=2" to a range parameter as [["a=1; b=2"]].
  if (Array.isArray(input) && input.length === 1 && input[0]?.length === 1 && typeof input[0][0] === "string")
    return readOptions(input[0][0], op, taken);
  if (Array.isArray(input)) {
    const rows = (input as RangeInput).filter((row) => row.some((c) => !isBlank(c)));
    if (rows.some((row) => row.length !== 2))
      return { ok: false, message: "must be a range of two columns, names then values" };
    pairs = rows.map((row) => [row[0], row[1]] as [CellInput, CellInput]);
    if (pairs.length === 1 && isBlank(pairs[0]?.[0]) && isBlank(pairs[0]?.[1])) return { ok: true, params: {} };
  } else if (typeof input === "string") {
    pairs = [];
    for (const part of input.split(/[;\n]/)) {
      if (part.trim() === "") continue;
      const eq = part.indexOf("=");
      if (eq < 0)
        return {
          ok: false,
          message: `must be name=value pairs separated by semicolons; got ${JSON.stringify(part.trim())}`,
        };
      pairs.push([part.slice(0, eq).trim(), part.slice(eq + 1).trim()]);
    }
  } else {
    return { ok: false, message: 'must be "name=value; …" text or a two-column range' };
  }

  const allowed = optionNames(op, taken);
  const params: Record<string, unknown> = {};
  for (const [name, raw] of pairs) {
    const field = optionField(name, op);
    if (!field || taken.includes(field) || field === "lat" || field === "lng" || field === "fullAddress") {
      return {
        ok: false,
        message: `${JSON.stringify(String(name ?? ""))} is not an option of ${op}; options: ${allowed.join(", ")}`,
      };
    }
    if (field in params) return { ok: false, message: `${field} is given twice` };
    const read = INPUT_FIELDS[field].read(raw);
    if (!read.ok) return { ok: false, message: `${field} must be ${read.message}` };
    if (read.value !== undefined) params[field] = read.value;
  }
  return { ok: true, params };
}

/** The positional arguments of each STR.* create function, in order, and the request field each fills. */
export const POSITIONAL_ARGUMENTS = {
  buy: [
    { argument: "purchasePrice", field: "purchasePriceUSD" },
    { argument: "bedrooms", field: "bedrooms" },
    { argument: "bathrooms", field: "bathrooms" },
    { argument: "guests", field: "accomodates" },
  ],
  arb: [
    { argument: "monthlyRent", field: "monthlyRentUSD" },
    { argument: "bedrooms", field: "bedrooms" },
    { argument: "bathrooms", field: "bathrooms" },
    { argument: "guests", field: "accomodates" },
  ],
  owned: [
    { argument: "purchasePrice", field: "purchasePriceUSD" },
    { argument: "downPaymentPct", field: "downPaymentPercentage" },
    { argument: "interestRatePct", field: "interestRatePercentage" },
    { argument: "mortgageYears", field: "mortgageLength" },
    { argument: "yearsRemaining", field: "yearsRemainingOnMortgage" },
    { argument: "bedrooms", field: "bedrooms" },
    { argument: "bathrooms", field: "bathrooms" },
    { argument: "guests", field: "accomodates" },
  ],
  cohost: [
    { argument: "bedrooms", field: "bedrooms" },
    { argument: "bathrooms", field: "bathrooms" },
    { argument: "guests", field: "accomodates" },
    { argument: "commissionPct", field: "cohostCommissionPercentage" },
  ],
} as const satisfies Record<Strategy, readonly { argument: string; field: InputField }[]>;

export type FunctionRequest = { ok: true; request: AnyRequest } | { ok: false; issues: FieldIssue[] };

/**
 * A create function's arguments as a validated request. Every problem is reported at once and
 * named by the argument the user typed (`purchasePrice`, `location`), not the service's field
 * name; problems inside `options` keep the option's name.
 */
export function functionRequest(
  op: Strategy,
  location: CellInput | RangeInput,
  positional: readonly unknown[],
  options: CellInput | RangeInput | undefined,
): FunctionRequest {
  const issues: FieldIssue[] = [];
  const params: Record<string, unknown> = {};

  const place = readLocationArgument(location as CellInput | RangeInput);
  if (!place.ok) issues.push({ path: "location", message: `must be ${place.message}` });
  else if (place.value) Object.assign(params, place.value);

  const named = POSITIONAL_ARGUMENTS[op];
  named.forEach(({ argument, field }, i) => {
    const read = INPUT_FIELDS[field].read(single(positional[i]));
    if (!read.ok) issues.push({ path: argument, message: `must be ${read.message}` });
    else if (read.value !== undefined) params[field] = read.value;
  });

  const extra = readOptions(
    options,
    op,
    named.map((p) => p.field),
  );
  if (!extra.ok) issues.push({ path: "options", message: extra.message });
  else Object.assign(params, extra.params);
  if (issues.length > 0) return { ok: false, issues };

  const validated = validateRequest(op, params);
  if (!validated.ok)
    return {
      ok: false,
      issues: dedupe(validated.issues.map((i) => ({ path: argumentOf(op, i.path), message: i.message }))),
    };
  return { ok: true, request: validated.value };
}

/** The argument a request field came from, as the user typed it (`purchasePrice`, `location`); an option keeps its own name. */
function argumentOf(op: Strategy, path: string): string {
  if (path === "fullAddress" || path === "lat" || path === "lng") return "location";
  return POSITIONAL_ARGUMENTS[op].find((p) => p.field === path)?.argument ?? path;
}

/** A single value from an argument that may arrive as a 1×1 range. */
export function single(value: unknown): CellInput {
  if (Array.isArray(value)) return single(value.flat()[0]);
  if (
    value === null ||
    value === undefined ||
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean"
  )
    return value;
  return String(value);
}

function dedupe(issues: FieldIssue[]): FieldIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

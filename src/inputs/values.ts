import { Strategy, Operation } from "../contract";

/*
 * Reading values the way people type them in spreadsheets: "$415,000", "415k", "6.5%", "3 bd",
 * "TRUE", "30.2672, -97.7431". Each reader returns the value, `undefined` for a blank, or an
 * error message stating what it expected. The contract's schemas then apply the service's rules;
 * these only turn text into the types those rules check.
 */

export type Read<T> = { ok: true; value: T | undefined } | { ok: false; message: string };

/** What a cell can hold once read: Excel gives numbers, text, booleans; CSV gives text. */
export type CellInput = string | number | boolean | null | undefined | Date;

const ok = <T>(value: T | undefined): Read<T> => ({ ok: true, value });
const fail = (message: string): Read<never> => ({ ok: false, message });

export function isBlank(input: CellInput): boolean {
  return input === null || input === undefined || (typeof input === "string" && input.trim() === "");
}

/**
 * Longest text read as a number, amount, percentage or coordinates. A cell holds up to 32,767
 * characters, and the patterns below backtrack quadratically on a long run of digits that does not
 * match (a 20,000-digit cell took a second per reader, freezing Excel); nothing longer is a number.
 */
const MAX_NUMBER_TEXT = 100;

/**
 * How a table writes numbers as text: "point" — "." is the decimal mark and "," groups thousands
 * (US, UK); "comma" — "," is the decimal mark and "." groups thousands (most of Europe); "unknown" —
 * not said, so a text value whose amount depends on it ("450.000", "$415,000", "1,5") is refused,
 * naming both readings. Numbers Excel holds as numbers need no convention. docs/inputs.md lists the
 * rules.
 */
export type NumberStyle = "point" | "comma" | "unknown";

export interface ReadOptions {
  /** Omitted: the readers' first behaviour (commas dropped, "." the decimal mark). */
  numbers?: NumberStyle;
}

/** The digits of a number as typed: digits, "." and ",", ending in a digit. */
const NUMBER_TEXT = String.raw`[\d.,]*\d`;

const POINT_STRICT = /^(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;
const COMMA_STRICT = /^(?:\d{1,3}(?:\.\d{3})+|\d+)?(?:,\d+)?$/;
const POINT_LOOSE = /^[\d,]*\.?\d+$/;
/** Without a convention (the functions' cells): "." the decimal mark, commas only between groups of three ("1,5" is not 15). */
const LEGACY_POINT = /^(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.?\d+)$/;
const COMMA_LOOSE = /^[\d.]*,?\d+$/;
const pointValue = (t: string) => Number(t.replace(/,/g, ""));
/**
 * "347,500" after a currency sign or code: commas between groups of three and nothing else. Read
 * as thousands in every convention: as a decimal comma it would be an amount of money to the tenth
 * of a cent, which nobody writes, so the text reads one way only.
 */
const THOUSANDS_BY_COMMAS = /^\d{1,3}(?:,\d{3})+$/;
const commaValue = (t: string) => Number(t.replace(/\./g, "").replace(",", "."));

/**
 * The value of `digits` (NUMBER_TEXT) in a table's convention, or why it cannot be told. In a known
 * convention, text that is not written in it but reads as another amount ("1,5" in a decimal-point
 * table: 1.5, or 15 with the commas dropped) is refused; in an unknown one, any text whose strict
 * readings differ, or differ from the commas-dropped reading the readers once gave, is refused.
 */
function decimalValue(
  digits: string,
  style: NumberStyle | undefined,
  legacy: RegExp,
): { value: number } | { readings: number[] } | undefined {
  if (style === undefined) return legacy.test(digits) ? { value: pointValue(digits) } : undefined;
  const strictPoint = POINT_STRICT.test(digits) ? pointValue(digits) : undefined;
  const strictComma = COMMA_STRICT.test(digits) ? commaValue(digits) : undefined;
  const loosePoint = POINT_LOOSE.test(digits) ? pointValue(digits) : undefined;
  const looseComma = COMMA_LOOSE.test(digits) ? commaValue(digits) : undefined;
  let readings: (number | undefined)[];
  if (style === "point") {
    if (strictPoint !== undefined) return { value: strictPoint };
    readings = [strictComma, loosePoint];
  } else if (style === "comma") {
    if (strictComma !== undefined) return { value: strictComma };
    readings = [strictPoint, looseComma];
  } else readings = [strictPoint, strictComma, loosePoint];
  const distinct = [...new Set(readings.filter((r): r is number => Number.isFinite(r)))];
  if (distinct.length === 0) return undefined;
  return distinct.length === 1 ? { value: distinct[0] as number } : { readings: distinct };
}

function ambiguous(input: string, what: string, readings: readonly number[]): Read<never> {
  const shown = readings.map((r) => String(r));
  return fail(
    `${what} that reads one way only: ${JSON.stringify(input.trim())} could mean ${shown.join(" or ")} (is "," or "." the decimal mark?); write it as ${shown.join(" or ")}, without thousands marks`,
  );
}

function show(input: CellInput): string {
  if (typeof input === "string") return JSON.stringify(input.length > 40 ? `${input.slice(0, 37)}...` : input);
  return String(input);
}

/** An amount of money: "$415,000", "415000", "415k", "1.2M", "USD 2,100.50". Negative amounts are kept (the contract refuses them). */
export function readMoney(input: CellInput, options: ReadOptions = {}): Read<number> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "number") return Number.isFinite(input) ? ok(input) : fail(`an amount; got ${show(input)}`);
  if (typeof input !== "string" || input.length > MAX_NUMBER_TEXT)
    return fail(`an amount such as 415000 or $415,000; got ${show(input)}`);
  const text = input.trim().replace(/^\((.*)\)$/, "-$1");
  const m = new RegExp(String.raw`^(-)?\s*(usd|us\$|\$)?\s*(-)?\s*(${NUMBER_TEXT})\s*([km])?\s*(usd)?$`, "i").exec(
    text.replace(/\s+/g, " "),
  );
  const digits = m?.[4] as string;
  const currency = m?.[2] !== undefined || m?.[6] !== undefined;
  const read = !m
    ? undefined
    : currency && THOUSANDS_BY_COMMAS.test(digits)
      ? { value: pointValue(digits) }
      : decimalValue(digits, options.numbers, LEGACY_POINT);
  if (!m || !read) return fail(`an amount such as 415000 or $415,000; got ${show(input)}`);
  const scale = m[5] ? (m[5].toLowerCase() === "k" ? 1_000 : 1_000_000) : 1;
  const sign = m[1] || m[3] ? -1 : 1;
  if ("readings" in read)
    return ambiguous(
      input,
      "an amount",
      read.readings.map((r) => sign * r * scale),
    );
  return ok(sign * read.value * scale);
}

export interface PercentOptions extends ReadOptions {
  /** The most the field allows, in percent (contract's PERCENT_FIELD_MAX): decides what 1 means. */
  maxPercent?: number;
}

/**
 * A percentage, as the service takes it (6.5 for 6.5 %): "6.5%", "6.5", or a fraction up to 1 as
 * Excel stores a %-formatted cell (0.065). A rate of 1 % or less written as 0.5 would read as 50 %
 * — no interest rate, down payment or commission the service accepts is that low, so the fraction
 * reading is the one that is right in practice; write "0.5%" to mean half a percent. Exactly 1 is a
 * %-formatted 100 % where the field allows 100 % (`maxPercent`), and 1 % where it does not (an
 * interest rate of at most 15 %). docs/functions.md, "Percentages".
 */
export function readPercent(input: CellInput, options: PercentOptions = {}): Read<number> {
  if (isBlank(input)) return ok(undefined);
  const fraction = (v: number) => v > 0 && (v < 1 || (v === 1 && (options.maxPercent ?? 0) >= 100));
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return fail(`a percentage; got ${show(input)}`);
    return ok(fraction(input) ? round(input * 100) : input);
  }
  if (typeof input !== "string" || input.length > MAX_NUMBER_TEXT)
    return fail(`a percentage such as 6.5%; got ${show(input)}`);
  const m = new RegExp(String.raw`^(-)?(${NUMBER_TEXT})\s*(%)?$`).exec(input.trim());
  // Before decimal marks were read, a percentage had no thousands mark at all.
  const read = m ? decimalValue(m[2] as string, options.numbers, /^\d*\.?\d+$/) : undefined;
  if (!m || !read) return fail(`a percentage such as 6.5%; got ${show(input)}`);
  const asPercent = (v: number) => (m[1] ? -v : !m[3] && fraction(v) ? round(v * 100) : v);
  if ("readings" in read) return ambiguous(input, "a percentage", read.readings.map(asPercent));
  return ok(asPercent(read.value));
}

/** A count or size: "3", "3.0", "3 bd", "2.5 baths", "1,200 sqft". */
export function readNumber(input: CellInput, options: ReadOptions = {}): Read<number> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "number") return Number.isFinite(input) ? ok(input) : fail(`a number; got ${show(input)}`);
  if (typeof input !== "string" || input.length > MAX_NUMBER_TEXT) return fail(`a number; got ${show(input)}`);
  const m = new RegExp(String.raw`^(-)?(${NUMBER_TEXT})\s*[a-z.\s/]*$`, "i").exec(input.trim());
  const read = m ? decimalValue(m[2] as string, options.numbers, LEGACY_POINT) : undefined;
  if (!m || !read) return fail(`a number; got ${show(input)}`);
  const sign = m[1] ? -1 : 1;
  if ("readings" in read)
    return ambiguous(
      input,
      "a number",
      read.readings.map((r) => sign * r),
    );
  return ok(sign * read.value);
}

/** TRUE/FALSE, yes/no, y/n, 1/0, on/off. */
export function readBoolean(input: CellInput): Read<boolean> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "boolean") return ok(input);
  if (input === 1 || input === 0) return ok(input === 1);
  if (typeof input === "string") {
    const t = input.trim().toLowerCase();
    if (["true", "yes", "y", "1", "on"].includes(t)) return ok(true);
    if (["false", "no", "n", "0", "off"].includes(t)) return ok(false);
  }
  return fail(`TRUE or FALSE; got ${show(input)}`);
}

/** Text, trimmed; numbers become text (a ZIP code typed as a number). */
export function readText(input: CellInput): Read<string> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "string") return ok(input.trim());
  if (Number.isFinite(input)) return ok(String(input));
  return fail(`text; got ${show(input)}`);
}

/** Words a strategy cell may hold, once case and everything but letters are dropped ("Co-Host" → cohost; docs/cli.md lists them). */
export const STRATEGY_WORDS: Readonly<Record<string, Operation>> = {
  buy: "buy",
  purchase: "buy",
  acquisition: "buy",
  arb: "arb",
  arbitrage: "arb",
  rentalarbitrage: "arb",
  lease: "arb",
  owned: "owned",
  own: "owned",
  existing: "owned",
  cohost: "cohost",
  cohosting: "cohost",
  comanage: "cohost",
  enhance: "enhance",
};

/** A strategy: buy, arb (arbitrage), owned, cohost (co-host) — case and punctuation ignored. */
export function readStrategy(input: CellInput, allowEnhance = false): Read<Operation> {
  if (isBlank(input)) return ok(undefined);
  const key = String(input)
    .toLowerCase()
    .replace(/[^a-z]/g, "");
  const op = STRATEGY_WORDS[key];
  if (!op || (op === "enhance" && !allowEnhance)) return fail(`one of buy, arb, owned, cohost; got ${show(input)}`);
  return ok(op);
}

export const STRATEGY_NAMES: readonly Strategy[] = ["buy", "arb", "owned", "cohost"];

/** A location given as text: "lat,lng" (two numbers, latitude first) or an address. */
export type LocationInput = { lat: number; lng: number } | { fullAddress: string };

/**
 * An address, or coordinates as "30.2672, -97.7431" (latitude first, as maps show them). Text that
 * is two numbers is always read as coordinates; anything else is an address.
 */
export function readLocation(input: CellInput): Read<LocationInput> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input !== "string") return fail(`an address or "lat,lng"; got ${show(input)}`);
  const m =
    input.length > MAX_NUMBER_TEXT
      ? null
      : /^\s*\(?\s*(-?\d+(?:\.\d+)?)\s*[,;\s]\s*(-?\d+(?:\.\d+)?)\s*\)?\s*$/.exec(input);
  if (m) return ok({ lat: Number(m[1]), lng: Number(m[2]) });
  return ok({ fullAddress: input.trim() });
}

function round(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

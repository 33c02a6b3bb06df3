import { Strategy, Operation } from "../contract";

/**
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

function show(input: CellInput): string {
  if (typeof input === "string") return JSON.stringify(input.length > 40 ? `${input.slice(0, 37)}...` : input);
  return String(input);
}

/** An amount of money: "$415,000", "415000", "415k", "1.2M", "USD 2,100.50". Negative amounts are kept (the contract refuses them). */
export function readMoney(input: CellInput): Read<number> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "number") return Number.isFinite(input) ? ok(input) : fail(`an amount; got ${show(input)}`);
  if (typeof input !== "string" || input.length > MAX_NUMBER_TEXT) return fail(`an amount such as 415000 or $415,000; got ${show(input)}`);
  const text = input.trim().replace(/^\((.*)\)$/, "-$1");
  // Commas only between groups of three digits: "1,5" is a decimal comma or a typo, not 15.
  const m = /^(-)?\s*(?:usd|us\$|\$)?\s*(-)?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.?\d+)\s*([km])?\s*(?:usd)?$/i.exec(text);
  if (!m) return fail(`an amount such as 415000 or $415,000; got ${show(input)}`);
  // At most 100 characters: always a finite number.
  let value = Number((m[3] as string).replace(/,/g, ""));
  if (m[4]) value *= m[4].toLowerCase() === "k" ? 1_000 : 1_000_000;
  return ok(m[1] || m[2] ? -value : value);
}

/**
 * A percentage, as the service takes it (6.5 for 6.5 %): "6.5%", "6.5", or a fraction below 1 as
 * Excel stores a %-formatted cell (0.065). A rate of 1 % or less written as 0.5 would read as 50 %
 * — no interest rate, down payment or commission the service accepts is that low, so the fraction
 * reading is the one that is right in practice; write "0.5%" to mean half a percent.
 */
export function readPercent(input: CellInput): Read<number> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return fail(`a percentage; got ${show(input)}`);
    return ok(input > 0 && input < 1 ? round(input * 100) : input);
  }
  if (typeof input !== "string" || input.length > MAX_NUMBER_TEXT) return fail(`a percentage such as 6.5%; got ${show(input)}`);
  const m = /^(-?\d*\.?\d+)\s*(%)?$/.exec(input.trim());
  if (!m) return fail(`a percentage such as 6.5%; got ${show(input)}`);
  const n = Number(m[1]);
  return ok(!m[2] && n > 0 && n < 1 ? round(n * 100) : n);
}

/** A count or size: "3", "3.0", "3 bd", "2.5 baths", "1,200 sqft". */
export function readNumber(input: CellInput): Read<number> {
  if (isBlank(input)) return ok(undefined);
  if (typeof input === "number") return Number.isFinite(input) ? ok(input) : fail(`a number; got ${show(input)}`);
  if (typeof input !== "string" || input.length > MAX_NUMBER_TEXT) return fail(`a number; got ${show(input)}`);
  const m = /^(-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.?\d+))[a-z.\s/]*$/i.exec(input.trim());
  if (!m) return fail(`a number; got ${show(input)}`);
  return ok(Number((m[1] as string).replace(/,/g, "")));
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

const STRATEGY_WORDS: Readonly<Record<string, Operation>> = {
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
  const key = String(input).toLowerCase().replace(/[^a-z]/g, "");
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
  const m = input.length > MAX_NUMBER_TEXT ? null : /^\s*\(?\s*(-?\d+(?:\.\d+)?)\s*[,;\s]\s*(-?\d+(?:\.\d+)?)\s*\)?\s*$/.exec(input);
  if (m) return ok({ lat: Number(m[1]), lng: Number(m[2]) });
  return ok({ fullAddress: input.trim() });
}

function round(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

import { z } from "zod";

/*
 * Builders for request fields whose error messages state the rule in plain words.
 *
 * Every failure of a field reads the same way — "must be <rule>; got <value>" — so the functions,
 * the relay's 400 body and the CLI all say what the rule is, not which check tripped. The rule
 * text is also kept as the schema's description, so documentation and argument help read it
 * from the same place.
 */

export interface NumberRule {
  /** Lowest allowed value. */
  min?: number;
  /** When true the minimum itself is not allowed ("greater than 0"). */
  exclusiveMin?: boolean;
  /** Highest allowed value (inclusive). */
  max?: number;
  /** Whole numbers only. */
  integer?: boolean;
  /** Values must be a multiple of this (bathrooms come in halves). */
  step?: number;
  /** Appended in brackets: "(percent)", "(USD)". */
  unit?: string;
}

export function describeNumberRule(rule: NumberRule): string {
  const kind = rule.integer ? "a whole number" : rule.step !== undefined ? `a multiple of ${rule.step}` : "a number";
  let range = "";
  if (rule.min !== undefined && rule.max !== undefined) {
    range = rule.exclusiveMin
      ? ` greater than ${fmt(rule.min)} and at most ${fmt(rule.max)}`
      : ` from ${fmt(rule.min)} to ${fmt(rule.max)}`;
  } else if (rule.min !== undefined) {
    range = rule.exclusiveMin ? ` greater than ${fmt(rule.min)}` : ` of at least ${fmt(rule.min)}`;
  } else if (rule.max !== undefined) {
    range = ` of at most ${fmt(rule.max)}`;
  }
  return `${kind}${range}${rule.unit ? ` (${rule.unit})` : ""}`;
}

/** A short, safe rendering of a rejected value for an error message. */
export function showValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") {
    const cut = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(cut);
  }
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : String(value);
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function fmt(n: number): string {
  return Number.isInteger(n) && Math.abs(n) >= 10_000 ? n.toLocaleString("en-US") : String(n);
}

const REQUIRED = "is required";

type IssueLike = { input?: unknown };
const failWith = (rule: string) => (issue: IssueLike) =>
  issue.input === undefined ? REQUIRED : `must be ${rule}; got ${showValue(issue.input)}`;

export function numberField(rule: NumberRule) {
  const text = describeNumberRule(rule);
  const error = failWith(text);
  let schema = z.number({ error });
  // multipleOf(1), not int(): int() aborts the parse, which would hide the object-level rules
  // (the location rule) when a count is fractional; every bad field should be reported at once.
  if (rule.integer) schema = schema.multipleOf(1, { error });
  if (rule.min !== undefined)
    schema = rule.exclusiveMin ? schema.gt(rule.min, { error }) : schema.gte(rule.min, { error });
  if (rule.max !== undefined) schema = schema.lte(rule.max, { error });
  if (rule.step !== undefined) schema = schema.multipleOf(rule.step, { error });
  return schema.describe(text);
}

/**
 * Characters no address or name holds, which only hide what a text says: control characters (NUL
 * included; tabs and line breaks are whitespace, as in a cell with Alt+Enter), bidirectional
 * overrides and isolates (a text that reads differently than it is), and unpaired surrogates (not
 * text at all). A text holding one is refused before anything is billed.
 */
const HIDDEN_CONTROL =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Characters that take no space: a text made only of them (and spaces) is empty. */
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- the combining marks and variation selectors listed are the point
  /[\s\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2060-\u2064\u3164\ufe00-\ufe0f\ufeff\uffa0]/gu;

export function textField(maxLength: number) {
  const text = `text of 1 to ${maxLength} characters`;
  const error = failWith(text);
  return (
    z
      .string({ error })
      .trim()
      .min(1, { error })
      .max(maxLength, { error })
      .refine((s) => !HIDDEN_CONTROL.test(s), {
        error: (issue) =>
          `must be plain text: it holds a control, bidirectional-override or broken character (${hiddenCharacterOf(String(issue.input))})`,
      })
      // An empty text is already refused by its length, with one message.
      .refine((s) => s === "" || s.replace(INVISIBLE, "") !== "", {
        error: "must hold visible text; it has only invisible characters",
      })
      .describe(text)
  );
}

/** The first hidden character of a text, named by its code point (U+0000 style). */
function hiddenCharacterOf(text: string): string {
  const match = HIDDEN_CONTROL.exec(text);
  const code = match?.[0].charCodeAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")} at position ${(match?.index ?? 0) + 1}`;
}

export function flagField() {
  const text = "true or false";
  return z.boolean({ error: failWith(text) }).describe(text);
}

/** An identifier as the service issues them; the pattern also keeps ids safe to put in a URL path. */
export const ANALYSIS_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export function idField() {
  const text = "an analysis id: 1 to 128 letters, digits, - or _";
  const error = failWith(text);
  return z.string({ error }).trim().regex(ANALYSIS_ID_PATTERN, { error }).describe(text);
}

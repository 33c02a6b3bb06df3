import { BILLED_FUNCTIONS, BilledFunction } from "../../src/inputs";

/**
 * The billed STR.* calls in a formula's text, each with its arguments as Excel would evaluate them:
 * literals read here, cell references to be read from the sheet, anything else (arithmetic, other
 * functions, names, array constants) left unread — the pane then prices that call at its most.
 * Excel's `range.formulas` is always in the en-US form ("," between arguments, "." decimals).
 */
export type ArgumentExpression =
  | { kind: "omitted" }
  | { kind: "value"; value: string | number | boolean }
  | { kind: "reference"; sheet: string | undefined; row: number; column: number; rows: number; columns: number }
  | { kind: "unread"; text: string };

export interface FormulaCall {
  fn: BilledFunction;
  args: ArgumentExpression[];
}

const CALL = new RegExp(`\\bSTR\\.(${BILLED_FUNCTIONS.join("|")})\\s*\\(`, "gi");

export function formulaCalls(formula: string): FormulaCall[] {
  const calls: FormulaCall[] = [];
  const quoted = quotedSpans(formula);
  for (const m of formula.matchAll(CALL)) {
    const at = m.index ?? 0;
    if (quoted.some(([a, b]) => at > a && at < b)) continue;
    const args = splitArguments(formula, at + m[0].length);
    calls.push({ fn: (m[1] as string).toUpperCase() as BilledFunction, args: args.map(readExpression) });
  }
  return calls;
}

/** The spans of string literals ("a ""b"" c"), so that an STR.BUY( inside text is no call. */
function quotedSpans(formula: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = 0; i < formula.length; i++) {
    if (formula[i] !== '"') continue;
    const start = i;
    for (i++; i < formula.length; i++) {
      if (formula[i] !== '"') continue;
      if (formula[i + 1] === '"') i++;
      else break;
    }
    spans.push([start, i]);
  }
  return spans;
}

/** The top-level arguments from just after "(" to its ")": commas inside quotes, sheet names, parentheses and braces do not split. */
function splitArguments(formula: string, from: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = from; i < formula.length; i++) {
    const c = formula[i] as string;
    if (c === '"' || c === "'") {
      const end = closing(formula, i, c);
      current += formula.slice(i, end + 1);
      i = end;
      continue;
    }
    if (c === "(" || c === "{") depth++;
    else if ((c === ")" || c === "}") && depth > 0) depth--;
    else if (c === ")") return [...args, current];
    else if (c === "," && depth === 0) {
      args.push(current);
      current = "";
      continue;
    }
    current += c;
  }
  return [...args, current];
}

function closing(formula: string, start: number, quote: string): number {
  for (let i = start + 1; i < formula.length; i++) {
    if (formula[i] !== quote) continue;
    if (formula[i + 1] === quote) i++;
    else return i;
  }
  return formula.length - 1;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:E[+-]?\d+)?%?$/i;
const CELL = String.raw`\$?([A-Z]{1,3})\$?(\d{1,7})`;
const REFERENCE = new RegExp(String.raw`^(?:(?:'((?:[^']|'')+)'|([A-Za-z_][\w.]*))!)?${CELL}(?::${CELL})?$`, "i");

export function readExpression(raw: string): ArgumentExpression {
  const text = raw.trim();
  if (text === "") return { kind: "omitted" };
  if (/^"(?:[^"]|"")*"$/.test(text)) return { kind: "value", value: text.slice(1, -1).replace(/""/g, '"') };
  if (/^TRUE$/i.test(text)) return { kind: "value", value: true };
  if (/^FALSE$/i.test(text)) return { kind: "value", value: false };
  if (NUMBER.test(text)) {
    const percent = text.endsWith("%");
    const n = Number(percent ? text.slice(0, -1) : text);
    return { kind: "value", value: percent ? n / 100 : n };
  }
  const ref = REFERENCE.exec(text);
  if (ref) {
    const sheet = ref[1] !== undefined ? ref[1].replace(/''/g, "'") : ref[2];
    const [c1, r1] = [columnIndex(ref[3] as string), Number(ref[4]) - 1];
    const [c2, r2] = ref[5] ? [columnIndex(ref[5]), Number(ref[6]) - 1] : [c1, r1];
    return {
      kind: "reference",
      sheet,
      row: Math.min(r1, r2),
      column: Math.min(c1, c2),
      rows: Math.abs(r2 - r1) + 1,
      columns: Math.abs(c2 - c1) + 1,
    };
  }
  return { kind: "unread", text };
}

/** "A" → 0, "AA" → 26. */
function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

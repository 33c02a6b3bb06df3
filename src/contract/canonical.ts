import { Operation } from "./operations";
import { AnyRequest, requestFieldNames } from "./requests";

/**
 * The canonical form of a validated request: the cache key that makes a recalculation free.
 *
 * Two requests the service would answer alike must read alike here: key order does not matter;
 * text fields (all of them describe a place) ignore case, repeated whitespace and spacing around
 * commas; an AI flag set to false is the same as no flag; coordinates count to 6 decimals (about
 * 10 cm). The analysis id of enhance is case-sensitive, as ids are.
 */
export function canonicalRequest(op: Operation, request: AnyRequest): string {
  // The form is `op:` and the JSON of the kept fields sorted by name. Keys stored by the relay
  // depend on every byte. It is written out field by field rather than through an object built for
  // JSON.stringify, with each operation's names sorted and quoted once (formOf): a recalculation
  // keys a thousand calls at once, and each JSON.stringify or sort allocates a few hundred bytes.
  // The pieces are joined once, into one flat string: added up, the key would be a tree of twenty
  // small strings (about 1 kB, against 200 bytes) held for as long as its call waits.
  const fields = request as Record<string, unknown>;
  const form = formOf(op);
  const names = onlyNamesOf(form, fields) ? form.names : Object.keys(fields).sort();
  const out = [form.open];
  for (const name of names) {
    const value = fields[name];
    let json: string;
    if (typeof value === "string") json = JSON.stringify(name === "analysisId" ? value.trim() : canonicalText(value));
    else if (typeof value === "number") json = numberJson(canonicalNumber(name, value));
    else if (value === true) json = "true";
    else continue; // undefined, null and false are the same as no field
    if (out.length > 1) out.push(",");
    out.push(form.quoted.get(name) ?? `${JSON.stringify(name)}:`, json);
  }
  out.push("}");
  return out.join("");
}

/** An operation's key prefix, its field names sorted, and each name quoted as the key writes it. */
interface Form {
  open: string;
  names: readonly string[];
  quoted: ReadonlyMap<string, string>;
}

const FORMS = new Map<Operation, Form>();

function formOf(op: Operation): Form {
  let form = FORMS.get(op);
  if (!form) {
    const names = requestFieldNames(op).sort();
    form = { open: `${op}:{`, names, quoted: new Map(names.map((name) => [name, `${JSON.stringify(name)}:`])) };
    FORMS.set(op, form);
  }
  return form;
}

/** Whether every name the request has is one of the operation's: always so for a validated request (the schemas are strict). */
function onlyNamesOf(form: Form, fields: Record<string, unknown>): boolean {
  for (const name in fields) if (!form.quoted.has(name)) return false;
  return true;
}

/** A number as JSON.stringify writes it (which allocates a buffer of its own for each call). */
function numberJson(n: number): string {
  return Number.isFinite(n) ? String(n) : "null";
}

export function canonicalText(text: string): string {
  const folded = text.normalize("NFKC").toLowerCase();
  // Text is usually canonical already (an address as typed, keyed again at every recalculation):
  // each rewrite below makes a new string, so they run only when one of them has something to do.
  return NOT_CANONICAL.test(folded) ? rewrite(folded) : folded;
}

/**
 * Matches where `rewrite` would change folded text: whitespace other than one space, space before a
 * comma, a comma not followed by exactly one space, a trailing space, comma or dot, a leading space.
 */
const NOT_CANONICAL = /[^\S ]| {2}|\s,|,(?! )|[\s,.]$|^\s/;

function rewrite(folded: string): string {
  return folded
    .replace(/\s+/g, " ")
    .replace(/\s*,\s*/g, ", ")
    .replace(/[\s,.]+$/, "")
    .trim();
}

function canonicalNumber(key: string, value: number): number {
  const n = key === "lat" || key === "lng" ? Math.round(value * 1e6) / 1e6 : value;
  return Object.is(n, -0) ? 0 : n;
}

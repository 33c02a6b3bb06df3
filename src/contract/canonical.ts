import { Operation } from "./operations";
import { AnyRequest } from "./requests";

/**
 * The canonical form of a validated request: the cache key that makes a recalculation free.
 *
 * Two requests the service would answer alike must read alike here: key order does not matter;
 * text fields (all of them describe a place) ignore case, repeated whitespace and spacing around
 * commas; an AI flag set to false is the same as no flag; coordinates count to 6 decimals (about
 * 10 cm). The analysis id of enhance is case-sensitive, as ids are.
 */
export function canonicalRequest(op: Operation, request: AnyRequest): string {
  // `op:` and the JSON of the kept fields sorted by name. The relay's stored keys depend on every
  // byte, so the pairs are written in that order whatever the names (an object would put
  // integer-like names first).
  const fields = request as Record<string, unknown>;
  const pairs: string[] = [];
  for (const name of Object.keys(fields).sort()) {
    const value = canonicalValue(name, fields[name]);
    if (value !== undefined) pairs.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  return `${op}:{${pairs.join(",")}}`;
}

/** A field's value as the key holds it; undefined when it counts as no field (undefined, null, false). */
function canonicalValue(name: string, value: unknown): string | number | true | undefined {
  if (typeof value === "string") return name === "analysisId" ? value.trim() : canonicalText(value);
  if (typeof value === "number") return canonicalNumber(name, value);
  return value === true ? true : undefined;
}

export function canonicalText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/\s*,\s*/g, ", ")
    .replace(/[\s,.]+$/, "")
    .trim();
}

function canonicalNumber(name: string, value: number): number {
  const n = name === "lat" || name === "lng" ? Math.round(value * 1e6) / 1e6 : value;
  return Object.is(n, -0) ? 0 : n;
}

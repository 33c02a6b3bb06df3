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
  const entries: [string, string | number | boolean][] = [];
  for (const [key, value] of Object.entries(request)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "string") entries.push([key, key === "analysisId" ? value.trim() : canonicalText(value)]);
    else if (typeof value === "number") entries.push([key, canonicalNumber(key, value)]);
    else if (value === true) entries.push([key, true]);
  }
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${op}:${JSON.stringify(Object.fromEntries(entries))}`;
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

function canonicalNumber(key: string, value: number): number {
  const n = key === "lat" || key === "lng" ? Math.round(value * 1e6) / 1e6 : value;
  return Object.is(n, -0) ? 0 : n;
}

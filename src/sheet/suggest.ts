import { FIELD_CATALOGUE, FieldInfo } from "../contract";

/*
 * Close matches for a field name nobody knows, for the error message: "cashflow" → yearOneCashFlowUSD,
 * "reveneu.p50" → revenue.p50. Names are compared the way findField compares them (case and
 * punctuation ignored), against each field's path, its path without the unit suffix, and its label.
 */

interface Candidate {
  key: string;
  field: FieldInfo;
}

const CANDIDATES: readonly Candidate[] = FIELD_CATALOGUE.flatMap((field) =>
  [field.path, field.path.replace(/(USD|Percentage)$/, ""), field.label].map((name) => ({
    key: simplify(name),
    field,
  })),
);

export function simplify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** Up to `limit` fields whose names are close to `query`, closest first. */
export function closeFields(query: string, limit = 3): FieldInfo[] {
  const q = simplify(query);
  if (q === "") return [];
  const scored: { field: FieldInfo; score: number }[] = [];
  for (const { key, field } of CANDIDATES) {
    const score = closeness(q, key);
    if (score !== undefined) scored.push({ field, score });
  }
  scored.sort((a, b) => a.score - b.score);
  const out: FieldInfo[] = [];
  for (const { field } of scored) {
    if (!out.includes(field)) out.push(field);
    if (out.length === limit) break;
  }
  return out;
}

/** Lower is closer; undefined when not close at all. A name inside another ("cashflow") is close. */
function closeness(query: string, key: string): number | undefined {
  if (query.length >= 3 && (key.includes(query) || query.includes(key)))
    return Math.abs(key.length - query.length) / 10;
  const most = Math.max(1, Math.floor(query.length / 4));
  // The distance is at least the difference in length: skip the quadratic count when that already
  // rules the key out (a cell of thousands of characters otherwise took half a second per name).
  if (Math.abs(query.length - key.length) > most) return undefined;
  const distance = editDistance(query, key);
  return distance <= most ? distance : undefined;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

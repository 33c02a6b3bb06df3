import { CachedAnswer } from "./store";

type Envelope = CachedAnswer["envelope"];

/*
 * How both stores write a cached answer: its comparables apart from the rest of the envelope.
 * They are most of it, and the callers that ask most show none: the add-in's cells and screening
 * rows (POST /v1/batch with maxComparables 0). A store that keeps them apart reads and parses only
 * the rest for such an item, which is most of what a cached batch item costs (bench:relay).
 *
 * The rest keeps `data.comparables` as an empty list, so the key keeps its place in the answer and
 * the rest alone is a whole envelope: what a caller that wants no comparables is given.
 */

/** A cached answer as the stores write it. */
export interface SplitEnvelope {
  /** The envelope, its `data.comparables` emptied. */
  rest: Envelope;
  /** `data.comparables` as JSON; null when there is no list to keep apart (no data). */
  comparables: string | null;
}

export function splitComparables(envelope: Envelope): SplitEnvelope {
  const data = envelope.data;
  if (!data || !Array.isArray(data.comparables)) return { rest: envelope, comparables: null };
  return { rest: { ...envelope, data: { ...data, comparables: [] } }, comparables: JSON.stringify(data.comparables) };
}

/** Puts the comparables kept apart back into the rest; `undefined` (not read) leaves the list empty. */
export function joinComparables(rest: Envelope, comparables: string | null | undefined): Envelope {
  if (typeof comparables === "string" && rest.data)
    rest.data.comparables = JSON.parse(comparables) as NonNullable<Envelope["data"]>["comparables"];
  return rest;
}

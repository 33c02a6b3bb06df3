/*
 * Whose answer a 2xx body is, which decides whether it was billed. The service answers every call
 * with its JSON envelope ({success, data?, warnings?}, spec "Resources"); a body that is no such
 * envelope, whole or cut short, is not the service's (a proxy's or a captive portal's page, an
 * empty body), and a request that got no answer of the service's is a failed request, not billed.
 */

/** A 2xx body, as the bill reads it. */
export type ServiceAnswer =
  /** The service's envelope, parsed. */
  | { kind: "envelope"; envelope: Record<string, unknown> }
  /**
   * The service's envelope cut short or otherwise unparseable: what it said of itself before the
   * break (`success` true or data seen: billed; false: failed; neither seen: the relay cannot know).
   */
  | { kind: "cut"; said: "success" | "failure" | "nothing" }
  /** Not the service's: HTML, plain text, an empty body, JSON that is not its envelope. */
  | { kind: "foreign" };

const ENVELOPE_KEYS = ["success", "data", "warnings", "warning"];

export function readServiceAnswer(body: unknown): ServiceAnswer {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const envelope = body as Record<string, unknown>;
    // An empty object is the envelope with nothing in it; an object of other keys is someone else's.
    const keys = Object.keys(envelope);
    return keys.length === 0 || ENVELOPE_KEYS.some((k) => k in envelope)
      ? { kind: "envelope", envelope }
      : { kind: "foreign" };
  }
  // JSON text the reader could not parse, opening an object: the envelope, cut short.
  if (typeof body === "string" && /^\s*\{\s*("|$)/.test(body)) {
    if (/"success"\s*:\s*false\b/.test(body)) return { kind: "cut", said: "failure" };
    if (/"success"\s*:\s*true\b|"data"\s*:/.test(body)) return { kind: "cut", said: "success" };
    return { kind: "cut", said: "nothing" };
  }
  return { kind: "foreign" };
}

/** A short, one-line sample of a body for a message or the ledger (redacted by the caller). */
export function sampleOf(body: unknown, max = 120): string {
  const text = (typeof body === "string" ? body : (JSON.stringify(body) ?? "")).replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

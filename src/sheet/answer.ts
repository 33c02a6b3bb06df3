import { Analysis, AnalysisData, RelayAnswer, Strategy, Warning, isCreate, normalizeAnalysis, warningText } from "../contract";

/**
 * What the layouts read from a relay answer. The relay sends `data` already normalised, but on the
 * wire it is just an object: it is parsed here (tolerantly, as the contract parses the service) so the
 * layouts read typed fields, and a relay or a stored answer of an older shape still lays out.
 */

const parsed = new WeakMap<object, Analysis>();

/** The answer's analysis, typed; undefined when the answer has none (enhance whose AI functions all failed). */
export function analysisOf(answer: Pick<RelayAnswer, "data">): Analysis | undefined {
  const { data } = answer;
  if (data === undefined) return undefined;
  const known = parsed.get(data);
  if (known) return known;
  const result = AnalysisData.safeParse(data);
  if (!result.success) return undefined;
  // Idempotent on an already-normalised analysis; repairs one that is not (an answer stored by an older relay).
  const analysis = normalizeAnalysis(result.data);
  parsed.set(data, analysis);
  return analysis;
}

/** The answer's warnings as text, in order, blanks dropped. */
export function warningTexts(answer: { warnings?: readonly Warning[] | undefined }): string[] {
  return (answer.warnings ?? []).map((w) => warningText(w).trim()).filter((t) => t !== "");
}

/**
 * The strategy whose fields an answer has: the caller's word first (STR.BUY knows), then the
 * relay's `operation`, then the fields themselves (an enhance answer does not say which strategy it
 * recalculated). buy and owned have the same fields, so "buy" stands for both there.
 */
export function strategyOf(answer: Pick<RelayAnswer, "data" | "relay">, hint?: Strategy): Strategy | undefined {
  if (hint) return hint;
  const op = answer.relay.operation;
  if (op !== undefined && isCreate(op)) return op;
  const analysis = analysisOf(answer);
  if (!analysis) return undefined;
  const has = (key: keyof AnalysisData) => analysis[key] !== undefined;
  if (has("yearOneCohostReturnUSD") || has("yearOneCohostCommissionUSD")) return "cohost";
  if (has("yearOneMorgageAndTaxesUSD") || has("mortgageLength") || has("downPaymentPercentage") || has("yearOneCapRatePercentage")) return "buy";
  if (has("yearOneRentUSD") || has("monthlyRentUSD")) return "arb";
  return undefined;
}

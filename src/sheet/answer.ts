import {
  Analysis,
  AnalysisData,
  RelayAnswer,
  RelayMeta,
  Strategy,
  Warning,
  isCreate,
  normalizeAnalysis,
  warningText,
} from "../contract";

/*
 * What the layouts read from a relay answer. `data` is parsed (tolerantly, as the contract parses
 * the service) and normalised here, whichever relay answered and however old its cache: normalising
 * is idempotent, so data the relay already repaired reads the same.
 */

/** Analyses this module parsed and normalised, by the data they came from: each is done once. */
const parsed = new WeakMap<object, Analysis>();

/** The answer's analysis, typed; undefined when the answer has none (enhance whose AI functions all failed). */
export function analysisOf(answer: Pick<RelayAnswer, "data">): Analysis | undefined {
  const { data } = answer;
  if (data === undefined) return undefined;
  const known = parsed.get(data);
  if (known) return known;
  const analysis = parseAndNormalize(data);
  if (analysis) parsed.set(data, analysis);
  return analysis;
}

function parseAndNormalize(data: Record<string, unknown>): Analysis | undefined {
  const result = AnalysisData.safeParse(data);
  // Idempotent on an already-normalised analysis; repairs one that is not.
  return result.success ? normalizeAnalysis(result.data) : undefined;
}

/** Said in the warnings of every layout of a sandbox answer, so a copied row or card still says its figures are not real. */
export const SANDBOX_NOTICE = "SANDBOX: simulated data";

/** What warningTexts reads: the service's warnings and, when known, what the relay says about the answer. */
export interface WarningSource {
  warnings?: readonly Warning[] | undefined;
  relay?: Pick<RelayMeta, "sandbox" | "stale"> | undefined;
}

/** What a cell says of an answer the relay marked stale (RELAY_STALE_AFTER_DAYS): it was served free, a refresh is not. */
export function staleNotice(stale: NonNullable<RelayMeta["stale"]>): string {
  const age = stale.ageDays === 1 ? "1 day" : `${stale.ageDays} days`;
  return `STALE: fetched ${age} ago; a refresh costs up to ${stale.refreshCostUSD.toFixed(2)} USD`;
}

/**
 * Everything an answer warns about, as text, in order: first what the relay says about the answer
 * itself (simulated, stale), then the service's warnings, blanks dropped. Every layout — screening row,
 * card, entity, comparables, the CLI's sheets — shows warnings through this one list; the relay's
 * notices come first so a clipped cell still has them.
 */
export function warningTexts(answer: WarningSource): string[] {
  const texts = answer.relay?.sandbox ? [SANDBOX_NOTICE] : [];
  if (answer.relay?.stale) texts.push(staleNotice(answer.relay.stale));
  for (const w of answer.warnings ?? []) {
    const t = warningText(w).trim();
    if (t !== "") texts.push(t);
  }
  return texts;
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
  if (
    has("yearOneMorgageAndTaxesUSD") ||
    has("mortgageLength") ||
    has("downPaymentPercentage") ||
    has("yearOneCapRatePercentage")
  )
    return "buy";
  if (has("yearOneRentUSD") || has("monthlyRentUSD")) return "arb";
  return undefined;
}

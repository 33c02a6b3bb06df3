import {
  Analysis,
  AnalysisData,
  RelayAnswer,
  RelayMeta,
  Strategy,
  Warning,
  isCreate,
  looksLikeAnalysis,
  normalizeAnalysis,
  normalizedMarkOf,
  markedUpToDate,
  warningText,
} from "../contract";

/*
 * What the layouts read from a relay answer. `data` is parsed (tolerantly, as the contract parses
 * the service). The relay normalises what the service sends and marks it (`_normalized`): a marked
 * analysis is read as it is, never normalised a second time (a second pass would read figures the
 * first one had already converted); only an unmarked one (a hand-made answer, an older relay's) is
 * normalised here.
 */

/** Analyses this module parsed and normalised, by the data they came from: each is done once. */
const parsed = new WeakMap<object, Analysis>();

/** What analysisOf reads: the data, and for enhance whether an analysis id is required. */
export type AnalysisSource = Pick<RelayAnswer, "data"> & { relay?: Pick<RelayMeta, "operation"> | undefined };

/**
 * The answer's analysis, typed; undefined when the answer has none: enhance whose AI functions all
 * failed, data that holds no analysis, or an enhance answer without an analysis id (its figures
 * cannot be told to be the row's, so they never replace it).
 */
export function analysisOf(answer: AnalysisSource): Analysis | undefined {
  const { data } = answer;
  if (data === undefined || data === null) return undefined;
  let analysis = parsed.get(data);
  if (!analysis) {
    analysis = parseAndNormalize(data);
    if (!analysis) return undefined;
    parsed.set(data, analysis);
  }
  if (answer.relay?.operation === "enhance" && !hasId(analysis)) return undefined;
  return analysis;
}

function hasId(analysis: Analysis): boolean {
  return typeof analysis._id === "string" && analysis._id.trim() !== "";
}

function parseAndNormalize(data: Record<string, unknown>): Analysis | undefined {
  if (!looksLikeAnalysis(data)) return undefined;
  const result = AnalysisData.safeParse(data);
  if (!result.success) return undefined;
  if (!normalizedMarkOf(data)) return normalizeAnalysis(result.data, [], {}, data);
  // Read as it is; only the shape every analysis has is made sure of, in case a copy lost part of it.
  const a = markedUpToDate(result.data);
  const list = Array.isArray(a.comparables) ? a.comparables.filter((c) => typeof c === "object" && c !== null) : [];
  return {
    ...a,
    revenue: a.revenue ?? {},
    adr: a.adr ?? {},
    occupancy: a.occupancy ?? {},
    comparables: list,
  } as Analysis;
}

/** The repairs made to the answer's figures, from the analysis's mark and the relay's `normalized`, each once. */
export function repairNotes(answer: WarningSource): string[] {
  const fromData = answer.data === undefined ? [] : (analysisOf(answer)?._normalized?.notes ?? []);
  return [...new Set([...fromData, ...(answer.relay?.normalized ?? [])])];
}

/** Said in the warnings of every layout of a sandbox answer, so a copied row or card still says its figures are not real. */
export const SANDBOX_NOTICE = "SANDBOX: simulated data";

/** What warningTexts reads: the service's warnings and, when known, what the relay says about the answer. */
export interface WarningSource {
  warnings?: readonly Warning[] | undefined;
  relay?: (Pick<RelayMeta, "sandbox" | "stale"> & Partial<Pick<RelayMeta, "normalized" | "operation">>) | undefined;
  /** The analysis, whose mark lists the repairs made to it. */
  data?: RelayAnswer["data"];
}

/** What a cell says of an answer the relay marked stale (RELAY_STALE_AFTER_DAYS): it was served free, a refresh is not. */
export function staleNotice(stale: NonNullable<RelayMeta["stale"]>): string {
  const age = stale.ageDays === 1 ? "1 day" : `${stale.ageDays} days`;
  return `STALE: fetched ${age} ago; a refresh costs up to ${stale.refreshCostUSD.toFixed(2)} USD`;
}

/**
 * Everything an answer warns about, as text, in order: first what the relay says about the answer
 * itself (simulated, stale), then the repairs made to its figures (a unit read otherwise, a figure
 * left blank and why), then the service's warnings, blanks dropped. Every layout — screening row,
 * card, entity, comparables, the CLI's sheets — shows warnings through this one list; the relay's
 * notices come first so a clipped cell still has them.
 */
export function warningTexts(answer: WarningSource): string[] {
  const texts = answer.relay?.sandbox ? [SANDBOX_NOTICE] : [];
  if (answer.relay?.stale) texts.push(staleNotice(answer.relay.stale));
  texts.push(...repairNotes(answer));
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

import { Warning, warningText } from "./analysis";
import type { AiFunction } from "./billing";

/*
 * Which AI functions a call's warnings say did not complete, from the clearest signal each gives
 * (spec: "When an AI step cannot complete, the response still has status 200 … plus a warnings
 * array explaining what was skipped"). A warning is an AI function's failure only when it names
 * that function: by its parameter name, by a phrase that can mean nothing else ("AI comparables",
 * "AI expense estimates"), or, in a warning object, by a field or a code. Anything else ("Only 12
 * comparables found within 3 miles") is not read as a failure: the function counts as completed,
 * and the charge as an estimate (`unread`).
 */

/** Phrases that name one function and nothing else. Whole words: "AI" is not "AIR", "comp" not "compact". */
const PHRASES: Readonly<Record<AiFunction, RegExp>> = {
  addAIComps: /\bAI[- ](?:selected\s+|based\s+)?(?:comps?|comparables?)\b/i,
  addAIExpenseEstimates: /\bAI[- ](?:estimated\s+|based\s+)?expenses?(?:\s+estimates?|\s+estimation)?\b/i,
};

/** A code such as AI_COMPS_FAILED or AI_EXPENSES_TIMEOUT (any case, `_` or `-`). */
const CODES: Readonly<Record<AiFunction, RegExp>> = {
  addAIComps: /(?:^|[_-])AI[_-]?(?:COMPS?|COMPARABLES?)(?:[_-]|$)/i,
  addAIExpenseEstimates: /(?:^|[_-])AI[_-]?EXPENSES?(?:[_-]|$)|AI[_-]?EXPENSE[_-]?ESTIMATES?/i,
};

/** Fields of a warning object that may hold the function it is about. */
const FUNCTION_FIELDS = ["function", "aiFunction", "ai_function", "step", "feature", "parameter", "param", "name"];

/** What a call's warnings say of its AI functions. */
export interface AiWarningReading {
  /** Requested functions a warning names: not completed, not billed. */
  failed: AiFunction[];
  /** Warnings that name no requested function: read as not about a failure. */
  unread: number;
}

export function readAiWarnings(requested: readonly AiFunction[], warnings: readonly Warning[] = []): AiWarningReading {
  const failed = new Set<AiFunction>();
  let unread = 0;
  for (const warning of warnings) {
    const named = namedBy(warning, requested);
    if (named.length === 0) unread++;
    named.forEach((f) => failed.add(f));
  }
  return { failed: requested.filter((f) => failed.has(f)), unread };
}

/** The requested functions one warning names, by its clearest signal. */
function namedBy(warning: Warning, requested: readonly AiFunction[]): AiFunction[] {
  if (typeof warning !== "string") {
    const fields = warning as Record<string, unknown>;
    const byField = FUNCTION_FIELDS.map((k) => fields[k]).filter((v): v is string => typeof v === "string");
    const named = requested.filter((f) => byField.some((v) => v.toLowerCase() === f.toLowerCase()));
    if (named.length > 0) return named;
    const code = typeof fields.code === "string" ? fields.code : "";
    const byCode = requested.filter((f) => CODES[f].test(code) || code.toLowerCase().includes(f.toLowerCase()));
    if (byCode.length > 0) return byCode;
  }
  const text = warningText(warning);
  // A warning that names a function by its parameter name is about that one, whatever else it mentions.
  const byName = requested.filter((f) => text.includes(f));
  return byName.length > 0 ? byName : requested.filter((f) => PHRASES[f].test(text));
}

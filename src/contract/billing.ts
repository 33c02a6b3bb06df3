import { z } from "zod";
import { Warning, warningText } from "./analysis";
import { Operation, isCreate } from "./operations";

/*
 * The service's billing rules (spec: "What the service does", billing model), as code.
 *
 * Amounts are whole US cents so sums never drift: 0.1 + 0.2 is 30 cents, not 0.30000000000000004.
 */

export const PRICE_CENTS = {
  /** Each successfully created report. */
  report: 20,
  /** Each AI function that completes, on create or enhance. */
  aiFunction: 10,
} as const;

export const AiFunction = z.enum(["addAIComps", "addAIExpenseEstimates"]);
export type AiFunction = z.infer<typeof AiFunction>;
export const AI_FUNCTIONS = AiFunction.options;

/** What one call is billed: reports (0 or 1), completed AI functions, and the total in cents. */
export const Charge = z.object({
  reports: z.number().int().min(0),
  aiFunctions: z.number().int().min(0),
  cents: z.number().int().min(0),
});
export type Charge = z.infer<typeof Charge>;

export const NO_CHARGE: Charge = Object.freeze({ reports: 0, aiFunctions: 0, cents: 0 });

export function charge(reports: number, aiFunctions: number): Charge {
  return { reports, aiFunctions, cents: reports * PRICE_CENTS.report + aiFunctions * PRICE_CENTS.aiFunction };
}

export function centsToUSD(cents: number): number {
  return Math.round(cents) / 100;
}

type AiFlags = { addAIComps?: boolean | undefined; addAIExpenseEstimates?: boolean | undefined };

export function requestedAiFunctions(params: AiFlags): AiFunction[] {
  return AI_FUNCTIONS.filter((f) => params[f] === true);
}

/** The most one call can be billed: what a budget must hold back before the call is sent. */
export function maxCharge(op: Operation, params: AiFlags): Charge {
  return charge(isCreate(op) ? 1 : 0, requestedAiFunctions(params).length);
}

// Whole words only: a bare /comp/ would read "could not complete" or "computed" as comparables.
const MENTIONS: Readonly<Record<AiFunction, RegExp>> = {
  addAIComps: /\bcomps?\b|\bcomparables?\b/i,
  addAIExpenseEstimates: /\bexpenses?\b/i,
};
const MENTIONS_AI = /\bAI\b|artificial|addAI/i;

/**
 * Which requested AI functions did not complete, read from the warnings (spec: "When an AI step
 * cannot complete, the response still has status 200 … plus a warnings array explaining what
 * was skipped"). A warning naming a function (by its parameter name, else by the words comparables
 * or expenses) marks that function. A warning that speaks of AI without naming one marks one
 * function as failed (we cannot tell which, and the bill is the same). A warning about neither is
 * not about AI and marks nothing.
 */
// Stryker disable next-line ArrayDeclaration: a default warning mentioning neither AI nor a function marks nothing, as no warnings do.
export function failedAiFunctions(requested: readonly AiFunction[], warnings: readonly Warning[] = []): AiFunction[] {
  const failed = new Set<AiFunction>();
  let unattributed = 0;
  for (const w of warnings) {
    const text = typeof w === "string" ? w : `${warningText(w)} ${JSON.stringify(w)}`;
    // A warning that names a function by its parameter name is about that one, whatever else it mentions.
    const byName = requested.filter((f) => text.includes(f));
    const named = byName.length > 0 ? byName : requested.filter((f) => MENTIONS[f].test(text));
    if (named.length > 0) named.forEach((f) => failed.add(f));
    else if (MENTIONS_AI.test(text)) unattributed++;
  }
  for (const f of requested) {
    if (unattributed === 0) break;
    if (!failed.has(f)) {
      failed.add(f);
      unattributed--;
    }
  }
  return requested.filter((f) => failed.has(f));
}

/** What the service bills for one call, given how it ended. */
export function chargeFor(
  op: Operation,
  params: AiFlags,
  outcome: { succeeded: boolean; hasData: boolean; warnings?: readonly Warning[] | undefined },
): Charge {
  // Validation errors and failed requests are not billed.
  if (!outcome.succeeded) return NO_CHARGE;
  const requested = requestedAiFunctions(params);
  if (!isCreate(op) && !outcome.hasData) return NO_CHARGE; // enhance: every AI function failed, free
  const completed = requested.length - failedAiFunctions(requested, outcome.warnings).length;
  // A create always returns data (its base fee covers the report); enhance has no base fee.
  return charge(isCreate(op) ? 1 : 0, completed);
}

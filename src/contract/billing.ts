import { z } from "zod";
import { readAiWarnings } from "./ai-warnings";
import { Warning } from "./analysis";
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

/** Which requested AI functions did not complete, by the warnings that name them (ai-warnings.ts). */
export function failedAiFunctions(requested: readonly AiFunction[], warnings: readonly Warning[] = []): AiFunction[] {
  return readAiWarnings(requested, warnings).failed;
}

/**
 * True when the AI part of a call's charge rests on warnings read as not about a failure (they name
 * no AI function): the functions are billed as completed, and the service's bill may be lower.
 */
export function aiChargeEstimated(params: AiFlags, warnings: readonly Warning[] = []): boolean {
  const requested = requestedAiFunctions(params);
  const reading = readAiWarnings(requested, warnings);
  return reading.unread > 0 && reading.failed.length < requested.length;
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

import { AnyRequest, FieldIssue, Operation, Strategy, Validated, idField, validateRequest } from "../contract";
import { POSITIONAL_ARGUMENTS, RangeInput, functionRequest, single } from "./arguments";
import { CellInput, STRATEGY_NAMES, readBoolean, readStrategy } from "./values";

/**
 * The request each billed STR.* function makes from its arguments, as Excel passes them. The
 * functions send it (functions/functions.ts) and the task pane prices a refresh from it
 * (taskpane/formula-requests.ts), so the price shown is that of what is sent.
 */
export const BILLED_FUNCTIONS = ["BUY", "ARB", "OWNED", "COHOST", "ENHANCE", "CARD"] as const;
export type BilledFunction = (typeof BILLED_FUNCTIONS)[number];

export type BilledCall = { ok: true; op: Operation; request: AnyRequest } | { ok: false; issues: FieldIssue[] };

/** A billed function's request from all its arguments, in the order the function takes them (omitted: null). */
export function billedCallRequest(fn: BilledFunction, args: readonly unknown[]): BilledCall {
  if (fn === "ENHANCE") {
    const built = enhanceRequest(args[0], args[1], args[2]);
    return built.ok ? { ok: true, op: "enhance", request: built.request } : built;
  }
  if (fn === "CARD") {
    const built = cardRequest(args[0], args[1], args.slice(2));
    return built.ok ? { ok: true, op: built.strategy, request: built.request } : built;
  }
  const op = fn.toLowerCase() as Strategy;
  const count = POSITIONAL_ARGUMENTS[op].length;
  const built = functionRequest(
    op,
    args[0] as RangeInput,
    args.slice(1, 1 + count),
    (args[1 + count] ?? undefined) as CellInput | RangeInput | undefined,
  );
  return built.ok ? { ok: true, op, request: built.request } : built;
}

/** STR.ENHANCE: both AI flags omitted, run both; one given, run what it says, and the other only if it says TRUE. */
export function enhanceRequest(
  analysisId: unknown,
  aiComps: unknown,
  aiExpenses: unknown,
): { ok: true; request: AnyRequest } | { ok: false; issues: FieldIssue[] } {
  const id = analysisIdText(analysisId);
  if (!id.ok) return id;
  const comps = readBoolean(single(aiComps));
  const expenses = readBoolean(single(aiExpenses));
  const problems = [
    ...(comps.ok ? [] : [{ path: "aiComps", message: `must be ${comps.message}` }]),
    ...(expenses.ok ? [] : [{ path: "aiExpenses", message: `must be ${expenses.message}` }]),
  ];
  if (problems.length > 0) return { ok: false, issues: problems };
  const neither = comps.ok && expenses.ok && comps.value === undefined && expenses.value === undefined;
  const request = {
    analysisId: id.value,
    addAIComps: neither || (comps.ok && comps.value === true),
    addAIExpenseEstimates: neither || (expenses.ok && expenses.value === true),
  };
  const valid = validateRequest("enhance", request);
  if (!valid.ok)
    return {
      ok: false,
      issues: valid.issues.map((i) => ({ path: i.path === "addAIComps" ? "aiComps" : i.path, message: i.message })),
    };
  return { ok: true, request: valid.value };
}

/** STR.CARD: a strategy, a location, that strategy's positional values and then its options. */
export function cardRequest(
  strategy: unknown,
  location: unknown,
  values: readonly unknown[],
): { ok: true; strategy: Strategy; request: AnyRequest } | { ok: false; issues: FieldIssue[] } {
  const op = readStrategy(single(strategy));
  if (!op.ok || op.value === undefined || op.value === "enhance")
    return { ok: false, issues: [{ path: "strategy", message: `must be one of ${STRATEGY_NAMES.join(", ")}` }] };
  const s = op.value as Strategy;
  const count = POSITIONAL_ARGUMENTS[s].length;
  if (values.length > count + 1)
    return {
      ok: false,
      issues: [{ path: "values", message: `${s} takes ${count} values and then options; got ${values.length}` }],
    };
  const built = functionRequest(
    s,
    location as RangeInput,
    values.slice(0, count),
    (values[count] ?? undefined) as RangeInput | undefined,
  );
  return built.ok ? { ok: true, strategy: s, request: built.request } : built;
}

/**
 * The analysis id argument as text (an id of digits may arrive as a number). TRUE/FALSE, NaN or ∞
 * is no id: refused here, or it would be sent as "true" or "NaN" and cost a call.
 */
export function analysisIdText(analysisId: unknown): { ok: true; value: string } | { ok: false; issues: FieldIssue[] } {
  const value = single(analysisId);
  if (typeof value === "boolean" || (typeof value === "number" && !Number.isFinite(value)))
    return {
      ok: false,
      issues: [
        {
          path: "analysisId",
          message: `must be ${idField().description}; got ${typeof value === "boolean" ? String(value).toUpperCase() : String(value)}`,
        },
      ],
    };
  return { ok: true, value: String(value ?? "").trim() };
}

/** The analysis id of a function that reads a stored analysis: text of the id's form, else named as refused. */
export function readAnalysisId(analysisId: unknown): Validated<string> {
  const id = analysisIdText(analysisId);
  if (!id.ok) return id;
  const valid = validateRequest("enhance", { analysisId: id.value, addAIComps: true });
  return valid.ok ? id : { ok: false, issues: valid.issues.filter((i) => i.path === "analysisId") };
}

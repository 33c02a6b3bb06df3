import { AnyRequest, Operation, maxCharge } from "../../contract";
import { AnswerCache, cacheKeyOf } from "./answer-cache";
import { Ledger, holdsBack } from "./ledger";
import type { Plan } from "./options";

/*
 * What the gateway would do with a request now, spending nothing: the same validation, cache,
 * ledger fallback and unknown-outcome rule as `analyze`, priced by the same charge the budget holds
 * back. The dry run of POST /v1/batch and str-screen's estimate are this.
 */

export interface PlanDeps {
  validate: (op: Operation, body: unknown) => AnyRequest;
  cache: AnswerCache;
  ledger: Ledger;
}

export async function planRequest(
  deps: PlanDeps,
  op: Operation,
  body: unknown,
  options: { refresh?: boolean; freshSince?: number },
): Promise<Plan> {
  let request: AnyRequest;
  try {
    request = deps.validate(op, body);
  } catch {
    return { verdict: "invalid" };
  }
  const key = cacheKeyOf(op, request);
  // A refresh with freshSince is answered by an answer fetched since (the pane's "older than N days").
  const since = options.refresh ? options.freshSince : undefined;
  if (!options.refresh || since !== undefined) {
    const hit = await deps.cache.read(key, { comparables: false });
    if (hit && (since === undefined || hit.fetchedAt >= since)) return { verdict: "cached", key };
    const last = await deps.ledger.lastCall(key);
    // Held back (an unknown outcome, or a billed answer that could not be used): not sent unless refreshed.
    if (holdsBack(last)) return { verdict: "unknown-outcome", key };
    if (since === undefined && (await deps.cache.fromLedger(key, last))) return { verdict: "cached", key };
  }
  return { verdict: "create", key, charge: maxCharge(op, request) };
}

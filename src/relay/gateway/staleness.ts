import { Charge, RelayAnswer, centsToUSD } from "../../contract";

/*
 * Marks an old answer stale. The relay never fetches a cached analysis again on its own (that would
 * bill without asking); instead an answer older than RELAY_STALE_AFTER_DAYS says its age and the
 * most a refresh would cost, priced by the same rule the budget holds back before sending.
 */

export const DAY_MS = 86_400_000;

/**
 * `answer` as it is, or with `relay.stale` when it was fetched `staleAfterMs` or more before `now`
 * (never, without `staleAfterMs`: RELAY_STALE_AFTER_DAYS unset).
 */
export function markStale(
  answer: RelayAnswer,
  staleAfterMs: number | undefined,
  now: number,
  refreshCharge: () => Charge,
): RelayAnswer {
  const fetchedAt = Date.parse(answer.relay.fetchedAt);
  if (staleAfterMs === undefined || !Number.isFinite(fetchedAt) || now - fetchedAt < staleAfterMs) return answer;
  const stale = { ageDays: Math.floor((now - fetchedAt) / DAY_MS), refreshCostUSD: centsToUSD(refreshCharge().cents) };
  return { ...answer, relay: { ...answer.relay, stale } };
}

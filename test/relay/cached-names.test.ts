import { AnswerCache } from "../../src/relay/gateway/answer-cache";
import { CachedAnswer } from "../../src/relay/store/store";

/*
 * Answers the relay kept before a figure was renamed are answered with today's names: the months'
 * nightly rate was `adrUSD` in analyses marked version 2 and is `ratePerNightUSD` since version 3
 * (docs/architecture.md, the glossary). A script reading `data.monthly[].ratePerNightUSD` must not
 * find it blank because the answer came from the cache.
 */

const answers = new AnswerCache({ sandbox: false, cacheTtlMs: undefined } as ConstructorParameters<
  typeof AnswerCache
>[0]);

function entry(version: number, month: Record<string, unknown>): Pick<CachedAnswer, "envelope" | "fetchedAt" | "op"> {
  return {
    op: "buy",
    fetchedAt: Date.UTC(2026, 10, 1),
    envelope: {
      success: true,
      data: { _id: "a1", monthly: [month], _normalized: { version, notes: [] } } as never,
      extra: {},
      notes: [],
    },
  };
}

test("a cached version-2 analysis is answered with monthly[].ratePerNightUSD", () => {
  const answer = answers.answerOf(entry(2, { month: "Jan", adrUSD: 180, occupancy: 0.5 }), {
    cached: true,
    costCents: 0,
  });
  expect((answer.data as { monthly: unknown[] }).monthly).toEqual([
    { month: "Jan", ratePerNightUSD: 180, occupancy: 0.5 },
  ]);
});

test("a current analysis is answered as it was kept", () => {
  const kept = entry(3, { month: "Jan", ratePerNightUSD: 180 });
  const answer = answers.answerOf(kept, { cached: true, costCents: 0 });
  expect(answer.data).toBe(kept.envelope.data);
});

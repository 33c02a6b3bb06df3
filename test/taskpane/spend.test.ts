import { UsageAnswer } from "../../src/contract";
import { spendView } from "../../taskpane/spend";

const period = (costUSD: number, extra: Partial<UsageAnswer["today"]> = {}): UsageAnswer["today"] => ({
  reports: 0,
  aiFunctions: 0,
  costUSD,
  unknownUSD: 0,
  pendingUSD: 0,
  calls: 0,
  ...extra,
});

const usage = (callers?: UsageAnswer["callers"]): UsageAnswer => ({
  mode: "live",
  today: period(1.1),
  month: period(3),
  budget: { dailyUSD: 100, remainingTodayUSD: 98.9 },
  ...(callers ? { callers } : {}),
});

describe("the Spend tab's breakdown by caller", () => {
  test("a line per caller, named by label or token id, today's committed spend, the month, and an own budget", () => {
    const v = spendView(
      usage([
        {
          id: "a1a1a1a1a1a1",
          label: "alice",
          you: true,
          today: period(0.6, { unknownUSD: 0.2, pendingUSD: 0.1 }),
          month: period(2),
          budget: { dailyUSD: 1, remainingTodayUSD: 0.1 },
        },
        { id: "b2b2b2b2b2b2", you: false, today: period(0.2), month: period(0.8) },
        { id: null, you: false, today: period(0), month: period(0.2) },
      ]),
    );
    expect(v.callers).toEqual([
      { name: "alice", you: true, todayUSD: 0.9, monthUSD: 2, budget: { dailyUSD: 1, remainingUSD: 0.1 } },
      { name: "token b2b2b2b2b2b2", you: false, todayUSD: 0.2, monthUSD: 0.8, budget: undefined },
      { name: "no token recorded", you: false, todayUSD: 0, monthUSD: 0.2, budget: undefined },
    ]);
    expect(v.own).toEqual({ budgetUSD: 1, remainingUSD: 0.1 });
  });

  test("nothing to tell apart (one unlabelled token), or a relay that gives no breakdown: no section", () => {
    expect(spendView(usage()).callers).toBeUndefined();
    expect(
      spendView(usage([{ id: "a1a1a1a1a1a1", you: true, today: period(1.1), month: period(3) }])).callers,
    ).toBeUndefined();
    expect(spendView(usage()).own).toBeUndefined();
  });

  test("one caller with a label is shown: the operator named it", () => {
    const v = spendView(
      usage([{ id: "a1a1a1a1a1a1", label: "office", you: true, today: period(1.1), month: period(3) }]),
    );
    expect(v.callers?.map((c) => c.name)).toEqual(["office"]);
    expect(v.own).toBeUndefined();
  });
});

describe("the Spend tab's meter", () => {
  test("a token with its own budget: the meter is that budget, with the token's own spend today", () => {
    const v = spendView(
      usage([
        {
          id: "a1a1a1a1a1a1",
          label: "alice",
          you: true,
          today: period(0.6, { unknownUSD: 0.2, pendingUSD: 0.1 }),
          month: period(2),
          budget: { dailyUSD: 1, remainingTodayUSD: 0.1 },
        },
        { id: "b2b2b2b2b2b2", you: false, today: period(0.2), month: period(0.8) },
      ]),
      new Date(2026, 0, 5, 14, 32),
    );
    expect(v.meter).toEqual({ whose: "yours", budgetUSD: 1, usedUSD: 0.9, share: 0.9 });
    expect(v.asOf).toEqual(new Date(2026, 0, 5, 14, 32));
  });

  test("a token without one: the relay's budget and all of today's spend", () => {
    expect(spendView(usage()).meter).toEqual({
      whose: "relay",
      budgetUSD: 100,
      usedUSD: 1.1,
      share: expect.closeTo(0.011, 6),
    });
  });
});

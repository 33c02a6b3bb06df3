import { noDryRun } from "../../src/client";
import { refreshOffer } from "../../taskpane/refresh";
import { runOffer } from "../../taskpane/run-offer";

/** A run the budget left today cannot cover is not offered; the estimate says why and what to do. */
describe("whether the pane offers a priced run", () => {
  test("covered, to the cent: offered", () => {
    expect(runOffer({ items: 28, toCreate: 28, estimatedCostUSD: 5.6, budgetRemainingUSD: 5.6 })).toEqual({
      offered: true,
    });
    // Cached rows cost nothing: offered with no budget left.
    expect(runOffer({ items: 28, toCreate: 0, estimatedCostUSD: 0, budgetRemainingUSD: 0 })).toEqual({ offered: true });
  });

  test("the budget is used up: not offered; nothing new today, the cache still free, tomorrow or a larger budget", () => {
    const offer = runOffer({ items: 28, toCreate: 28, estimatedCostUSD: 5.6, budgetRemainingUSD: 0 });
    expect(offer).toEqual({
      offered: false,
      reason: "This run may cost up to $5.60; $0.00 of today's budget is left, so it is not offered.",
      advice: expect.stringMatching(/^Nothing new can be bought today: .*cache.*tomorrow.*raise it\.$/),
    });
  });

  test("part of it covered: not offered; how many rows the budget covers at this run's price a row", () => {
    const offer = runOffer({ items: 28, toCreate: 28, estimatedCostUSD: 5.6, budgetRemainingUSD: 1 });
    expect(offer.offered).toBe(false);
    if (offer.offered) return;
    expect(offer.advice).toMatch(/^The budget left covers about 5 new rows: select fewer, or wait until tomorrow/);
    // An enhancement's price a row is its own (two AI steps: 0.20 a row).
    const enhance = runOffer(
      { items: 10, toCreate: 10, estimatedCostUSD: 2, budgetRemainingUSD: 0.25 },
      { one: "row", many: "rows" },
    );
    expect(enhance.offered === false && enhance.advice).toMatch(/covers about 1 new row:/);
  });
});

describe("whether the pane offers a priced refresh", () => {
  const plan = (formulaUSD: number, tableUSD: number, budgetRemainingUSD: number) => ({
    formulas: {
      calls: Math.round(formulaUSD / 0.2),
      costUSD: formulaUSD,
      unread: 0,
      invalid: 0,
      dryRun: { ...noDryRun(), items: Math.round(formulaUSD / 0.2), toCreate: Math.round(formulaUSD / 0.2) },
    },
    tables: {
      ...noDryRun(),
      items: Math.round(tableUSD / 0.2),
      toCreate: Math.round(tableUSD / 0.2),
      estimatedCostUSD: tableUSD,
      budgetRemainingUSD,
      unusual: 0,
    },
  });

  test("formulas and tables together within the budget: offered", () => {
    expect(refreshOffer(plan(0.6, 1.4, 2))).toEqual({ offered: true });
  });

  test("formulas and tables together past the budget, though each alone fits: not offered, and why", () => {
    const offer = refreshOffer(plan(0.6, 1.4, 1.5));
    expect(offer).toMatchObject({
      offered: false,
      reason: "This run may cost up to $2.00; $1.50 of today's budget is left, so it is not offered.",
    });
    expect(offer.offered === false && offer.advice).toMatch(/covers about 7 new calls and rows/);
  });
});

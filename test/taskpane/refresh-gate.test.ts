import { installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";
import { installFakeExcel } from "../support/fake-excel";

installCustomFunctionsRuntime();
/* eslint-disable @typescript-eslint/no-require-imports */
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
const { addinConnection, refreshGate } = require("../../src/client") as typeof import("../../src/client");
const { planRefresh, recalculateFormulas } =
  require("../../taskpane/refresh") as typeof import("../../taskpane/refresh");
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The pane's refresh buys what it priced and nothing else (issue #36, item 7). Excel recalculates
 * more than the cells asked for — the rest of a range, dependent and volatile cells anywhere — and
 * each of those calls reaches the functions while the refresh runs. The gate admits only the
 * canonical requests the pane priced, each once, and closes when they have all been made: counted
 * here by the reports the real relay's sandbox creates.
 */
const cardValue = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];
const ROWS = 8;
const PRICED = 3;

describe("the refresh gate, on the real relay and its sandbox", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "100" });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  const bodies = Array.from({ length: ROWS }, (_, i) => buyBody(500 + i));
  const call = (i: number) => {
    const b = bodies[i] as ReturnType<typeof buyBody>;
    return STR.buy([[b.fullAddress]], b.purchasePriceUSD, b.bedrooms, b.bathrooms, b.accomodates);
  };
  const grid = (): unknown[][] => [
    ["Address", "Price", "Beds", "Baths", "Guests", "Card"],
    ...bodies.map((b, i) => [
      b.fullAddress,
      b.purchasePriceUSD,
      b.bedrooms,
      b.bathrooms,
      b.accomodates,
      `=STR.BUY(A${i + 2},B${i + 2},C${i + 2},D${i + 2},E${i + 2})`,
    ]),
  ];

  test("3 priced cells refreshed while 5 other STR cells recalculate: 3 reports bought; a second recalculation buys none", async () => {
    // Every cell analysed once: the relay's cache and the functions' session hold all eight.
    const first = await Promise.all(bodies.map((_, i) => call(i)));
    const ids = first.map((g) => cardValue(g, "Analysis id"));

    // Excel recalculates the whole sheet's STR cells (the user's own volatile formulas feed them),
    // and calls the first priced cell twice (a dependency chain): all of it while the gate is open.
    let answers: Promise<unknown[][]>[] = [];
    const recalculateAll = () => {
      answers = bodies.map((_, i) => call(i));
      setTimeout(() => answers.push(call(0)), 20);
    };
    const wb = installFakeExcel(
      { sheets: [{ name: "Deals", rows: grid() }], selection: { row: 1, column: 5, rows: PRICED, columns: 1 } },
      { onCalculate: recalculateAll },
    );
    const { client } = await addinConnection().get();
    const plan = await planRefresh({ client, run: wb.run }, "selection", { strategy: "buy" });
    expect(plan.formulaCalls).toBe(PRICED);
    expect(plan.formulaCostUSD).toBe(0.6);

    const before = t.sandboxStats();
    const result = await recalculateFormulas(wb.run, refreshGate, plan.targets, plan.formulaRequests, {
      quietMs: 2000,
    });
    const cards = await Promise.all(answers);
    expect(t.sandboxStats().reports - before.reports).toBe(PRICED);
    expect(t.sandboxStats().billedCents - before.billedCents).toBe(60);
    expect(result).toEqual({ calls: PRICED, notMade: 0 });
    // The priced cells show new analyses; the other five their cached ones; the repeat of the first
    // priced cell the same new analysis, not a second purchase.
    expect(cards.slice(0, ROWS).map((g, i) => cardValue(g, "Analysis id") !== ids[i])).toEqual([
      ...Array<boolean>(PRICED).fill(true),
      ...Array<boolean>(ROWS - PRICED).fill(false),
    ]);
    expect(cardValue(cards[ROWS] as unknown[][], "Analysis id")).toBe(
      cardValue(cards[0] as unknown[][], "Analysis id"),
    );
    // Closed once the three were made: not open for the rest of its time limit.
    expect(refreshGate.isOpen()).toBe(false);

    // A second recalculation of everything: nothing bought, the refreshed answers kept.
    const after = t.sandboxStats();
    const again = await Promise.all(bodies.map((_, i) => call(i)));
    expect(t.sandboxStats().arrivals).toBe(after.arrivals);
    expect(again.map((g) => cardValue(g, "Analysis id"))).toEqual(
      cards.slice(0, ROWS).map((g) => cardValue(g, "Analysis id")),
    );
  });

  test("the gate admits a priced request once, nothing else, and closes itself after the last", () => {
    refreshGate.open(["buy:a", "buy:b"], { freshSince: 123 });
    expect(refreshGate.admit("buy:other")).toBeUndefined();
    expect(refreshGate.admit("buy:a")).toEqual({ freshSince: 123 });
    expect(refreshGate.admit("buy:a")).toBeUndefined();
    expect(refreshGate.isOpen()).toBe(true);
    expect(refreshGate.admit("buy:b")).toEqual({ freshSince: 123 });
    expect(refreshGate.isOpen()).toBe(false);
    expect(refreshGate.admitted).toBe(2);
    // Its time limit closes it whatever was made.
    refreshGate.open(["buy:a"], { maxMs: 1000, now: 0 });
    expect(refreshGate.admit("buy:a", 1000)).toBeUndefined();
    expect(refreshGate.waiting).toBe(0);
  });
});

import { installCustomFunctionsRuntime } from "../support/custom-functions";
import { TEST_TOKEN, TestRelay, buyBody, buyBodyWithPhotos, startRelay } from "../support/relay";
import { installFakeExcel } from "../support/fake-excel";

installCustomFunctionsRuntime();
/* eslint-disable @typescript-eslint/no-require-imports */
const STR = require("../../functions/functions") as typeof import("../../functions/functions");
const { addinConnection, refreshGate } = require("../../src/client") as typeof import("../../src/client");
const { planRefresh, recalculateFormulas } =
  require("../../taskpane/refresh") as typeof import("../../taskpane/refresh");
const { retryEnhancements } = require("../../taskpane/enhance-retry") as typeof import("../../taskpane/enhance-retry");
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The pane's Refresh prices the formulas by the requests they send: their arguments read as Excel
 * passes them (options in a referenced range, by a synonym, included), priced by the relay's dry
 * run. What the ledger records after the refresh is that estimate, to the cent.
 */
const OMITTED = null as unknown as undefined;
const cardValue = (grid: unknown[][], label: string) => grid.find((row) => row[0] === label)?.[1];

describe("the refresh estimate of STR formulas, against the ledger", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    await addinConnection().update({
      relayUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  const spentCents = async () => Math.round((await t.get("/v1/usage")).json.today.costUSD * 100);

  test("cached, new, AI (through a referenced options range, by a synonym), duplicate, enhance and invalid calls", async () => {
    const cached = buyBody(301);
    const ai = buyBodyWithPhotos(true, 320);
    const fresh = buyBody(340);
    const row = (b: ReturnType<typeof buyBody>) => [b.fullAddress, b.purchasePriceUSD, b.bedrooms, b.bathrooms, 8];
    // Analysed before: in the relay's cache, with an id the ENHANCE formula reads from G2.
    const card = await STR.buy([[cached.fullAddress]], cached.purchasePriceUSD, 3, 2, 8);
    const id = cardValue(card, "Analysis id") as string;
    expect(id).toMatch(/\w+/);

    const grid: unknown[][] = [
      ["Address", "Price", "Beds", "Baths", "Guests", "Result", "Id", "Option", "Value"],
      [...row(cached), '=STR.BUY(A2,B2,C2,D2,E2,,"revenue.p50")', id, "ai comps", "yes"],
      [...row(ai), "=STR.BUY(A3,B3,C3,D3,E3,$H$2:$I$2)"],
      [...row(fresh), "=STR.BUY(A4, B4, C4, D4, E4)"],
      // The same inputs as row 2, in other cells: one call between them.
      [...row(cached), '=STR.BUY(A5,B5,C5,D5,E5,,"revenue.p50")'],
      ["", "", "", "", "", "=STR.ENHANCE(G2,FALSE,TRUE)"],
      ["", "", "", "", "", '=STR.ARB("9 Oak Ave, Austin TX",2100,2,1,4,"addAIExpenseEstimates=TRUE")'],
      // Refused by the function before anything is sent.
      ["", "", "", "", "", '=STR.BUY(A4,"call agent",C4,D4,E4)'],
    ];
    // What Excel would call for each formula when the range is recalculated.
    const evaluate: (() => Promise<unknown>)[] = [
      () => STR.buy([[cached.fullAddress]], cached.purchasePriceUSD, 3, 2, 8, OMITTED, [["revenue.p50"]]),
      () => STR.buy([[ai.fullAddress]], ai.purchasePriceUSD, 3, 2, 8, [["ai comps", "yes"]]),
      () => STR.buy([[fresh.fullAddress]], fresh.purchasePriceUSD, 3, 2, 8),
      () => STR.buy([[cached.fullAddress]], cached.purchasePriceUSD, 3, 2, 8, OMITTED, [["revenue.p50"]]),
      () => STR.enhance(id, false, true),
      () => STR.arb([["9 Oak Ave, Austin TX"]], 2100, 2, 1, 4, [["addAIExpenseEstimates=TRUE"]]),
      () => STR.buy([[fresh.fullAddress]], "call agent", 3, 2, 8),
    ];
    const answers: Promise<unknown>[] = [];
    const wb = installFakeExcel(
      { sheets: [{ name: "Deals", rows: grid }] },
      {
        onCalculate: () => {
          // Settled, as Excel shows a failure in its cell: the bad one's #VALUE! included.
          for (const f of evaluate) answers.push(f().catch((error: unknown) => error));
        },
      },
    );
    const { client } = await addinConnection().get();

    const plan = await planRefresh({ client, run: wb.run }, "sheet", { strategy: "buy" });
    expect(plan.formulas).toMatchObject({ unread: 0, invalid: 1, calls: 5 });
    expect(plan.formulas.dryRun.verdicts).toEqual(["create", "create", "create", "duplicate", "create", "create"]);
    // A report each for four creates, AI comps, AI expenses twice (ENHANCE, ARB).
    expect(plan.formulaCostUSD).toBe(1.1);

    const before = await spentCents();
    const billedBefore = t.sandboxStats().billedCents;
    await recalculateFormulas(wb.run, refreshGate, plan.targets, plan.formulaRequests, { quietMs: 500 });
    await Promise.allSettled(answers);
    expect(answers).toHaveLength(7);
    expect((await spentCents()) - before).toBe(Math.round(plan.formulaCostUSD * 100));
    expect(t.sandboxStats().billedCents - billedBefore).toBe(Math.round(plan.formulaCostUSD * 100));
  });

  test("an ENHANCE whose AI steps all failed is offered again at its price, and the retry bills what it said", async () => {
    const body = buyBody(360);
    const id = cardValue(await STR.buy([[body.fullAddress]], body.purchasePriceUSD, 3, 2, 8), "Analysis id") as string;
    t.relay.sandbox?.setFaults({ aiFailureRate: 1 });
    const answers: Promise<unknown>[] = [];
    const evaluate = () => STR.enhance(id, false, true);
    answers.push(evaluate());
    await Promise.allSettled(answers);
    const grid = [
      ["Id", "Enhanced"],
      [id, "=STR.ENHANCE(A2,FALSE,TRUE)"],
      ["", "=STR.ENHANCE(A2,FALSE,TRUE)"],
    ];
    const wb = installFakeExcel(
      { sheets: [{ name: "Deals", rows: grid }] },
      { onCalculate: () => answers.push(evaluate()) },
    );
    const { client } = await addinConnection().get();
    const plan = await planRefresh({ client, run: wb.run }, "sheet", { strategy: "buy" });
    // Both cells, one request, one AI step.
    expect(plan.enhanceRetry).toMatchObject({ calls: 1, costUSD: 0.1 });
    expect(plan.enhanceRetry.cells.map((c) => c.address)).toEqual(["Deals!B2", "Deals!B3"]);

    // A try that fails again is free; one that completes bills the price shown.
    for (const [failureRate, billed] of [
      [1, 0],
      [0, 10],
    ] as const) {
      t.relay.sandbox?.setFaults({ aiFailureRate: failureRate });
      const before = await spentCents();
      await retryEnhancements(wb.run, plan.enhanceRetry.cells);
      await Promise.allSettled(answers);
      expect((await spentCents()) - before).toBe(billed);
    }
    // Kept now: nothing left to retry.
    const after = await planRefresh({ client, run: wb.run }, "sheet", { strategy: "buy" });
    expect(after.enhanceRetry).toEqual({ cells: [], calls: 0, costUSD: 0 });
  });

  test("older than N days: only the formulas whose answer was fetched before the cutoff are bought again, at the price shown", async () => {
    const older = buyBody(380);
    const newer = buyBody(381);
    await STR.buy([[older.fullAddress]], older.purchasePriceUSD, 3, 2, 8);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cutoff = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await STR.buy([[newer.fullAddress]], newer.purchasePriceUSD, 3, 2, 8);
    const formula = (b: typeof older) => `=STR.BUY("${b.fullAddress}",${b.purchasePriceUSD},3,2,8)`;
    const answers: Promise<unknown>[] = [];
    const wb = installFakeExcel(
      { sheets: [{ name: "Deals", rows: [[formula(older)], [formula(newer)]] }] },
      {
        onCalculate: () => {
          for (const b of [older, newer]) answers.push(STR.buy([[b.fullAddress]], b.purchasePriceUSD, 3, 2, 8));
        },
      },
    );
    const { client } = await addinConnection().get();
    // "Older than 2 days", two days after the cutoff: the first analysis has aged, the second not.
    const plan = await planRefresh({ client, run: wb.run }, "sheet", {
      strategy: "buy",
      olderThanDays: 2,
      now: cutoff + 2 * 86_400_000,
    });
    expect(plan.formulas.dryRun.verdicts).toEqual(["create", "cached"]);
    expect(plan.formulaCostUSD).toBe(0.2);
    const before = await spentCents();
    const arrivals = t.sandboxStats().arrivals;
    await recalculateFormulas(wb.run, refreshGate, plan.targets, plan.formulaRequests, {
      quietMs: 500,
      freshSince: plan.olderThan?.freshSince,
    });
    const cells = (await Promise.all(answers)) as unknown[][][];
    expect((await spentCents()) - before).toBe(20);
    expect(t.sandboxStats().arrivals).toBe(arrivals + 1);
    expect(cells.map((c) => cardValue(c, "Cached"))).toEqual([
      "No: fetched now, cost $0.20",
      "Yes: from the relay's cache, not billed again",
    ]);
  });
});

import { BUY_PATH, TestRelay, startRelay } from "../support/relay";
import { AnswerWay, BILLING_KEY, BillingService, addressFor, startBillingService } from "../support/billing-service";

/*
 * AI charges from the clearest signal, counted at a stand-in that bills each completed AI function
 * as it takes the request. A warning about the comparables found names no AI function: the step
 * completed and was billed, and the answer says its charge is an estimate. A warning object whose
 * code names AI comparables says that step failed: not billed. Service bill = ledger = told.
 */

const buyWithAi = (way: AnswerWay, n = 0) => ({
  fullAddress: addressFor(way, n),
  purchasePriceUSD: 450_000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
  addAIComps: true,
});

describe("AI billing from the clearest signal: bill = ledger = told", () => {
  let service: BillingService;
  let t: TestRelay;

  beforeAll(async () => {
    service = await startBillingService();
    t = await startRelay({ STR_API_KEY: BILLING_KEY, STR_API_BASE_URL: service.url });
  });
  afterAll(async () => {
    await t.close();
    await service.close();
  });

  test("a warning naming no AI function bills the step (an estimate, said so); a code object un-bills it", async () => {
    const few = await t.post(BUY_PATH, buyWithAi("fewcomps"));
    const failed = await t.post(BUY_PATH, buyWithAi("codefail"));
    expect([few.status, failed.status]).toEqual([200, 200]);
    // Before: "Only 12 comparables …" un-billed the completed step (told 0.20 of 0.30), and the
    // AI_COMPS_FAILED object billed the failed one (told 0.30 of 0.20).
    expect(few.json.relay.costUSD).toBe(0.3);
    expect(failed.json.relay.costUSD).toBe(0.2);
    expect(few.json.relay.normalized).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AI charge estimated: a warning names no AI function/)]),
    );
    expect(failed.json.relay.normalized ?? []).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/AI charge estimated/)]),
    );
    const told = Math.round((few.json.relay.costUSD + failed.json.relay.costUSD) * 100);
    const ledger = await t.relay.store.ledger.rows();
    const ledgerCents = ledger.reduce((sum, r) => sum + (r.state === "billed" ? r.cents : 0), 0);
    const usage = (await t.get("/v1/usage")).json;
    expect(service.billedCents()).toBe(50);
    expect(ledgerCents).toBe(50);
    expect(Math.round(usage.today.costUSD * 100)).toBe(50);
    expect(told).toBe(50);
    expect(usage.today.aiFunctions).toBe(1);
  }, 60_000);
});

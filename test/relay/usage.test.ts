import { BUY_PATH, ENHANCE_PATH, TestRelay, buyBody, buyBodyWithPhotos, startRelay } from "../support/relay";

describe("usage adds up from the ledger, and the ledger matches the service's bill", () => {
  let t: TestRelay;
  beforeEach(async () => {
    t = await startRelay();
  });
  afterEach(() => t.close());

  test("reports, AI functions and cost for today and the month equal the sandbox's billing", async () => {
    const a = await t.post(BUY_PATH, {
      ...buyBodyWithPhotos(true, 100),
      addAIComps: true,
      addAIExpenseEstimates: true,
    });
    expect(a.json.relay.costUSD).toBeCloseTo(0.4);
    await t.post(BUY_PATH, buyBody(2));
    await t.post(BUY_PATH, buyBody(2)); // cached: free
    const e = await t.post(ENHANCE_PATH, { analysisId: a.json.data._id, addAIExpenseEstimates: true });
    expect(e.json.relay.costUSD).toBeCloseTo(0.1);
    const usage = await t.get("/v1/usage");
    expect(usage.status).toBe(200);
    const billed = t.sandboxStats();
    expect(usage.json.today).toMatchObject({
      reports: billed.reports,
      aiFunctions: billed.aiFunctions,
      costUSD: billed.billedCents / 100,
      unknownUSD: 0,
      pendingUSD: 0,
    });
    expect(usage.json.month.costUSD).toBeCloseTo(0.7);
    expect(usage.json).toMatchObject({ mode: "sandbox", budget: { dailyUSD: 1000 } });
    expect(usage.json.budget.remainingTodayUSD).toBeCloseTo(999.3);
    const ledger = await t.relay.store.ledger.rows();
    expect(ledger.map((r) => r.state)).toEqual(["billed", "billed", "billed"]);
    expect(ledger.reduce((s, r) => s + r.cents, 0)).toBe(billed.billedCents);
  });

  test("an AI step that fails is not billed, and the relay's cost says so", async () => {
    t.relay.sandbox?.setFaults({ aiFailureRate: 1 });
    const a = await t.post(BUY_PATH, { ...buyBody(5), addAIExpenseEstimates: true });
    expect(a.status).toBe(200);
    expect(a.json.warnings?.[0]).toMatch(/addAIExpenseEstimates/);
    expect(a.json.relay.costUSD).toBeCloseTo(0.2);
    expect(t.sandboxStats().billedCents).toBe(20);
  });

  test("enhance with every AI function failing is free and answers only warnings", async () => {
    const a = await t.post(BUY_PATH, buyBody(6));
    t.relay.sandbox?.setFaults({ aiFailureRate: 1 });
    const e = await t.post(ENHANCE_PATH, { analysisId: a.json.data._id, addAIExpenseEstimates: true });
    expect(e.status).toBe(200);
    expect(e.json.data).toBeUndefined();
    expect(e.json.warnings).toHaveLength(1);
    expect(e.json.relay.costUSD).toBe(0);
    const ledger = await t.relay.store.ledger.rows();
    expect(ledger[1]).toMatchObject({ op: "enhance", state: "free", cents: 0 });
  });

  test("an unknown analysis id for enhance is 404 and free", async () => {
    const e = await t.post(ENHANCE_PATH, { analysisId: "0123456789abcdef01234567", addAIComps: true });
    expect(e.status).toBe(404);
    expect(e.json.error.code).toBe("STR_ANALYSIS_NOT_FOUND");
    expect((await t.relay.store.ledger.rows())[0]).toMatchObject({ state: "free", status: 404, cents: 0 });
  });
});

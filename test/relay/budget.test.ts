import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

describe("the daily budget is never passed", () => {
  let t: TestRelay;
  afterEach(() => t.close());

  test("a call that would pass the budget gets 402 and nothing is sent", async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.5" });
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
    expect((await t.post(BUY_PATH, buyBody(2))).status).toBe(200);
    const third = await t.post(BUY_PATH, buyBody(3));
    expect(third.status).toBe(402);
    expect(third.json.error.code).toBe("STR_BUDGET_EXCEEDED");
    expect(third.json.error.message).toMatch(/0\.10 USD is left/);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 2, billedCents: 40 });
  });

  test("a call is held at its most: 0.40 USD with both AI functions, so 0.35 left refuses it", async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.55" });
    await t.post(BUY_PATH, buyBody(1));
    const ai = await t.post(BUY_PATH, { ...buyBody(2), addAIComps: true, addAIExpenseEstimates: true });
    expect(ai.status).toBe(402);
    const plain = await t.post(BUY_PATH, buyBody(3));
    expect(plain.status).toBe(200);
  });

  test("cached answers are free even when the budget is spent", async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.2" });
    await t.post(BUY_PATH, buyBody(1));
    expect((await t.post(BUY_PATH, buyBody(2))).status).toBe(402);
    const cached = await t.post(BUY_PATH, buyBody(1));
    expect(cached.status).toBe(200);
    expect(cached.json.relay.cached).toBe(true);
  });

  test("concurrent calls cannot pass the budget together", async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "1" });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => t.post(BUY_PATH, buyBody(i))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(7);
    expect(t.sandboxStats().billedCents).toBe(100);
  });
});

import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

const ALICE = "rt_alice_0123456789abcdef";
const BOB = "rt_bob_0123456789abcdef01";
const as = (token: string) => ({ authorization: `Bearer ${token}` });

/** Lines of an NDJSON batch answer. */
const linesOf = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { index: number; status: number; body: any });

describe("a token's own daily budget: past it, that token gets 402 while the others go on", () => {
  let t: TestRelay;
  afterEach(() => t.close());

  const start = (budgets: string, relayBudget = "1000") =>
    startRelay({
      RELAY_TOKENS: `alice:${ALICE},bob:${BOB}`,
      RELAY_TOKEN_BUDGETS_USD_PER_DAY: budgets,
      RELAY_BUDGET_USD_PER_DAY: relayBudget,
    }).then((relay) => (t = relay));

  test("alice's third report would pass her 0.50 USD: 402 naming her budget and what is left, nothing sent; bob's is sent", async () => {
    await start("alice:0.5");
    expect((await t.post(BUY_PATH, buyBody(1), as(ALICE))).status).toBe(200);
    expect((await t.post(BUY_PATH, buyBody(2), as(ALICE))).status).toBe(200);
    const third = await t.post(BUY_PATH, buyBody(3), as(ALICE));
    expect(third.status).toBe(402);
    expect(third.json.error.code).toBe("STR_CALLER_BUDGET_EXCEEDED");
    expect(third.json.error.message).toMatch(/\(alice\) own budget of 0\.50 USD/);
    expect(third.json.error.message).toMatch(/0\.10 USD of it is left/);
    expect(third.json.error.message).toMatch(/Nothing was sent/);
    expect(third.json.error.message).not.toContain(ALICE);
    expect(t.sandboxStats().arrivals).toBe(2);

    const bobs = await t.post(BUY_PATH, buyBody(3), as(BOB));
    expect(bobs.status).toBe(200);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 3, billedCents: 60 });
    // Alice still gets what is cached, free: bob's answer included.
    const cached = await t.post(BUY_PATH, buyBody(3), as(ALICE));
    expect(cached.status).toBe(200);
    expect(cached.json.relay.cached).toBe(true);

    const ledger = await t.relay.store.ledger.rows();
    expect(ledger.map((r) => [r.callerLabel, r.callerId])).toEqual([
      ["alice", t.relay.callers.idOf(ALICE)],
      ["alice", t.relay.callers.idOf(ALICE)],
      ["bob", t.relay.callers.idOf(BOB)],
    ]);
  });

  test("the relay's budget still holds over everyone: STR_BUDGET_EXCEEDED when it is the one passed", async () => {
    await start("alice:10", "0.4");
    expect((await t.post(BUY_PATH, buyBody(1), as(BOB))).status).toBe(200);
    expect((await t.post(BUY_PATH, buyBody(2), as(BOB))).status).toBe(200);
    const third = await t.post(BUY_PATH, buyBody(3), as(ALICE));
    expect(third.status).toBe(402);
    expect(third.json.error.code).toBe("STR_BUDGET_EXCEEDED");
  });

  test("concurrent calls cannot pass a token's budget together, and the other token's calls all go through", async () => {
    await start("alice:1");
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => t.post(BUY_PATH, buyBody(i), as(i % 2 ? BOB : ALICE))),
    );
    const alices = answers.filter((_, i) => i % 2 === 0);
    const bobs = answers.filter((_, i) => i % 2 === 1);
    expect(alices.filter((a) => a.status === 200)).toHaveLength(5);
    expect(alices.filter((a) => a.status === 402).map((a) => a.json.error.code)).toEqual(
      Array(7).fill("STR_CALLER_BUDGET_EXCEEDED"),
    );
    expect(bobs.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(t.sandboxStats().billedCents).toBe(100 + 12 * 20);
  });

  test("in a batch, alice's items past her budget get 402 lines and bob's batch beside it is answered whole", async () => {
    await start("alice:0.6");
    const items = (from: number) =>
      Array.from({ length: 5 }, (_, n) => ({ strategy: "buy", params: buyBody(from + n) }));
    const dry = await t.post("/v1/batch", { items: items(0), dryRun: true }, as(ALICE));
    expect(dry.json.budgetRemainingUSD).toBeCloseTo(0.6);
    const [a, b] = await Promise.all([
      t.post("/v1/batch", { items: items(0) }, as(ALICE)),
      t.post("/v1/batch", { items: items(100) }, as(BOB)),
    ]);
    const alices = linesOf(a.text);
    expect(alices.filter((l) => l.status === 200)).toHaveLength(3);
    expect(alices.filter((l) => l.status === 402).map((l) => l.body.error.code)).toEqual(
      Array(2).fill("STR_CALLER_BUDGET_EXCEEDED"),
    );
    expect(linesOf(b.text).map((l) => l.status)).toEqual(Array(5).fill(200));
    expect((await t.post("/v1/batch", { items: items(0), dryRun: true }, as(ALICE))).json.budgetRemainingUSD).toBe(0);
  });
});

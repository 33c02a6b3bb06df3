import { UsageAnswer } from "../../src/contract";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

const ALICE = "rt_alice_0123456789abcdef";
const BOB = "rt_bob_0123456789abcdef01";
const CAROL = "rt_carol_unlabelled_01234";
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe("GET /v1/usage breaks today's and this month's spend down by caller", () => {
  let t: TestRelay;
  beforeEach(async () => {
    t = await startRelay({
      RELAY_TOKENS: `alice:${ALICE},bob:${BOB},${CAROL}`,
      RELAY_TOKEN_BUDGETS_USD_PER_DAY: "alice:1",
    });
  });
  afterEach(() => t.close());

  test("each token's line: label and id (never the token), its spend, its own budget and what is left, and which is you", async () => {
    await t.post(BUY_PATH, buyBody(1), as(ALICE));
    await t.post(BUY_PATH, buyBody(2), as(ALICE));
    await t.post(BUY_PATH, { ...buyBody(3), addAIComps: true }, as(BOB));
    // A cached answer is free: it books nothing to bob.
    await t.post(BUY_PATH, buyBody(1), as(BOB));

    const usage = await t.get("/v1/usage", as(BOB));
    expect(usage.status).toBe(200);
    const answer = UsageAnswer.parse(usage.json);
    for (const token of [ALICE, BOB, CAROL]) expect(usage.text).not.toContain(token);
    const line = (id: string) => answer.callers?.find((c) => c.id === id);
    expect(line(t.relay.callers.idOf(ALICE))).toMatchObject({
      label: "alice",
      you: false,
      today: { reports: 2, costUSD: 0.4, calls: 2 },
      month: { reports: 2, costUSD: 0.4 },
      budget: { dailyUSD: 1, remainingTodayUSD: 0.6 },
    });
    const bob = line(t.relay.callers.idOf(BOB));
    expect(bob).toMatchObject({ label: "bob", you: true, today: { reports: 1, calls: 1 } });
    expect(bob?.today.costUSD).toBe((t.sandboxStats().billedCents - 40) / 100);
    expect(bob?.budget).toBeUndefined();
    // A configured token that has not spent yet is listed, without a label it was not given.
    const carol = line(t.relay.callers.idOf(CAROL));
    expect(carol).toMatchObject({ you: false, today: { calls: 0, costUSD: 0 } });
    expect(carol?.label).toBeUndefined();
    // The lines add up to the totals; most spent first.
    const sum = (answer.callers ?? []).reduce((s, c) => s + c.today.costUSD, 0);
    expect(sum).toBeCloseTo(answer.today.costUSD);
    expect(answer.callers?.map((c) => c.label ?? c.id)).toEqual(["alice", "bob", t.relay.callers.idOf(CAROL)]);
  });

  test("every token sees the whole breakdown; only its own line says you", async () => {
    await t.post(BUY_PATH, buyBody(1), as(ALICE));
    const fromCarol = (await t.get("/v1/usage", as(CAROL))).json as UsageAnswer;
    expect(fromCarol.callers?.filter((c) => c.you).map((c) => c.id)).toEqual([t.relay.callers.idOf(CAROL)]);
    expect(fromCarol.callers?.map((c) => c.id).sort()).toEqual(
      [ALICE, BOB, CAROL].map((x) => t.relay.callers.idOf(x)).sort(),
    );
  });
});

describe("a relay with the generated token (RELAY_TOKENS unset)", () => {
  test("books its calls to that token: one line, you, with no label and no budget of its own", async () => {
    const t = await startRelay({ RELAY_TOKENS: "" });
    try {
      expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
      const answer = UsageAnswer.parse((await t.get("/v1/usage")).json);
      expect(answer.callers).toEqual([
        { id: t.relay.callers.idOf(TEST_TOKEN), you: true, today: answer.today, month: answer.month },
      ]);
      expect((await t.relay.store.ledger.rows())[0]?.callerId).toBe(t.relay.callers.idOf(TEST_TOKEN));
    } finally {
      await t.close();
    }
  });
});

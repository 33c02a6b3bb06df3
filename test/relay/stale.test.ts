import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * With RELAY_CACHE_TTL_HOURS unset a cached analysis is served for ever, free. It is never fetched
 * again behind the user's back, but past RELAY_STALE_AFTER_DAYS (30 by default) its answer says how
 * old it is and what a refresh would cost, so the cells can show it.
 */
const DAY = 86_400_000;

describe("an old cached answer is marked stale, with its age and the price of refreshing it", () => {
  let t: TestRelay | undefined;
  afterEach(async () => {
    jest.restoreAllMocks();
    await t?.close();
    t = undefined;
  });

  /** Moves the relay's clock to `days` after the real now. */
  function laterBy(days: number): void {
    jest.restoreAllMocks();
    const now = Date.now();
    jest.spyOn(Date, "now").mockReturnValue(now + days * DAY);
  }

  test("fresh: no mark; 45 days on: cached, free, stale for 45 days, a refresh at 0.20 USD; nothing sent again", async () => {
    t = await startRelay();
    const first = await t.post(BUY_PATH, buyBody());
    expect(first.json.relay.stale).toBeUndefined();
    laterBy(45);
    const old = await t.post(BUY_PATH, buyBody());
    expect(old.json.relay).toMatchObject({ cached: true, costUSD: 0, stale: { ageDays: 45, refreshCostUSD: 0.2 } });
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, billedCents: 20 });
  });

  test("the refresh price is the relay's own: a report and each AI step asked for", async () => {
    t = await startRelay();
    await t.post(BUY_PATH, { ...buyBody(1), addAIComps: true, addAIExpenseEstimates: true });
    laterBy(31);
    const old = await t.post(BUY_PATH, { ...buyBody(1), addAIComps: true, addAIExpenseEstimates: true });
    expect(old.json.relay.stale).toEqual({ ageDays: 31, refreshCostUSD: 0.4 });
  });

  test("batch lines are marked too", async () => {
    t = await startRelay();
    await t.post(BUY_PATH, buyBody(2));
    laterBy(40);
    const batch = await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(2) }] });
    const line = JSON.parse(batch.text.trim().split("\n")[0] as string);
    expect(line.body.relay).toMatchObject({ cached: true, stale: { ageDays: 40, refreshCostUSD: 0.2 } });
  });

  test("RELAY_STALE_AFTER_DAYS moves the line: 60 days leaves a 45-day answer unmarked", async () => {
    t = await startRelay({ RELAY_STALE_AFTER_DAYS: "60" });
    await t.post(BUY_PATH, buyBody(3));
    laterBy(45);
    expect((await t.post(BUY_PATH, buyBody(3))).json.relay.stale).toBeUndefined();
    laterBy(61);
    expect((await t.post(BUY_PATH, buyBody(3))).json.relay.stale).toMatchObject({ ageDays: 61 });
  });
});

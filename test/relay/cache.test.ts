import { BUY_PATH, ENHANCE_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

describe("the relay's cache makes a recalculation free", () => {
  let t: TestRelay;
  beforeEach(async () => {
    t = await startRelay();
  });
  afterEach(() => t.close());

  test("the same request a second time is answered from the cache and bills nothing", async () => {
    const first = await t.post(BUY_PATH, buyBody());
    expect(first.status).toBe(200);
    expect(first.json.relay).toMatchObject({ cached: false, costUSD: 0.2, sandbox: true });
    const second = await t.post(BUY_PATH, buyBody());
    expect(second.status).toBe(200);
    expect(second.json.relay).toMatchObject({ cached: true, costUSD: 0 });
    expect(second.json.data._id).toBe(first.json.data._id);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, reports: 1, billedCents: 20 });
  });

  test("requests that differ only in key order, case, spacing or a false AI flag share one cache entry", async () => {
    await t.post(BUY_PATH, {
      fullAddress: "12 Main St, Austin TX",
      purchasePriceUSD: 450000,
      bedrooms: 3,
      bathrooms: 2,
      accomodates: 8,
    });
    const variant = await t.post(BUY_PATH, {
      accomodates: 8,
      bathrooms: 2,
      bedrooms: 3,
      purchasePriceUSD: 450000,
      fullAddress: "  12 MAIN st ,austin   tx ",
      addAIComps: false,
    });
    expect(variant.json.relay.cached).toBe(true);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("a different request is sent and billed", async () => {
    await t.post(BUY_PATH, buyBody(0));
    const other = await t.post(BUY_PATH, { ...buyBody(0), purchasePriceUSD: 460000 });
    expect(other.json.relay.cached).toBe(false);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 2, billedCents: 40 });
  });

  test("Cache-Control: no-cache refreshes: sent again, billed again, and the cache holds the new answer", async () => {
    const first = await t.post(BUY_PATH, buyBody());
    const refreshed = await t.post(BUY_PATH, buyBody(), { "cache-control": "no-cache" });
    expect(refreshed.json.relay).toMatchObject({ cached: false, costUSD: 0.2 });
    expect(refreshed.json.data._id).not.toBe(first.json.data._id);
    const after = await t.post(BUY_PATH, buyBody());
    expect(after.json.data._id).toBe(refreshed.json.data._id);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 2, billedCents: 40 });
  });

  test("the cache survives a restart of the relay on the same data directory", async () => {
    const first = await t.post(BUY_PATH, buyBody());
    await t.close();
    t = await startRelay({}, { dataDir: t.dataDir });
    const again = await t.post(BUY_PATH, buyBody());
    expect(again.json.relay.cached).toBe(true);
    expect(again.json.data._id).toBe(first.json.data._id);
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test("the stored analysis is readable by id without an upstream call", async () => {
    const first = await t.post(BUY_PATH, buyBody());
    const stored = await t.get(`/v1/analyses/${first.json.data._id}`);
    expect(stored.status).toBe(200);
    expect(stored.json.data.revenue).toEqual(first.json.data.revenue);
    expect(stored.json.relay).toMatchObject({ cached: true, costUSD: 0, operation: "buy" });
    expect((await t.get("/v1/analyses/nope0000")).json.error.code).toBe("STR_ANALYSIS_NOT_FOUND");
    expect((await t.get("/v1/analyses/bad%20id")).status).toBe(400);
    expect(t.sandboxStats().arrivals).toBe(1);
  });
});

describe("a failure is not an answer to keep", () => {
  test("an enhance whose every AI step failed (free, warnings only) is not cached: the next call tries again", async () => {
    const t = await startRelay();
    try {
      const created = await t.post(BUY_PATH, buyBody(7));
      const enhance = { analysisId: created.json.data._id, addAIExpenseEstimates: true };
      t.relay.sandbox?.setFaults({ aiFailureRate: 1 });
      const failed = await t.post(ENHANCE_PATH, enhance);
      expect(failed.status).toBe(200);
      expect(failed.json.data).toBeUndefined();
      expect(failed.json.relay).toMatchObject({ cached: false, costUSD: 0 });
      const again = await t.post(ENHANCE_PATH, enhance);
      expect(again.json.relay.cached).toBe(false);
      expect(t.sandboxStats().arrivals).toBe(3);

      t.relay.sandbox?.setFaults({ aiFailureRate: 0 });
      const done = await t.post(ENHANCE_PATH, enhance);
      expect(done.json.data._id).toBe(created.json.data._id);
      expect(done.json.relay).toMatchObject({ cached: false, costUSD: 0.1 });
      // A real answer is kept as before.
      expect((await t.post(ENHANCE_PATH, enhance)).json.relay).toMatchObject({ cached: true, costUSD: 0 });
      expect(t.sandboxStats()).toMatchObject({ arrivals: 4, billedCents: 30 });
    } finally {
      await t.close();
    }
  });
});

describe("cache expiry", () => {
  test("with RELAY_CACHE_TTL_HOURS an entry is answered until it is that old, then fetched again", async () => {
    // Only the clock is faked: the relay's timers and sockets run as they do.
    jest.useFakeTimers({
      doNotFake: [
        "nextTick",
        "setImmediate",
        "setTimeout",
        "setInterval",
        "clearTimeout",
        "clearInterval",
        "clearImmediate",
        "queueMicrotask",
        "hrtime",
        "performance",
      ],
    });
    const t = await startRelay({ RELAY_CACHE_TTL_HOURS: "1" });
    try {
      await t.post(BUY_PATH, buyBody());
      jest.setSystemTime(Date.now() + 59 * 60_000);
      expect((await t.post(BUY_PATH, buyBody())).json.relay.cached).toBe(true);
      jest.setSystemTime(Date.now() + 60_000);
      expect((await t.post(BUY_PATH, buyBody())).json.relay.cached).toBe(false);
      expect(t.sandboxStats().arrivals).toBe(2);
    } finally {
      await t.close();
      jest.useRealTimers();
    }
  });
});

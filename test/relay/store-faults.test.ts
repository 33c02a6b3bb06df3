import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";
import { wrapMethod } from "../support/wrap-store";

/**
 * A store that fails some writes: the relay's own store being away for a moment (a full disk; with
 * replicas, Redis or Postgres) while a paid answer comes back. The answer is never bought twice and
 * the ledger ends up saying what the call cost.
 */
class FlakyStore extends SqliteStore {
  failCache = false;
  failAnalyses = false;
  failFinishes = 0;
  /** Called with each ledger end the store took. */
  onFinished: ((id: string) => void) | undefined;

  constructor(file: string) {
    super(file);
    wrapMethod(this.cache, "put", (put) => async (entry) => {
      if (this.failCache) throw new Error("cache write failed");
      return put(entry);
    });
    wrapMethod(this.analyses, "put", (put) => async (analysis) => {
      if (this.failAnalyses) throw new Error("analysis write failed");
      return put(analysis);
    });
    wrapMethod(this.ledger, "finishCall", (finishCall) => async (id, end) => {
      if (this.failFinishes > 0) {
        this.failFinishes--;
        throw new Error("ledger write failed");
      }
      await finishCall(id, end);
      this.onFinished?.(id);
    });
  }
}

describe("writes the store could not take while a paid answer came back", () => {
  let t: TestRelay;
  let store: FlakyStore;
  beforeEach(async () => {
    store = new FlakyStore(":memory:");
    t = await startRelay({}, { store, heartbeatMs: 100 });
  });
  afterEach(() => t.close());

  test("an answer the cache could not keep is given back from the ledger's analysis, not bought again", async () => {
    store.failCache = true;
    const first = await t.post(BUY_PATH, buyBody(1));
    expect(first.status).toBe(200);
    expect(first.json.relay.costUSD).toBe(0.2);
    store.failCache = false;
    const again = await t.post(BUY_PATH, buyBody(1));
    expect(again.status).toBe(200);
    expect(again.json.relay).toMatchObject({ cached: true, costUSD: 0 });
    expect(again.json.data._id).toBe(first.json.data._id);
    expect(again.json.data.yearOneCashFlowUSD).toBe(first.json.data.yearOneCashFlowUSD);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, reports: 1, duplicates: 0 });
    // And it is in the cache again: a third ask reads it from there.
    const key = (await store.ledger.rows())[0]?.cacheKey ?? "";
    expect((await store.cache.get(key))?.analysisId).toBe(first.json.data._id);
  });

  test("an explicit refresh still buys a new answer", async () => {
    store.failCache = true;
    await t.post(BUY_PATH, buyBody(2));
    store.failCache = false;
    const refreshed = await t.post(BUY_PATH, buyBody(2), { "cache-control": "no-cache" });
    expect(refreshed.json.relay).toMatchObject({ cached: false, costUSD: 0.2 });
    expect(t.sandboxStats().reports).toBe(2);
  });

  test("the analysis store being away does not keep the answer out of the cache", async () => {
    store.failAnalyses = true;
    const first = await t.post(BUY_PATH, buyBody(3));
    expect(first.status).toBe(200);
    const again = await t.post(BUY_PATH, buyBody(3));
    expect(again.json.relay).toMatchObject({ cached: true, costUSD: 0 });
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("a ledger end the store could not take is written on a later heartbeat; usage then counts it", async () => {
    store.failFinishes = 1;
    const written = new Promise((resolve) => (store.onFinished = resolve));
    const first = await t.post(BUY_PATH, buyBody(4));
    expect(first.status).toBe(200);
    expect((await store.ledger.rows()).map((r) => r.state)).toEqual(["pending"]);
    await written;
    expect((await store.ledger.rows()).map((r) => [r.state, r.cents])).toEqual([["billed", 20]]);
    const usage = await t.get("/v1/usage");
    expect(usage.json.today).toMatchObject({ costUSD: 0.2, unknownUSD: 0 });
  });
});

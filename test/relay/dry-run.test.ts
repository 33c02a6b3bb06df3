import path from "node:path";
import { sqliteDriver } from "../../src/relay/store/sqlite/sqlite-driver";
import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

// The driver this Node runs (better-sqlite3 13, or 12 on Node 20).
const Database = sqliteDriver();

/**
 * The dry run goes through the gateway's own plan: what it prices is what the ledger then records,
 * to the cent, for a mix of cached, new, AI, duplicate and invalid items, and for an answer the cache
 * lost that the ledger still gives back free.
 */
describe("a batch's dry run equals what running it bills", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
  });
  afterAll(() => t.close());

  const ledgerCents = async () => (await t.relay.store.ledger.rows()).reduce((sum, row) => sum + row.cents, 0);

  test("cached, new, AI, duplicate and invalid items: estimate == billed, to the cent", async () => {
    await t.post(BUY_PATH, buyBody(100));
    const before = await ledgerCents();
    const items = [
      { strategy: "buy", params: buyBody(100) }, // cached
      { strategy: "buy", params: buyBody(101) }, // new: 0.20
      { strategy: "buy", params: { ...buyBody(102), addAIComps: true, addAIExpenseEstimates: true } }, // new with two AI steps: 0.40
      { strategy: "buy", params: buyBody(101) }, // duplicate of the second
      { strategy: "buy", params: { bedrooms: 2 } }, // invalid
      {
        strategy: "arb",
        params: {
          fullAddress: "9 Lake Rd, Asheville NC",
          monthlyRentUSD: 2500,
          bedrooms: 2,
          bathrooms: 1,
          accomodates: 4,
        },
      }, // new: 0.20
    ];
    const dry = await t.post("/v1/batch", { items, dryRun: true });
    expect(dry.json.verdicts).toEqual(["cached", "create", "create", "duplicate", "invalid", "create"]);
    await t.post("/v1/batch", { items });
    const billed = (await ledgerCents()) - before;
    expect(billed).toBeGreaterThan(0);
    expect(Math.round(dry.json.estimatedCostUSD * 100)).toBe(billed);
    expect(t.sandboxStats().billedCents).toBe(await ledgerCents());
  });

  test("an answer the cache lost but the ledger names is priced free, and given back free", async () => {
    const first = await t.post(BUY_PATH, buyBody(110));
    expect(first.status).toBe(200);
    // The cache loses the entry (a failed write, a flushed Redis); the ledger and the stored analysis keep it.
    const db = new Database(path.join(t.dataDir, "relay.sqlite"));
    db.prepare("DELETE FROM cache_v2").run();
    db.close();
    const dry = await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(110) }], dryRun: true });
    expect(dry.json).toMatchObject({ verdicts: ["cached"], estimatedCostUSD: 0 });
    const arrivals = t.sandboxStats().arrivals;
    const again = await t.post(BUY_PATH, buyBody(110));
    expect(again.json.relay).toMatchObject({ cached: true, costUSD: 0 });
    expect(again.json.data._id).toBe(first.json.data._id);
    expect(t.sandboxStats().arrivals).toBe(arrivals);
  });
});

describe("GET /v1/analyses/:id answers through the same code as an analysis", () => {
  test("the stored answer has the same relay fields as the cached one (bar the cost of the first)", async () => {
    const t = await startRelay();
    try {
      const created = await t.post(BUY_PATH, buyBody(120));
      const cached = await t.post(BUY_PATH, buyBody(120));
      const stored = await t.get(`/v1/analyses/${created.json.data._id}`);
      expect(stored.status).toBe(200);
      expect(Object.keys(stored.json.relay).sort()).toEqual(Object.keys(cached.json.relay).sort());
      expect(stored.json.relay).toMatchObject({ cached: true, costUSD: 0, sandbox: true, operation: "buy" });
      expect(stored.json.data).toEqual(created.json.data);
    } finally {
      await t.close();
    }
  });
});

import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * A refresh with `freshSince` buys again only an answer fetched before it (the pane's "older than N
 * days"); the dry run prices it the same way, so what it says is what running it bills.
 */
describe("a refresh with freshSince, dry run and run", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
  });
  afterAll(() => t.close());

  const ledgerCents = async () => (await t.relay.store.ledger.rows()).reduce((sum, row) => sum + row.cents, 0);

  test("an answer fetched since the cutoff is kept, free; an older or missing one is bought; the dry run says which", async () => {
    await t.post(BUY_PATH, buyBody(500));
    const between = new Date(Date.now() + 5).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await t.post(BUY_PATH, buyBody(501));
    const items = [
      { strategy: "buy", params: buyBody(500), refresh: true, freshSince: between }, // fetched before: bought again
      { strategy: "buy", params: buyBody(501), refresh: true, freshSince: between }, // fetched since: kept
      { strategy: "buy", params: buyBody(502), refresh: true, freshSince: between }, // never fetched: bought
    ];
    const dry = await t.post("/v1/batch", { items, dryRun: true });
    expect(dry.json).toMatchObject({ verdicts: ["create", "cached", "create"], estimatedCostUSD: 0.4 });

    const before = await ledgerCents();
    const run = await t.post("/v1/batch", { items });
    expect(run.status).toBe(200);
    const lines = run.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { index: number; body: { relay: { cached: boolean; costUSD: number } } });
    lines.sort((a, b) => a.index - b.index);
    expect(lines.map((l) => [l.body.relay.cached, l.body.relay.costUSD])).toEqual([
      [false, 0.2],
      [true, 0],
      [false, 0.2],
    ]);
    expect((await ledgerCents()) - before).toBe(40);
  });
});

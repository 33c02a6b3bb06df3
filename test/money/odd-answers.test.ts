import { BUY_PATH, TestRelay, startRelay } from "../support/relay";
import { AnswerWay, BILLING_KEY, BillingService, addressFor, startBillingService } from "../support/billing-service";

/*
 * Odd answers and the bill: a stand-in that bills each report as it takes it answers in each odd
 * way the live service (or something in front of it) might, and each request is asked twice, as a
 * recalculation would. What the service billed, what the relay's ledger holds and what the caller
 * was told come out the same, to the cent; a billed answer the relay cannot use is kept as the
 * request's outcome and not bought again; a proxy's page and success: false are not billed.
 */

const buy = (way: AnswerWay, n = 0) => ({
  fullAddress: addressFor(way, n),
  purchasePriceUSD: 450_000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
});

/** What an answer told its caller it cost, in cents: an analysis its costUSD, an error its `billing`. */
function toldCents(answer: { status: number; json: any }, reportCents = 20): number {
  if (answer.status === 200) return Math.round(answer.json.relay.costUSD * 100);
  return answer.json.error?.billing === "billed" ? reportCents : 0;
}

describe("odd answers: bill = ledger = told, and no billed answer bought twice", () => {
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

  test("every odd answer, asked twice", async () => {
    const ways: AnswerWay[] = [
      "plain",
      "nan",
      "bom",
      "gzip",
      "deflate",
      "br",
      "truncated",
      "nodata",
      "html",
      "failure",
    ];
    let told = 0;
    const first: Record<string, { status: number; json: any }> = {};
    const second: Record<string, { status: number; json: any }> = {};
    for (const way of ways) {
      first[way] = await t.post(BUY_PATH, buy(way));
      second[way] = await t.post(BUY_PATH, buy(way));
      told += toldCents(first[way]!) + toldCents(second[way]!);
    }
    // Read, not refused: compressed, with a byte-order mark, with NaN and -Infinity as blanks.
    for (const way of ["plain", "nan", "bom", "gzip", "deflate", "br"]) {
      expect([way, first[way]!.status]).toEqual([way, 200]);
      expect(first[way]!.json.data._id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect([way, second[way]!.json.relay.cached]).toEqual([way, true]);
    }
    expect(first.nan!.json.data.yearOneCashFlowUSD ?? null).toBeNull();
    // Billed and unusable: told billed once, then answered from the ledger, nothing sent.
    for (const way of ["truncated", "nodata"]) {
      expect([way, first[way]!.json.error.code, first[way]!.json.error.billing]).toEqual([
        way,
        "STR_UPSTREAM_UNUSABLE",
        "billed",
      ]);
      expect([way, second[way]!.json.error.code, second[way]!.json.error.billing]).toEqual([
        way,
        "STR_UPSTREAM_UNUSABLE",
        "not-billed",
      ]);
      expect([way, service.arrivals(way as AnswerWay)]).toEqual([way, 1]);
    }
    // Not the service's answer, or its own word that it failed: not billed, and free to try again.
    for (const way of ["html", "failure"]) {
      expect([way, first[way]!.json.error.code, first[way]!.json.error.billing]).toEqual([
        way,
        "STR_UPSTREAM_FAILED",
        "not-billed",
      ]);
      expect([way, service.arrivals(way as AnswerWay)]).toEqual([way, 2]);
    }

    const usage = (await t.get("/v1/usage")).json;
    const ledger = await t.relay.store.ledger.rows();
    const ledgerCents = ledger.filter((r) => r.state === "billed").reduce((sum, r) => sum + r.cents, 0);
    // Eight reports billed: plain, nan, bom, gzip, deflate, br, truncated, nodata.
    expect(service.creates()).toBe(8);
    expect(service.billedCents()).toBe(160);
    expect(ledgerCents).toBe(160);
    expect(Math.round(usage.today.costUSD * 100)).toBe(160);
    expect(usage.today.unknownUSD).toBe(0);
    expect(told).toBe(160);
    // The ledger keeps a sample of each unusable answer, for support.
    const kept = ledger.filter((r) => r.errorCode?.startsWith("STR_UPSTREAM_UNUSABLE"));
    expect(kept.map((r) => r.errorCode)).toEqual([
      expect.stringMatching(/^STR_UPSTREAM_UNUSABLE \{"success":true,"data":\{/),
      'STR_UPSTREAM_UNUSABLE {"success":true}',
    ]);
  }, 60_000);

  test("an unusable answer is bought again only on an explicit refresh, and the dry run holds it back", async () => {
    const body = buy("nodata", 1);
    expect((await t.post(BUY_PATH, body)).json.error.billing).toBe("billed");
    const dry = await t.post("/v1/batch", { dryRun: true, items: [{ strategy: "buy", params: body }] });
    expect(dry.json).toMatchObject({
      toCreate: 0,
      unknownOutcome: 1,
      estimatedCostUSD: 0,
      verdicts: ["unknown-outcome"],
    });
    expect(service.creates("nodata")).toBe(2);
    const refreshed = await t.post(BUY_PATH, body, { "cache-control": "no-cache" });
    expect([refreshed.json.error.code, refreshed.json.error.billing]).toEqual(["STR_UPSTREAM_UNUSABLE", "billed"]);
    expect(service.creates("nodata")).toBe(3);
    const refreshDry = await t.post("/v1/batch", {
      dryRun: true,
      items: [{ strategy: "buy", params: body, refresh: true }],
    });
    expect(refreshDry.json).toMatchObject({ toCreate: 1, estimatedCostUSD: 0.2 });
  }, 60_000);
});

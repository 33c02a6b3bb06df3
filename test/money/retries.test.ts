import { BUY_PATH, TestRelay, startRelay } from "../support/relay";
import { AnswerWay, BILLING_KEY, BillingService, addressFor, startBillingService } from "../support/billing-service";

/*
 * Retries with a floor and an end, counted at a stand-in that bills each report as it takes it.
 * A service answering 429 with "Retry-After: 0" to every attempt is asked a handful of times in a
 * call's time limit (1 s, 2 s, 4 s … between attempts), not as fast as the loopback allows; an
 * answer trickled a byte at a time ends at the attempt's limit, as unknown (it was billed), and is
 * not sent again. Counts, never timings, are asserted, with wide margins.
 */

const buy = (way: AnswerWay, n = 0) => ({
  fullAddress: addressFor(way, n),
  purchasePriceUSD: 450_000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
});

describe("retries with a floor and an end", () => {
  let service: BillingService;
  let t: TestRelay;

  beforeAll(async () => {
    service = await startBillingService();
    t = await startRelay({
      STR_API_KEY: BILLING_KEY,
      STR_API_BASE_URL: service.url,
      RELAY_UPSTREAM_TIMEOUT_SECONDS: "6",
    });
  });
  afterAll(async () => {
    await t.close();
    await service.close();
  });

  test("Retry-After: 0 on every attempt: a handful of attempts in the call's limit, nothing billed", async () => {
    const answer = await t.post(BUY_PATH, buy("zerowait"));
    expect([answer.json.error.code, answer.json.error.billing]).toEqual(["STR_UPSTREAM_THROTTLED", "not-billed"]);
    // Waits of 1, 2 and 4 s fit in 6 s: four attempts at most (before: one every few ms, hundreds).
    expect(service.arrivals("zerowait")).toBeGreaterThanOrEqual(2);
    expect(service.arrivals("zerowait")).toBeLessThanOrEqual(4);
    expect(service.creates()).toBe(0);
    const usage = (await t.get("/v1/usage")).json;
    expect([usage.today.costUSD, usage.today.unknownUSD]).toEqual([0, 0]);
  }, 60_000);

  test("an answer trickled past the limit ends as unknown, told so, and is not bought again", async () => {
    const started = Date.now();
    const answer = await t.post(BUY_PATH, buy("trickle"));
    // The stand-in would take minutes to finish its answer; the attempt ends at its 6-s limit.
    expect(Date.now() - started).toBeLessThan(40_000);
    expect([answer.json.error.code, answer.json.error.billing]).toEqual(["STR_UPSTREAM_TIMEOUT", "unknown"]);
    const again = await t.post(BUY_PATH, buy("trickle"));
    expect(again.json.error.code).toBe("STR_OUTCOME_UNKNOWN");
    // Billed once at the service; held once, as unknown, in the ledger and in usage.
    expect(service.creates("trickle")).toBe(1);
    expect(service.arrivals("trickle")).toBe(1);
    const usage = (await t.get("/v1/usage")).json;
    expect(Math.round(usage.today.unknownUSD * 100)).toBe(service.billedCents());
    const ledger = await t.relay.store.ledger.rows();
    expect(ledger.filter((r) => r.state === "unknown").map((r) => r.maxCents)).toEqual([20]);
  }, 90_000);
});

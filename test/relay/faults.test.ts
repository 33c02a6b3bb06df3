import net from "node:net";
import { buildSandbox } from "../../src/sandbox/sandbox-server";
import { analysisOf } from "../../src/sheet";
import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";

const quickRetries = { retryPolicy: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } };

describe("upstream faults: every call ends in a result or a clear error, and nothing is billed twice", () => {
  let t: TestRelay;
  afterEach(() => t.close());

  test("503s are retried (a 503 is not billed) and the call succeeds once the service is back", async () => {
    t = await startRelay({}, { retryPolicy: { maxAttempts: 100, baseDelayMs: 5, maxDelayMs: 10 } });
    const sandbox = t.relay.sandbox!;
    sandbox.setFaults({ unavailableRate: 1 });
    const pending = t.post(BUY_PATH, buyBody());
    while ((sandbox.state.statuses.get(503) ?? 0) < 2) await new Promise((r) => setTimeout(r, 1));
    sandbox.setFaults({ unavailableRate: 0 });
    const r = await pending;
    expect(r.status).toBe(200);
    expect(t.sandboxStats()).toMatchObject({ reports: 1, billedCents: 20 });
    expect(sandbox.state.statuses.get(503)).toBeGreaterThanOrEqual(2);
  });

  test("a 503 that persists ends in 502 STR_UPSTREAM_FAILED, recorded failed and free", async () => {
    t = await startRelay({}, quickRetries);
    t.relay.sandbox?.setFaults({ unavailableRate: 1 });
    const r = await t.post(BUY_PATH, buyBody());
    expect(r.status).toBe(502);
    expect(r.json.error.code).toBe("STR_UPSTREAM_FAILED");
    expect(t.relay.sandbox?.state.statuses.get(503)).toBe(4);
    expect((await t.relay.store.ledger.rows()).map((row) => [row.state, row.cents])).toEqual([["failed", 0]]);
  });

  test("a connection dropped after the request was sent is unknown: 502, never resent, 409 until an explicit refresh", async () => {
    t = await startRelay({}, quickRetries);
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 1 });
    const r = await t.post(BUY_PATH, buyBody());
    expect(r.status).toBe(502);
    expect(r.json.error.message).toMatch(/may have processed/);
    // The sandbox did create and bill it; the relay sent it once and says the outcome is unknown.
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, reports: 1, billedCents: 20 });
    const usage = await t.get("/v1/usage");
    expect(usage.json.today).toMatchObject({ costUSD: 0, unknownUSD: 0.2 });
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 0 });
    const again = await t.post(BUY_PATH, buyBody());
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("STR_OUTCOME_UNKNOWN");
    expect(t.sandboxStats().arrivals).toBe(1);
    const refreshed = await t.post(BUY_PATH, buyBody(), { "cache-control": "no-cache" });
    expect(refreshed.status).toBe(200);
    expect(t.sandboxStats()).toMatchObject({ arrivals: 2, billedCents: 40 });
    // The ledger's billed plus unknown covers what the service billed.
    const ledger = await t.relay.store.ledger.rows();
    const billed = ledger.reduce((s, row) => s + row.cents, 0);
    const unknown = ledger.filter((row) => row.state === "unknown").reduce((s, row) => s + row.maxCents, 0);
    expect(billed).toBeLessThanOrEqual(40);
    expect(billed + unknown).toBeGreaterThanOrEqual(40);
  });

  test("no answer in time after sending is a 504, unknown, and not resent", async () => {
    t = await startRelay({ RELAY_UPSTREAM_TIMEOUT_SECONDS: "1" }, quickRetries);
    t.relay.sandbox?.setFaults({ extraLatencyMs: 1500 });
    const r = await t.post(BUY_PATH, buyBody());
    expect(r.status).toBe(504);
    expect(r.json.error.code).toBe("STR_UPSTREAM_TIMEOUT");
    // The service finishes the call the relay stopped waiting for: billed, and never sent again.
    while (t.sandboxStats().reports === 0) await new Promise((done) => setTimeout(done, 10));
    expect(t.sandboxStats()).toMatchObject({ arrivals: 1, reports: 1 });
    expect((await t.relay.store.ledger.rows())[0]).toMatchObject({ state: "unknown", maxCents: 20 });
  });

  test("drifted answers are repaired: percentiles derived from quartiles, comparables renamed, notes say so", async () => {
    t = await startRelay();
    t.relay.sandbox?.setFaults({ driftRate: 1 });
    const r = await t.post(BUY_PATH, buyBody());
    expect(r.status).toBe(200);
    const { data } = r.json;
    expect(data.revenue.p50).toEqual(data.quartiles["50th_percentile"].revenue);
    expect(data.occupancy.p50).toBeCloseTo(data.quartiles["50th_percentile"].occupancy_rate / 100, 6);
    expect(data.occupancyRatePercentage).toBeGreaterThan(1);
    expect(data.comparables[0].platformId).toEqual(data.comparables[0].airbnbId);
    expect(data.comparables[0].distanceMiles).toBeGreaterThan(0);
    expect(data.county).toBe("Simulated County");
    expect(r.json.relay.normalized.join(" ")).toMatch(/revenue was missing/);
    // The add-in normalises what it reads; the relay's repaired data reads the same.
    expect(analysisOf(r.json)).toEqual(r.json.data);
  });

  test("a text error body from the service becomes the relay's JSON error shape, without the key", async () => {
    // A live-mode relay whose key the service refuses, with the service answering errors as plain text.
    const sandbox = buildSandbox({ timeScale: 0, apiKeys: ["sk_the_right_key_123"], faults: { textErrors: true } });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (sandbox.app.server.address() as { port: number }).port;
    t = await startRelay({ STR_API_KEY: "sk_a_wrong_key_456", STR_API_BASE_URL: `http://127.0.0.1:${port}` });
    try {
      const r = await t.post(BUY_PATH, buyBody());
      expect(r.status).toBe(502);
      expect(r.json).toMatchObject({ success: false, error: { code: "STR_UPSTREAM_AUTH" } });
      expect(r.text).not.toContain("sk_a_wrong_key_456");
      expect((await t.relay.store.ledger.rows())[0]).toMatchObject({ state: "free", status: 401 });
    } finally {
      await sandbox.app.close();
    }
  });

  test("a service that refuses connections is retried, then answered 502 and recorded failed (never sent, free)", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    t = await startRelay(
      { STR_API_KEY: "sk_live_key_123456", STR_API_BASE_URL: `http://127.0.0.1:${port}` },
      quickRetries,
    );
    const r = await t.post(BUY_PATH, buyBody());
    expect(r.status).toBe(502);
    expect(r.json.error).toMatchObject({ code: "STR_UPSTREAM_FAILED" });
    expect(r.json.error.message).toMatch(/Nothing was billed/);
    expect((await t.relay.store.ledger.rows()).map((row) => row.state)).toEqual(["failed"]);
    expect(await t.relay.metrics.read(t.relay.metrics.upstreamCalls, { status: "UPSTREAM_CONNECT" })).toBe(4);
  });
});

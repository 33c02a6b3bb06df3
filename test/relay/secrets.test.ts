import { buildSandbox } from "../../src/sandbox/server";
import { BUY_PATH, ENHANCE_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

const KEY = "sk_live_SECRET_key_0123456789";

describe("the service's key and the relay tokens never leave the relay", () => {
  let t: TestRelay;
  let sandbox: ReturnType<typeof buildSandbox>;
  const seen: string[] = [];

  beforeAll(async () => {
    sandbox = buildSandbox({ timeScale: 0, apiKeys: [KEY], faults: { aiFailureRate: 0, aiTimeoutRate: 0 } });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (sandbox.app.server.address() as { port: number }).port;
    t = await startRelay({ STR_API_KEY: KEY, STR_API_BASE_URL: `http://127.0.0.1:${port}`, RELAY_LOG_LEVEL: "trace" }, { retryPolicy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const record = (r: { text: string; headers: Record<string, unknown> }) => seen.push(r.text, JSON.stringify(r.headers));
    record(await t.post(BUY_PATH, buyBody()));
    record(await t.post(BUY_PATH, { ...buyBody(), interestRatePercentage: 99 }));
    record(await t.post(ENHANCE_PATH, { analysisId: "0123456789abcdef01234567", addAIComps: true }));
    record(await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(1) }] }));
    record(await t.get("/v1/usage"));
    record(await t.get("/metrics"));
    record(await t.get(`/v1/usage?token=${TEST_TOKEN}`));
    record(await t.relay.app.inject({ method: "GET", url: "/healthz" }).then((r) => ({ text: r.body, headers: r.headers })));
    // A failure with the service unreachable, so its error text passes through the relay.
    await sandbox.app.close();
    record(await t.post(BUY_PATH, buyBody(2)));
  });
  afterAll(() => t.close());

  test("the live mode reached the service with the key", () => {
    expect(sandbox.state.totals().reports).toBeGreaterThanOrEqual(2);
  });

  test("no response body or header contains the key or a token", () => {
    const all = seen.join("\n");
    expect(all.length).toBeGreaterThan(1000);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(TEST_TOKEN);
  });

  test("no log line contains the key or a token, even at trace level and for a token sent in the URL", () => {
    const logs = t.logs.join("");
    expect(t.logs.length).toBeGreaterThan(5);
    expect(logs).not.toContain(KEY);
    expect(logs).not.toContain(TEST_TOKEN);
  });
});

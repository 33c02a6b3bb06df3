import { RelaySettings, SettingsStorage } from "../../src/client";
import { SettingsDeps, testConnection } from "../../taskpane/settings";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/** Settings' Test connection against the real relay on its sandbox, over loopback. */
describe("the Settings tab's connection test", () => {
  const COLLEAGUE = "rt_colleague_0123456789ab";
  let t: TestRelay;
  let relayUrl: string;

  const storage = (): SettingsStorage => {
    const data = new Map<string, string>();
    return {
      getItem: async (k) => data.get(k) ?? null,
      setItem: async (k, v) => void data.set(k, v),
      removeItem: async (k) => void data.delete(k),
    };
  };
  const deps = (): SettingsDeps => ({
    connection: {
      settings: async () => ({ relayUrl, hasToken: false }),
      update: async (s: RelaySettings) => s,
    },
    storage: storage(),
    pageOrigin: undefined,
  });

  beforeAll(async () => {
    t = await startRelay({
      RELAY_TOKENS: `analyst:${TEST_TOKEN},colleague:${COLLEAGUE}`,
      RELAY_TOKEN_BUDGETS_USD_PER_DAY: "analyst:20",
    });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const address = t.relay.app.server.address();
    relayUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    // The analyst has spent something today: both budgets show it.
    expect((await t.post("/v1/external/analysis/create/buy", buyBody(1))).status).toBe(200);
  });
  afterAll(() => t.close());

  test("a token with its own budget: the relay's budget and the token's, each with what is left today", async () => {
    const report = await testConnection(deps(), { relayUrl, token: TEST_TOKEN });
    const billed = report.todayUSD;
    expect(billed).toBeGreaterThan(0);
    expect(report).toMatchObject({ mode: "sandbox", budgetUSD: 1000, remainingUSD: 1000 - billed });
    expect(report.own).toEqual({ budgetUSD: 20, remainingUSD: 20 - billed });
  });

  test("a token without one: only the relay's budget", async () => {
    const report = await testConnection(deps(), { relayUrl, token: COLLEAGUE });
    expect(report.budgetUSD).toBe(1000);
    expect(report.own).toBeUndefined();
  });
});

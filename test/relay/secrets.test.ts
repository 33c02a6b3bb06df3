import fs from "node:fs";
import path from "node:path";
import { buildSandbox } from "../../src/sandbox/sandbox-server";
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
    t = await startRelay(
      { STR_API_KEY: KEY, STR_API_BASE_URL: `http://127.0.0.1:${port}`, RELAY_LOG_LEVEL: "trace" },
      { retryPolicy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    const record = (r: { text: string; headers: Record<string, unknown> }) =>
      seen.push(r.text, JSON.stringify(r.headers));
    record(await t.post(BUY_PATH, buyBody()));
    record(await t.post(BUY_PATH, { ...buyBody(), interestRatePercentage: 99 }));
    record(await t.post(ENHANCE_PATH, { analysisId: "0123456789abcdef01234567", addAIComps: true }));
    record(await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(1) }] }));
    record(await t.get("/v1/usage"));
    record(await t.get("/metrics"));
    record(await t.get(`/v1/usage?token=${TEST_TOKEN}`));
    record(
      await t.relay.app.inject({ method: "GET", url: "/healthz" }).then((r) => ({ text: r.body, headers: r.headers })),
    );
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

describe("an upstream answer that echoes the key, in any form, is redacted before it is kept or passed on", () => {
  const forms = [
    KEY,
    KEY.toUpperCase(),
    KEY.toLowerCase(),
    encodeURIComponent(KEY).replace(/_/g, "%5F"),
    [...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(""),
    Buffer.from(KEY).toString("base64"),
    Buffer.from(`x${KEY}`).toString("base64"),
    Buffer.from(`xy${KEY}`).toString("base64url"),
    Buffer.from(`Authorization: ${KEY}`).toString("base64"),
  ];
  /** A form's own text, and its base64 core (what stays of it inside longer encoded text). */
  const traces = (text: string) =>
    forms.some((f) => text.includes(f) || text.toLowerCase().includes(KEY.toLowerCase()));
  let t: TestRelay;
  let sandbox: ReturnType<typeof buildSandbox>;
  beforeAll(async () => {
    sandbox = buildSandbox({ timeScale: 0, apiKeys: [KEY], faults: { aiFailureRate: 0, aiTimeoutRate: 0 } });
    // The service quoting the key back: in a success's warnings and data, and in an error's text.
    sandbox.app.addHook("onSend", async (request, reply, payload) => {
      const body = request.body as { fullAddress?: string } | undefined;
      if (body?.fullAddress?.includes("Error Echo")) {
        reply.code(400).header("content-type", "text/plain");
        return `bad request for key ${forms.join(" / ")}`;
      }
      if (typeof payload !== "string" || !payload.startsWith("{")) return payload;
      const answer = JSON.parse(payload) as { data?: Record<string, unknown>; warnings?: unknown[] };
      if (!answer.data) return payload;
      answer.warnings = [...(answer.warnings ?? []), ...forms.map((f) => `debug: ${f}`)];
      answer.data.debugEcho = forms.join(" ");
      return JSON.stringify(answer);
    });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (sandbox.app.server.address() as { port: number }).port;
    t = await startRelay({ STR_API_KEY: KEY, STR_API_BASE_URL: `http://127.0.0.1:${port}`, RELAY_LOG_LEVEL: "trace" });
  });
  afterAll(async () => {
    await t.close();
    await sandbox.app.close();
  });

  test("a 200 answer: the caller, the cache (a second call), the stored analysis and the store's files hold none", async () => {
    const first = await t.post(BUY_PATH, buyBody(40));
    expect(first.status).toBe(200);
    expect(first.text).toContain("debug: [redacted]");
    expect(traces(first.text)).toBe(false);
    const again = await t.post(BUY_PATH, buyBody(40));
    expect(again.json.relay.cached).toBe(true);
    expect(traces(again.text)).toBe(false);
    const stored = await t.get(`/v1/analyses/${first.json.data._id}`);
    expect(stored.status).toBe(200);
    expect(traces(stored.text)).toBe(false);
    const files = fs.readdirSync(t.dataDir).filter((f) => f.startsWith("relay.sqlite"));
    const bytes = files.map((f) => fs.readFileSync(path.join(t.dataDir, f)).toString("latin1")).join("");
    expect(bytes).toContain("[redacted]");
    expect(traces(bytes)).toBe(false);
  });

  test("an error answer: the caller and the logs hold none", async () => {
    const r = await t.post(BUY_PATH, { ...buyBody(41), fullAddress: "1 Error Echo St, Austin TX" });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("STR_UPSTREAM_REJECTED");
    expect(traces(r.text)).toBe(false);
    expect(traces(t.logs.join(""))).toBe(false);
  });
});

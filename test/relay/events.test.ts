import { buildSandbox } from "../../src/sandbox/sandbox-server";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * The relay's log as an operator reads it: a real relay on its real sandbox, its pino stream
 * captured, each event found by its name and STR_* code — and never a token or the key in any line.
 */
type Line = Record<string, unknown> & { event: string };

const lines = (t: TestRelay): Line[] =>
  t.logs
    .join("")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);
const events = (t: TestRelay, event: string) => lines(t).filter((l) => l.event === event);

/** Every line is JSON with an event name, and none holds the token or a key. */
function expectClean(t: TestRelay, keys: string[]): void {
  const text = t.logs.join("");
  expect(lines(t).every((l) => typeof l.event === "string" && l.event.length > 0)).toBe(true);
  for (const secret of [TEST_TOKEN, ...keys]) expect(text).not.toContain(secret);
}
const sandboxKey = (t: TestRelay) => t.relay.sandbox?.options.apiKeys[0] ?? "";

describe("the relay's log tells what it billed, refused and retried", () => {
  let t: TestRelay;
  afterEach(() => t.close());

  test("a billed create is one call.billed line; the same request again is analysis.cached, not billed", async () => {
    t = await startRelay({ RELAY_LOG_LEVEL: "debug" });
    const first = await t.post(BUY_PATH, buyBody());
    expect(first.status).toBe(200);
    expect(events(t, "call.billed")).toEqual([
      expect.objectContaining({
        level: 30,
        operation: "buy",
        caller: t.relay.callers.idOf(TEST_TOKEN),
        costUSD: 0.2,
        cached: false,
        analysisId: first.json.data._id,
        status: 200,
      }),
    ]);
    const again = await t.post(BUY_PATH, buyBody());
    expect(again.json.relay.cached).toBe(true);
    expect(events(t, "call.billed")).toHaveLength(1);
    expect(events(t, "analysis.cached")).toEqual([
      expect.objectContaining({ operation: "buy", caller: t.relay.callers.idOf(TEST_TOKEN), costUSD: 0, cached: true }),
    ]);
    // One access line a request, by route pattern, with the caller's id and the request id.
    expect(events(t, "http.request")).toEqual([
      expect.objectContaining({
        route: BUY_PATH,
        status: 200,
        caller: t.relay.callers.idOf(TEST_TOKEN),
        reqId: expect.any(String),
      }),
      expect.objectContaining({ route: BUY_PATH, status: 200, caller: t.relay.callers.idOf(TEST_TOKEN) }),
    ]);
    expectClean(t, [sandboxKey(t)]);
  });

  test("refusals name their reason and code: budget, validation, caller rate, unknown outcome", async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.3", RELAY_CALLER_RPS: "1" });
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
    expect((await t.post(BUY_PATH, buyBody(2))).status).toBe(402);
    expect((await t.post(BUY_PATH, { ...buyBody(3), bedrooms: "many" })).status).toBe(400);
    let limited = 0;
    for (let i = 0; i < 8 && limited === 0; i++) if ((await t.get("/v1/usage")).status === 429) limited++;
    expect(limited).toBe(1);
    const refused = events(t, "request.refused");
    expect(refused).toContainEqual(
      expect.objectContaining({
        level: 40,
        code: "STR_BUDGET_EXCEEDED",
        reason: "budget",
        caller: t.relay.callers.idOf(TEST_TOKEN),
      }),
    );
    expect(refused).toContainEqual(
      expect.objectContaining({
        code: "STR_VALIDATION",
        reason: "validation",
        caller: t.relay.callers.idOf(TEST_TOKEN),
        fields: ["bedrooms"],
      }),
    );
    expect(refused).toContainEqual(
      expect.objectContaining({
        code: "STR_CALLER_RATE_LIMITED",
        reason: "caller-rate",
        caller: t.relay.callers.idOf(TEST_TOKEN),
      }),
    );
    // The validation line says which field, never what was sent in it.
    expect(t.logs.join("")).not.toContain("many");
    expectClean(t, [sandboxKey(t)]);
  });

  test("a call whose outcome is unknown is call.outcome_unknown; asking again is refused (unknown-outcome)", async () => {
    t = await startRelay({}, { retryPolicy: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 } });
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 1 });
    expect((await t.post(BUY_PATH, buyBody())).status).toBe(502);
    expect(events(t, "call.outcome_unknown")).toEqual([
      expect.objectContaining({
        level: 50,
        code: "STR_UPSTREAM_FAILED",
        operation: "buy",
        caller: t.relay.callers.idOf(TEST_TOKEN),
        maxUSD: 0.2,
        billing: "unknown",
      }),
    ]);
    t.relay.sandbox?.setFaults({ dropAfterProcessRate: 0 });
    expect((await t.post(BUY_PATH, buyBody())).status).toBe(409);
    expect(events(t, "request.refused")).toEqual([
      expect.objectContaining({ code: "STR_OUTCOME_UNKNOWN", reason: "unknown-outcome" }),
    ]);
    expect(events(t, "call.billed")).toEqual([]);
    expectClean(t, [sandboxKey(t)]);
  });

  test("each 429 from the service is upstream.throttled, each retry upstream.retry, then the call is billed once", async () => {
    t = await startRelay({}, { sandbox: { faults: { rateLimitPerSecond: 1, aiFailureRate: 0, aiTimeoutRate: 0 } } });
    const answers = await Promise.all([0, 1, 2].map((n) => t.post(BUY_PATH, buyBody(10 + n))));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const throttled = events(t, "upstream.throttled");
    expect(throttled.length).toBeGreaterThanOrEqual(2);
    expect(throttled[0]).toMatchObject({ code: "STR_UPSTREAM_THROTTLED", status: 429, operation: "buy", attempt: 1 });
    const retries = events(t, "upstream.retry");
    expect(retries.length).toBe(throttled.length);
    expect(retries[0]).toMatchObject({ operation: "buy", attempt: 2, after: "429", delayMs: expect.any(Number) });
    expect(events(t, "call.billed")).toHaveLength(3);
    expectClean(t, [sandboxKey(t)]);
  }, 20_000);

  test("a key the service refuses is upstream.auth_failed with STR_UPSTREAM_AUTH, never the key itself", async () => {
    const sandbox = buildSandbox({ timeScale: 0, apiKeys: ["sk_the_right_key_123"] });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (sandbox.app.server.address() as { port: number }).port;
    t = await startRelay({ STR_API_KEY: "sk_a_wrong_key_456", STR_API_BASE_URL: `http://127.0.0.1:${port}` });
    try {
      expect((await t.post(BUY_PATH, buyBody())).status).toBe(502);
      expect(events(t, "upstream.auth_failed")).toEqual([
        expect.objectContaining({ level: 50, code: "STR_UPSTREAM_AUTH", status: 401, operation: "buy" }),
      ]);
      expectClean(t, ["sk_a_wrong_key_456", "sk_the_right_key_123"]);
    } finally {
      await sandbox.app.close();
    }
  });

  test("a batch logs each refused item with its index and one batch.done summary", async () => {
    t = await startRelay({ RELAY_BUDGET_USD_PER_DAY: "0.3" });
    const r = await t.post("/v1/batch", {
      items: [
        { strategy: "buy", params: buyBody(20) },
        { strategy: "buy", params: { ...buyBody(21), bedrooms: -1 } },
        { strategy: "buy", params: buyBody(20) },
        { strategy: "nope", params: {} },
      ],
    });
    expect(r.status).toBe(200);
    const second = await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(22) }] });
    expect(second.text).toContain("STR_BUDGET_EXCEEDED");
    const summaries = events(t, "batch.done");
    expect(summaries).toHaveLength(2);
    // The two identical items share one call: one billed, the other shared at no cost.
    expect(summaries[0]).toMatchObject({
      caller: t.relay.callers.idOf(TEST_TOKEN),
      items: 4,
      byStatus: { "200": 2, "400": 2 },
      byCode: { OK: 2, STR_VALIDATION: 2 },
      billedUSD: 0.2,
      durationMs: expect.any(Number),
    });
    expect(summaries[1]).toMatchObject({
      items: 1,
      byStatus: { "402": 1 },
      byCode: { STR_BUDGET_EXCEEDED: 1 },
      billedUSD: 0,
    });
    const refused = events(t, "request.refused");
    expect(refused).toContainEqual(
      expect.objectContaining({
        code: "STR_VALIDATION",
        index: 1,
        operation: "buy",
        fields: ["items[1].params.bedrooms"],
      }),
    );
    expect(refused).toContainEqual(expect.objectContaining({ code: "STR_VALIDATION", index: 3 }));
    expect(refused).toContainEqual(
      expect.objectContaining({
        code: "STR_BUDGET_EXCEEDED",
        reason: "budget",
        index: 0,
        caller: t.relay.callers.idOf(TEST_TOKEN),
      }),
    );
    expect(events(t, "call.billed")).toHaveLength(1);
    expectClean(t, [sandboxKey(t)]);
  });
});

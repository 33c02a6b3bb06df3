import { tokenChecker } from "../../src/relay/callers/tokens";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

describe("only callers with a relay token get through", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay({ RELAY_ALLOWED_ORIGINS: "https://localhost:3000,https://addin.example.com" });
  });
  afterAll(() => t.close());

  test.each([
    ["no Authorization header", {}],
    ["a wrong token", { authorization: "Bearer not-the-token-at-all-1234" }],
    ["the token without the Bearer scheme", { authorization: TEST_TOKEN }],
    ["Basic auth", { authorization: `Basic ${Buffer.from(`user:${TEST_TOKEN}`).toString("base64")}` }],
  ])("%s → 401, nothing sent", async (_name, headers) => {
    const r = await t.relay.app.inject({
      method: "POST",
      url: BUY_PATH,
      payload: buyBody(),
      headers: { "content-type": "application/json", ...headers },
    });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ success: false, error: { code: "STR_UNAUTHORIZED" } });
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test("a token in the query string is refused even with a valid header", async () => {
    for (const url of [`/v1/usage?token=${TEST_TOKEN}`, `/v1/usage?x=${TEST_TOKEN}`, "/v1/usage?access_token=abc"]) {
      const r = await t.get(url);
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe("STR_TOKEN_IN_URL");
    }
  });

  test("every route but /healthz needs the token; /healthz says the mode", async () => {
    for (const url of ["/v1/usage", "/metrics", "/v1/analyses/abc"]) {
      expect((await t.relay.app.inject({ method: "GET", url })).statusCode).toBe(401);
    }
    const health = await t.relay.app.inject({ method: "GET", url: "/healthz" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ ok: true, mode: "sandbox" });
  });

  test("an allowed origin gets CORS headers and a preflight answer", async () => {
    const pre = await t.relay.app.inject({
      method: "OPTIONS",
      url: BUY_PATH,
      headers: { origin: "https://addin.example.com", "access-control-request-method": "POST" },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("https://addin.example.com");
    expect(String(pre.headers["access-control-allow-headers"])).toMatch(/authorization/);
    const r = await t.get("/v1/usage", { origin: "https://localhost:3000" });
    expect(r.status).toBe(200);
    expect(r.headers["access-control-allow-origin"]).toBe("https://localhost:3000");
  });

  test("a page is not the relay's own because it says so: Origin and Host of another name are refused", async () => {
    // Both headers are the caller's to choose (DNS rebinding); the relay's names come from its configuration.
    const r = await t.get("/v1/usage", { origin: "http://relay.internal:8787", host: "relay.internal:8787" });
    expect(r.status).toBe(421);
    const spoof = await t.get("/v1/usage", { origin: "http://relay.internal:8787", host: "localhost" });
    expect(spoof.status).toBe(403);
  });

  test("an unknown origin is refused with 403 even with a valid token", async () => {
    const r = await t.post(BUY_PATH, buyBody(), { origin: "https://evil.example.net" });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("STR_ORIGIN_NOT_ALLOWED");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test("answers carry security headers", async () => {
    const r = await t.get("/v1/usage");
    expect(r.headers).toMatchObject({
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    });
    expect(r.headers["x-request-id"]).toEqual(expect.any(String));
  });
});

describe("the token check", () => {
  test("accepts each configured token and nothing else, whatever the lengths", () => {
    const check = tokenChecker(["first-token-0123456789", "second-token-abcdefghij"]);
    expect(check("first-token-0123456789")).toBe(true);
    expect(check("second-token-abcdefghij")).toBe(true);
    expect(check("first-token-012345678")).toBe(false);
    expect(check("")).toBe(false);
    expect(check("x".repeat(10_000))).toBe(false);
  });
});

describe("a runaway caller is slowed down", () => {
  test("over RELAY_CALLER_RPS (bursts of 4×) → 429 with Retry-After, other callers unaffected", async () => {
    const t = await startRelay({ RELAY_CALLER_RPS: "2", RELAY_TOKENS: `${TEST_TOKEN},other-token-0123456789abc` });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await t.get("/v1/usage")).status);
      expect(statuses.slice(0, 8)).toEqual(Array(8).fill(200));
      expect(statuses.slice(8)).toEqual([429, 429]);
      const limited = await t.get("/v1/usage");
      expect(limited.json.error.code).toBe("STR_CALLER_RATE_LIMITED");
      expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect((await t.get("/v1/usage", { authorization: "Bearer other-token-0123456789abc" })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

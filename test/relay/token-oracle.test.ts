import { TEST_TOKEN, TestRelay, startRelay } from "../support/relay";

/**
 * Without a token, the answer to a URL must not tell whether a query value in it is a relay token:
 * 500 candidates, one of them the token, spelt as a value, a bare key, or encoded, all get the same
 * answer; short values, which no token can be, pass on as before.
 */
describe("the token-in-URL check is no guessing oracle", () => {
  let t: TestRelay;
  beforeAll(async () => {
    t = await startRelay();
  });
  afterAll(() => t.close());

  const answer = async (url: string) => {
    const r = await t.relay.app.inject({ method: "GET", url });
    return `${r.statusCode} ${JSON.parse(r.body).error?.code}`;
  };

  test("500 token-shaped candidates, the token among them, all get the same answer, on every kind of route", async () => {
    const candidates = Array.from({ length: 499 }, (_, i) => `test-token-${String(i).padStart(16, "0")}`);
    candidates.splice(250, 0, TEST_TOKEN);
    for (const route of ["/v1/usage", "/healthz", "/nope"]) {
      const seen = new Set<string>();
      for (const c of candidates) {
        seen.add(await answer(`${route}?x=${c}`));
        if (c === TEST_TOKEN || c === candidates[0]) {
          seen.add(await answer(`${route}?${c}`));
          seen.add(await answer(`${route}?x=${encodeURIComponent(c).replace(/-/g, "%2D")}`));
        }
      }
      expect([...seen]).toEqual(["401 STR_TOKEN_IN_URL"]);
    }
  });

  test("short query values are not refused for their shape", async () => {
    expect(await answer("/healthz?probe=1")).toBe("200 undefined");
    expect(await answer("/v1/usage?x=short")).toBe("401 STR_UNAUTHORIZED");
  });
});

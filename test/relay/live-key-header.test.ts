import http from "node:http";
import { AddressInfo } from "node:net";
import { API_KEY_HEADER, SPEC_API_KEY_HEADER } from "../../src/contract";
import { loadConfig } from "../../src/relay/config";
import { TEST_TOKEN, buyBody, startRelay } from "../support/relay";

/*
 * Going live with a key alone: the live service reads its key from `x-bnbcalc-api-key` and is at
 * https://atlas.bnbcalc.com (docs/service/observed-behaviour.md); the spec's `x-service-api-key` is
 * its placeholder. A stand-in that takes the key from one header only is the judge.
 */
const KEY = "sk_live_header_key_0123456789";

/** A service that answers 401 unless the key is in `header`, and counts what it billed. */
async function standIn(header: string): Promise<{ url: string; billed: () => number; close: () => Promise<void> }> {
  let billed = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.headers[header] !== KEY) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, error: `missing ${header}` }));
        return;
      }
      billed++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          success: true,
          data: { _id: `an_${"a".repeat(24)}${billed}`, url: "https://example.com/r/1", cashFlow: 1000 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    billed: () => billed,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("the live service's key header", () => {
  test("a key alone is live: the live service's base URL and header", () => {
    const c = loadConfig({ STR_API_KEY: KEY });
    expect(c).toMatchObject({ mode: "live", apiBaseUrl: "https://atlas.bnbcalc.com", apiKeyHeader: API_KEY_HEADER });
    expect(API_KEY_HEADER).toBe("x-bnbcalc-api-key");
    expect(loadConfig({ STR_API_KEY: KEY, STR_API_KEY_HEADER: "X-Service-API-Key" }).apiKeyHeader).toBe(
      SPEC_API_KEY_HEADER,
    );
  });

  test("STR_API_KEY_HEADER must be a header name the relay does not set itself, and needs the key", () => {
    expect(() => loadConfig({ STR_API_KEY: KEY, STR_API_KEY_HEADER: "x key" })).toThrow(
      /STR_API_KEY_HEADER must be an HTTP header name/,
    );
    expect(() => loadConfig({ STR_API_KEY: KEY, STR_API_KEY_HEADER: "Content-Type" })).toThrow(
      /STR_API_KEY_HEADER must not be a header the relay sets itself/,
    );
    expect(() => loadConfig({ STR_API_KEY_HEADER: "x-service-api-key" })).toThrow(
      /STR_API_KEY is required with STR_API_KEY_HEADER/,
    );
  });

  test.each([
    ["by default, to a service that reads x-bnbcalc-api-key only", API_KEY_HEADER, {}],
    [
      "with STR_API_KEY_HEADER=x-service-api-key, to a service that follows the spec's placeholder",
      SPEC_API_KEY_HEADER,
      { STR_API_KEY_HEADER: SPEC_API_KEY_HEADER },
    ],
  ])("the relay authenticates %s", async (_, header, extra) => {
    const service = await standIn(header);
    const t = await startRelay({ STR_API_KEY: KEY, STR_API_BASE_URL: service.url, ...extra });
    try {
      const r = await t.relay.app.inject({
        method: "POST",
        url: "/v1/external/analysis/create/buy",
        headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
        payload: buyBody(1),
      });
      expect(r.statusCode).toBe(200);
      expect(service.billed()).toBe(1);
    } finally {
      await t.close();
      await service.close();
    }
  });
});

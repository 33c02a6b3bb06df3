import { OPERATION_PATHS } from "../../src/contract";
import { buildSandbox } from "../../src/sandbox/sandbox-server";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * Whatever a caller sends — odd paths, forged Host and forwarding headers, absolute request URIs,
 * URLs inside the body — the relay reaches exactly one host, with POST, on the spec's five paths.
 * A service that records every request it receives is the judge.
 */
const KEY = "sk_live_boundary_key_0123456789";
const FIVE_PATHS = new Set(Object.values(OPERATION_PATHS));

describe("no caller input makes the relay call another host or path", () => {
  let t: TestRelay;
  let sandbox: ReturnType<typeof buildSandbox>;
  let upstreamHost = "";
  const received: { method: string; url: string; host: string | undefined }[] = [];

  beforeAll(async () => {
    sandbox = buildSandbox({ timeScale: 0, apiKeys: [KEY], faults: { aiFailureRate: 0, aiTimeoutRate: 0 } });
    sandbox.app.addHook("onRequest", async (request) => {
      received.push({ method: request.method, url: request.url, host: request.headers.host });
    });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    upstreamHost = `127.0.0.1:${(sandbox.app.server.address() as { port: number }).port}`;
    t = await startRelay({ STR_API_KEY: KEY, STR_API_BASE_URL: `http://${upstreamHost}` });
  });
  afterAll(async () => {
    await t.close();
    await sandbox.app.close();
  });

  const hostile = "http://169.254.169.254/latest/meta-data/";
  // The Host header itself is refused when it is not the relay's (421, see test/relay/security.test.ts):
  // these forgeries ride on a request the relay accepts.
  const forged = {
    "x-forwarded-host": "evil.example",
    "x-forwarded-proto": "https",
    "x-original-url": "/admin",
    "x-rewrite-url": "/admin",
    forwarded: "host=evil.example;proto=https",
  };

  test("hostile paths, headers and bodies reach only the five paths of the configured host", async () => {
    const auth = { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" };
    const paths = [
      "/v1/external/analysis/create/../../../admin",
      "/v1/external/analysis/create/%2e%2e/%2e%2e/admin",
      "/v1/external/analysis/create/buy/../../../../x",
      "/v1/external/analysis/create/buy%2F..%2F..%2Fadmin",
      "/v1/external/analysis/create/buy?next=http://evil.example/",
      "/v1/external/analysis/create/buy#http://evil.example/",
      "//evil.example/v1/external/analysis/create/buy",
      "/v1/external/analysis/create/BUY",
      "/v1/external/analysis/create/delete",
      "/v1/external/analysis/list",
      "/v1/external/analysis/enhance/../create/buy",
      "/v1/analyses/..%2F..%2Fetc%2Fpasswd",
      "/v1/analyses/http:%2F%2Fevil.example",
    ];
    const statuses: number[] = [];
    for (const url of paths) {
      const r = await t.relay.app.inject({ method: "POST", url, headers: { ...auth, ...forged }, payload: buyBody(1) });
      statuses.push(r.statusCode);
      const g = await t.relay.app.inject({ method: "GET", url, headers: { ...auth, ...forged } });
      statuses.push(g.statusCode);
    }
    // Bodies full of URLs and traversal: validated as data, never as where to send.
    const bodies: [string, unknown][] = [
      [OPERATION_PATHS.buy, { ...buyBody(2), fullAddress: hostile }],
      [OPERATION_PATHS.buy, { ...buyBody(3), url: hostile, baseUrl: hostile, path: "/admin" }],
      [OPERATION_PATHS.enhance, { analysisId: "../../admin", addAIComps: true }],
      [OPERATION_PATHS.enhance, { analysisId: hostile, addAIExpenseEstimates: true }],
      [
        "/v1/batch",
        {
          items: [
            { strategy: "../../admin", params: buyBody(4) },
            { strategy: hostile, params: buyBody(5) },
            { strategy: "buy", params: { ...buyBody(6), fullAddress: hostile } },
          ],
        },
      ],
    ];
    for (const [url, body] of bodies) {
      const r = await t.relay.app.inject({
        method: "POST",
        url,
        headers: { ...auth, ...forged },
        payload: body as object,
      });
      statuses.push(r.statusCode);
    }
    // Every route of the relay with every method, forged headers included.
    for (const method of ["PUT", "PATCH", "DELETE", "OPTIONS"] as const) {
      for (const url of [...FIVE_PATHS, "/v1/batch"]) {
        const r = await t.relay.app.inject({ method, url, headers: { ...auth, ...forged }, payload: buyBody(7) });
        statuses.push(r.statusCode);
      }
    }

    expect(statuses.every((s) => s < 500)).toBe(true);
    // Some of those were valid creates (an address that is a URL is still a string): they did reach the service.
    expect(received.length).toBeGreaterThan(0);
    for (const r of received) {
      expect({ method: r.method, onFivePaths: FIVE_PATHS.has(r.url), host: r.host }).toEqual({
        method: "POST",
        onFivePaths: true,
        host: upstreamHost,
      });
    }
  });
});

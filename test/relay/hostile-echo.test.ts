import fs from "node:fs";
import path from "node:path";
import { screen, tempDir, testEnv } from "../cli/support";
import { HostileService, startHostileService } from "../support/hostile-service";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * A service that writes the key back in every JSON escaping, in its answers' values, field names,
 * ids, urls and headers (test/support/hostile-service.ts): the key reaches no answer, log line,
 * store file, str-screen output file or terminal line.
 */
const KEY = "sk_live/SECRET+key_0123456789";

/** The key's text in any case, anywhere: as written, or as JSON writes `/`. */
const leaks = (text: string) => {
  const lower = text.toLowerCase();
  return lower.includes(KEY.toLowerCase()) || lower.includes(KEY.toLowerCase().replace(/\//g, "\\/"));
};

const filesUnder = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
const bytesUnder = (dir: string) => filesUnder(dir).map((f) => fs.readFileSync(f).toString("utf8"));

describe("a service that echoes the key in every JSON escaping gets it nowhere", () => {
  let service: HostileService;
  let t: TestRelay;
  const answers: string[] = [];

  beforeAll(async () => {
    service = await startHostileService(KEY);
    t = await startRelay(
      { STR_API_KEY: KEY, STR_API_BASE_URL: service.url, RELAY_LOG_LEVEL: "trace" },
      { retryPolicy: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } },
    );
  });
  afterAll(async () => {
    await t.close();
    await service.close();
  });

  test("the relay's answers, the analyses it stores and reads back, its log and its files hold no key", async () => {
    const first = await t.post(BUY_PATH, buyBody(1));
    expect(first.status).toBe(200);
    // The echoes were there, and are replaced: in warnings, names and field names.
    expect(first.text).toContain("debug [redacted]");
    expect(first.json.data.comparables[0].name).toBe("Home [redacted]");
    expect(Object.keys(first.json.data)).toContain("field_[redacted]");
    answers.push(first.text, JSON.stringify(first.headers));
    const again = await t.post(BUY_PATH, buyBody(1));
    expect(again.json.relay.cached).toBe(true);
    const stored = await t.get(`/v1/analyses/${first.json.data._id}`);
    expect(stored.status).toBe(200);
    answers.push(again.text, stored.text, (await t.get("/v1/analyses")).text);
    // An answer whose id is the key, escaped.
    const idEcho = await t.post(BUY_PATH, { ...buyBody(2), fullAddress: "2 Id Echo St, Austin TX" });
    expect(idEcho.json.error.code).toBe("STR_UPSTREAM_UNUSABLE");
    answers.push(idEcho.text, (await t.get("/v1/analyses")).text, (await t.get("/v1/usage")).text);
    // Each call met a 429 with the key as its Retry-After first.
    expect(service.received()).toBe(4);
    for (const text of answers) expect(leaks(text)).toBe(false);
    expect(t.logs.some((l) => l.includes('"event":"upstream.throttled"'))).toBe(true);
    expect(t.logs.filter(leaks)).toEqual([]);
    const files = bytesUnder(t.dataDir);
    expect(files.join("")).toContain("[redacted]");
    expect(files.filter(leaks)).toEqual([]);
  });

  test("str-screen's CSV and JSON outputs and its terminal lines hold no key", async () => {
    const dir = tempDir();
    const input = path.join(dir, "deals.csv");
    fs.writeFileSync(
      input,
      'Address,Price,Beds,Baths,Guests\n"30 Oak St, Austin TX",450000,3,2,6\n"31 Id Echo St, Austin TX",450000,3,2,6\n',
    );
    // str-screen screens live through a relay that holds the key.
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (t.relay.app.server.address() as { port: number }).port;
    const env = testEnv(path.join(dir, "data"), {
      STR_RELAY_URL: `http://127.0.0.1:${port}`,
      STR_RELAY_TOKEN: TEST_TOKEN,
    });
    const outputs = [path.join(dir, "out.csv"), path.join(dir, "out.json")];
    for (const out of outputs) {
      const r = await screen([input, "--out", out, "--force"], env);
      expect(leaks(r.stdout)).toBe(false);
      expect(leaks(r.stderr)).toBe(false);
      expect(fs.existsSync(out)).toBe(true);
    }
    const written = bytesUnder(dir);
    expect(written.join("")).toContain("30 Oak St");
    expect(written.filter(leaks)).toEqual([]);
    expect(t.logs.filter(leaks)).toEqual([]);
  });
});

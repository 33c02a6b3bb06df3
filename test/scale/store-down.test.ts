import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";
import {
  SharedUrls,
  StoreProxy,
  closedPort,
  describeShared,
  dropNamespace,
  testNamespace,
  waitFor,
  withPort,
} from "../support/scale";

describeShared(
  "Redis or Postgres unavailable: clear 503s, nothing sent, recovery without a restart",
  (urls: SharedUrls) => {
    let ns: string;
    let t: TestRelay | undefined;
    const proxies: StoreProxy[] = [];
    const relay = (redisUrl: string, databaseUrl: string) =>
      startRelay({ REDIS_URL: redisUrl, DATABASE_URL: databaseUrl, RELAY_STORE_NAMESPACE: ns });
    beforeEach(() => {
      ns = testNamespace("down");
    });
    afterEach(async () => {
      await t?.close();
      t = undefined;
      await Promise.all(proxies.splice(0).map((p) => p.down()));
      await dropNamespace(urls, ns);
    });

    test("Postgres away from the start: the relay starts, answers 503 naming Postgres, and sends nothing", async () => {
      t = await relay(urls.redisUrl, withPort(urls.databaseUrl, await closedPort()));
      const r = await t.post(BUY_PATH, buyBody(1));
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("STR_STORE_UNAVAILABLE");
      expect(r.json.error.message).toMatch(/Postgres: .*Nothing was sent/);
      expect((await t.get("/v1/usage")).status).toBe(503);
      const health = await t.get("/healthz");
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({ ok: false, success: false, error: { code: "STR_STORE_UNAVAILABLE" } });
      expect(health.json.error.message).toMatch(/Postgres does not answer/);
      expect(t.sandboxStats().arrivals).toBe(0);
    });

    test("Redis away from the start: 503 naming Redis, nothing sent, /healthz 503", async () => {
      t = await relay(withPort(urls.redisUrl, await closedPort()), urls.databaseUrl);
      const r = await t.post(BUY_PATH, buyBody(1));
      expect(r.status).toBe(503);
      expect(r.json.error.message).toMatch(/Redis: /);
      const batch = await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(2) }] });
      expect(JSON.parse(batch.text.trim()).status).toBe(503);
      expect((await t.get("/healthz")).status).toBe(503);
      expect(t.sandboxStats().arrivals).toBe(0);
    });

    test("stores that go away and come back: 503 while away (cache hits still answer without Postgres), then answers again", async () => {
      const redisProxy = new StoreProxy(urls.redisUrl);
      const pgProxy = new StoreProxy(urls.databaseUrl);
      proxies.push(redisProxy, pgProxy);
      await Promise.all([redisProxy.up(), pgProxy.up()]);
      t = await relay(withPort(urls.redisUrl, redisProxy.port), withPort(urls.databaseUrl, pgProxy.port));
      const relayT = t;
      expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
      expect((await t.get("/healthz")).status).toBe(200);

      await pgProxy.down();
      const cached = await t.post(BUY_PATH, buyBody(1));
      expect(cached.status).toBe(200);
      expect(cached.json.relay.cached).toBe(true);
      const fresh = await t.post(BUY_PATH, buyBody(2));
      expect(fresh.status).toBe(503);
      expect(fresh.json.error.message).toMatch(/Postgres/);
      expect((await t.get("/healthz")).status).toBe(503);

      await redisProxy.down();
      expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(503);
      expect((await t.post(BUY_PATH, buyBody(3))).status).toBe(503);
      expect(t.sandboxStats().arrivals).toBe(1);

      await Promise.all([redisProxy.up(), pgProxy.up()]);
      await waitFor(
        async () => (await relayT.get("/healthz")).status === 200,
        5000,
        "the relay to see its stores again",
      );
      const after = await t.post(BUY_PATH, buyBody(2));
      expect(after.status).toBe(200);
      expect(after.json.relay.cached).toBe(false);
      expect((await t.post(BUY_PATH, buyBody(1))).json.relay.cached).toBe(true);
      expect(t.sandboxStats()).toMatchObject({ arrivals: 2, billedCents: 40, duplicates: 0 });
      const ledger = await t.relay.store.ledger.rows();
      expect(ledger.map((row) => row.state)).toEqual(["billed", "billed"]);
    });
  },
);

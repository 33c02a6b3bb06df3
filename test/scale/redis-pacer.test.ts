import net from "node:net";
import Redis from "ioredis";
import { JITTER_MARGIN_MS, PacingRule, pacingRule } from "../../src/relay/pacer";
import { RedisPacer, SHARED_PACING_MARGIN_MS } from "../../src/relay/redis-pacer";
import { redisClient } from "../../src/relay/store/shared-clients";
import { SharedUrls, closedPort, describeShared, dropNamespace, testNamespace, withPort } from "../support/scale";
import { grantTimes, maxInWindow, pacerCases } from "../relay/pacer-cases";

/** A TCP proxy to Redis that holds a `share` of its answers back for `minMs` to `maxMs` ms, keeping their order. */
async function stallingProxy(
  targetUrl: string,
  { share, minMs, maxMs }: { share: number; minMs: number; maxMs: number },
): Promise<{ port: number; close(): void }> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => (client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream);
    let last = 0;
    upstream.on("data", (chunk: Buffer) => {
      const stall = Math.random() < share ? minMs + Math.random() * (maxMs - minMs) : 0;
      last = Math.max(last, performance.now() + stall);
      setTimeout(() => client.write(chunk), last - performance.now());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describeShared("the Redis pacer keeps every replica together within the account's limit", (urls: SharedUrls) => {
  let ns: string;
  const clients: Redis[] = [];
  const pacers: RedisPacer[] = [];
  /** A pacer with its own Redis connection, as each replica has. */
  const replica = async (
    rule: PacingRule,
    url = urls.redisUrl,
    reachable = url === urls.redisUrl,
  ): Promise<RedisPacer> => {
    const redis = redisClient(url, "str-relay-test");
    clients.push(redis);
    if (reachable) await new Promise((resolve) => redis.once("ready", resolve));
    const pacer = new RedisPacer(redis, rule, ns);
    pacers.push(pacer);
    return pacer;
  };
  beforeEach(() => {
    ns = testNamespace("pacer");
  });
  afterEach(async () => {
    await Promise.all(pacers.splice(0).map((p) => p.close()));
    for (const c of clients.splice(0)) c.disconnect();
    await dropNamespace(urls, ns);
  });

  pacerCases({
    // Replicas: each pacer with its own Redis connection, all on one namespace.
    make: (rule, count) => Promise.all(Array.from({ length: count }, () => replica(rule))),
    replicas: 2,
    jitterMs: 10,
    // A throttle is written to Redis in the background; the replicas read it on their next grant.
    throttleSeen: () => new Promise((r) => setTimeout(r, 20)),
  });

  test("with Redis's answers stalling at random, the send 100 places back left at least 1 s plus the jitter margin earlier", async () => {
    const proxy = await stallingProxy(urls.redisUrl, { share: 1 / 3, minMs: 10, maxMs: 25 });
    try {
      const rule = pacingRule(100, SHARED_PACING_MARGIN_MS);
      const url = withPort(urls.redisUrl, proxy.port);
      const four = await Promise.all([1, 2, 3, 4].map(() => replica(rule, url, true)));
      // Each caller sends at once, or as late as its slot allows (the ledger row took that long); one
      // whose slot is too old by the time it runs trades it for the next, ahead of the queue, as the
      // gateway does.
      const lifetime = (four[0] as RedisPacer).slotLifetimeMs;
      const sends: number[] = [];
      await Promise.all(
        Array.from({ length: 250 }, async (_, i) => {
          const pacer = four[i % 4] as RedisPacer;
          let slot = await pacer.acquire();
          while (performance.now() - slot.grantedAt > lifetime) slot = await pacer.acquire(undefined, { first: true });
          sends.push(i % 2 === 0 ? slot.grantedAt + lifetime : performance.now());
        }),
      );
      sends.sort((a, b) => a - b);
      expect(maxInWindow(sends, 1000)).toBeLessThanOrEqual(100);
      expect(maxInWindow(sends, 1000 + JITTER_MARGIN_MS)).toBeLessThanOrEqual(100);
    } finally {
      proxy.close();
    }
  });

  test("a Redis whose every answer comes later than a slot's lifetime gets the callers a 503, not a wait for ever", async () => {
    const proxy = await stallingProxy(urls.redisUrl, { share: 1, minMs: 45, maxMs: 50 });
    try {
      const pacer = await replica(pacingRule(100, SHARED_PACING_MARGIN_MS), withPort(urls.redisUrl, proxy.port), true);
      await expect(pacer.acquire()).rejects.toMatchObject({
        code: "STR_STORE_UNAVAILABLE",
        message: expect.stringMatching(/too slow to pace sends/),
      });
    } finally {
      proxy.close();
    }
  });

  test("sends are spaced evenly, with a small catch-up, not let out in bursts of the limit", async () => {
    const both = [await replica({ limit: 10, windowMs: 1000 }), await replica({ limit: 10, windowMs: 1000 })];
    const start = performance.now();
    const times = await grantTimes(both, 10);
    // 1 + 4 catch-up slots at once, then one every 100 ms.
    expect(times.filter((t) => t - start < 150).length).toBeLessThanOrEqual(6);
    expect((times[9] as number) - start).toBeGreaterThanOrEqual(450);
  });

  test("with Redis away, waiting callers get 503 STR_STORE_UNAVAILABLE at once: nothing goes unpaced", async () => {
    const pacer = await replica(pacingRule(100), withPort(urls.redisUrl, await closedPort()));
    const t0 = Date.now();
    await expect(pacer.acquire()).rejects.toMatchObject({ code: "STR_STORE_UNAVAILABLE", statusCode: 503 });
    expect(Date.now() - t0).toBeLessThan(500);
  });
});

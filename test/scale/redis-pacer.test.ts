import { setMaxListeners } from "node:events";
import net from "node:net";
import Redis from "ioredis";
import { AcquireOptions, JITTER_MARGIN_MS, PacingRule, pacingRule } from "../../src/relay/pacing/pacer";
import { RedisPacer } from "../../src/relay/pacing/redis-pacer";
import { STORE_TIMEOUT_MS, redisClient } from "../../src/relay/store/shared-clients";
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
      // Not below 0: Node 20 took a negative delay as 1 ms silently, Node 24 and 26 also print a
      // TimeoutNegativeWarning.
      setTimeout(() => client.write(chunk), Math.max(0, last - performance.now()));
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
      const rule = pacingRule(100);
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
          if (i % 2 === 0)
            await new Promise((r) => setTimeout(r, Math.max(0, slot.grantedAt + lifetime - 2 - performance.now())));
          while (performance.now() - slot.grantedAt > lifetime) {
            slot.release();
            slot = await pacer.acquire(undefined, { first: true });
          }
          slot.release();
          sends.push(performance.now());
        }),
      );
      sends.sort((a, b) => a - b);
      expect(maxInWindow(sends, 1000)).toBeLessThanOrEqual(100);
      expect(maxInWindow(sends, 1000 + JITTER_MARGIN_MS)).toBeLessThanOrEqual(100);
    } finally {
      proxy.close();
    }
  });

  // That a slot's lifetime costs no throughput (each send one window after the one 100 before it,
  // not a lifetime later) is bench:scale's figure: a busy machine's late round trips to Redis stretch
  // the gaps by more than a lifetime.
  test("replicas whose callers release their slots at once: 501 sends, none more than 100 in a window of 1 s plus the jitter margin", async () => {
    const both = [await replica(pacingRule(100)), await replica(pacingRule(100))];
    const sends: number[] = [];
    await Promise.all(
      Array.from({ length: 501 }, (_, i) =>
        (both[i % 2] as RedisPacer).acquire().then((slot) => {
          slot.release();
          sends.push(performance.now());
        }),
      ),
    );
    sends.sort((a, b) => a - b);
    expect(sends).toHaveLength(501);
    expect(maxInWindow(sends, 1000 + JITTER_MARGIN_MS)).toBeLessThanOrEqual(100);
  });

  test("a Redis whose every answer comes later than a slot's lifetime gets the callers a 503, not a wait for ever", async () => {
    const proxy = await stallingProxy(urls.redisUrl, { share: 1, minMs: 45, maxMs: 50 });
    try {
      const pacer = await replica(pacingRule(100), withPort(urls.redisUrl, proxy.port), true);
      await expect(pacer.acquire()).rejects.toMatchObject({
        code: "STR_STORE_UNAVAILABLE",
        message: expect.stringMatching(/too slow to pace sends/),
      });
    } finally {
      proxy.close();
    }
  });

  test("grants that reached a replica too late to use are released: none stays counted until its latest write", async () => {
    const proxy = await stallingProxy(urls.redisUrl, { share: 1, minMs: 45, maxMs: 50 });
    try {
      const slow = await replica(pacingRule(100), withPort(urls.redisUrl, proxy.port), true);
      await expect(slow.acquire()).rejects.toMatchObject({ code: "STR_STORE_UNAVAILABLE" });
      await slow.close();
    } finally {
      proxy.close();
    }
    // The 20 stale grants were released: none is left counted until its latest write, 10 s on.
    await replica(pacingRule(100));
    const redis = clients.at(-1) as Redis;
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Number(micros) / 1000;
    const scores = (await redis.zrange(`${ns}:pacer_v2:log`, 0, -1, "WITHSCORES")).filter((_, i) => i % 2 === 1);
    // Those of the last second at least (the slow replica's own polls took older ones out of the window).
    expect(scores.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...scores.map(Number))).toBeLessThanOrEqual(now);
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
    // Refused, not queued until a command times out.
    expect(Date.now() - t0).toBeLessThan(STORE_TIMEOUT_MS / 2);
  });

  /** Queues every call at once, then records whose each grant was, in grant order. */
  const grantOrder = async (calls: [RedisPacer, string, AcquireOptions][]): Promise<string[]> => {
    const order: string[] = [];
    await Promise.all(
      calls.map(([pacer, label, options]) =>
        pacer.acquire(undefined, options).then((slot) => {
          slot.release();
          order.push(label);
        }),
      ),
    );
    return order;
  };
  const many = (n: number, pacer: RedisPacer, label: string, options: AcquireOptions) =>
    Array.from({ length: n }, (): [RedisPacer, string, AcquireOptions] => [pacer, label, options]);

  test("callers take turns across replicas: B's few calls on one replica are not queued behind A's many on another", async () => {
    const rule = pacingRule(100);
    const [one, two] = [await replica(rule), await replica(rule)];
    const order = await grantOrder([
      ...many(150, one, "A", { caller: "A", priority: "bulk" }),
      ...many(10, two, "B", { caller: "B", priority: "bulk" }),
    ]);
    // Turn by turn: B's 10th call is about the 20th grant (FIFO by replica made it wait for A's 150 or not at all).
    expect(order.lastIndexOf("B")).toBeLessThan(30);
    expect(order.slice(0, 20).filter((l) => l === "B").length).toBeGreaterThanOrEqual(8);
  });

  test("a caller's share does not depend on its replica: A on both replicas, B queued behind A on one, each gets half", async () => {
    const rule = pacingRule(100);
    const [one, two] = [await replica(rule), await replica(rule)];
    const order = await grantOrder([
      ...many(100, one, "A", { caller: "A", priority: "bulk" }),
      ...many(50, two, "A", { caller: "A", priority: "bulk" }),
      ...many(50, two, "B", { caller: "B", priority: "bulk" }),
    ]);
    // Shared by replica, B would get none of the first 100: replica two's A calls were ahead of it.
    const firstHundred = order.slice(0, 100);
    expect(firstHundred.filter((l) => l === "B").length).toBeGreaterThanOrEqual(40);
    expect(firstHundred.filter((l) => l === "A").length).toBeGreaterThanOrEqual(40);
  });

  test("a caller's formula calls on one replica go before its bulk calls on every replica", async () => {
    const rule = pacingRule(100);
    const [one, two] = [await replica(rule), await replica(rule)];
    const order = await grantOrder([
      ...many(80, one, "bulk", { caller: "A", priority: "bulk" }),
      ...many(40, two, "bulk", { caller: "A", priority: "bulk" }),
      ...many(5, two, "formula", { caller: "A", priority: "formula" }),
    ]);
    expect(order.lastIndexOf("formula")).toBeLessThan(10);
  });

  test("a replica with nobody left waiting withdraws its registrations at once", async () => {
    const rule = pacingRule(100);
    const [one, two] = [await replica(rule), await replica(rule)];
    const redis = clients[0] as Redis;
    const gone = new AbortController();
    setMaxListeners(0, gone.signal);
    const left = Promise.all(
      Array.from({ length: 50 }, () => one.acquire(gone.signal, { caller: "A" }).catch(() => "left")),
    );
    /** A's registrations: field → when it lapses, on Redis's clock. */
    const registrationsOfA = async () =>
      Object.entries(await redis.hgetall(`${ns}:pacer_v2:waiting`)).filter(([field]) => field.includes("|A|"));
    const redisNow = async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Number(micros) / 1000;
    };
    await new Promise((r) => setTimeout(r, 100));
    const registered = await registrationsOfA();
    expect(registered.length).toBeGreaterThan(0);
    // No replica polls once A's callers have left, so a registration not withdrawn stays until it lapses.
    const lapsesAt = Math.min(...registered.map(([, until]) => Number(until)));
    gone.abort(new Error("the caller disconnected"));
    await left;
    while ((await registrationsOfA()).length > 0) await new Promise((r) => setTimeout(r, 5));
    // Gone before the earliest of them would have lapsed, by Redis's own clock: withdrawn, not expired.
    expect(await redisNow()).toBeLessThan(lapsesAt);
    // B, alone now, is served.
    expect(await grantOrder(many(10, two, "B", { caller: "B" }))).toEqual(Array(10).fill("B"));
  });

  test("a replica that stops asking for its caller's turn (it died) does not hold the others' slots", async () => {
    const rule = pacingRule(100);
    const alive = await replica(rule);
    // A dead replica's caller, registered for 20 s and never served: its turn comes every other slot.
    const redis = clients[0] as Redis;
    const [seconds] = await redis.time();
    await redis.hset(`${ns}:pacer_v2:waiting`, "dead|Z|bulk", String((Number(seconds) + 20) * 1000));
    const start = performance.now();
    await grantOrder(many(20, alive, "B", { caller: "B" }));
    // Each turn Z cannot take passes to B two spacings later (20 grants in well under a second),
    // not when the registration lapses.
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});

import { AcquireOptions, Pacer, Slot, pacingRule } from "../../src/relay/pacing/pacer";
import { RedisPacer } from "../../src/relay/pacing/redis-pacer";
import { ITEMS_PER_TURN } from "../../src/relay/batch/stream-batch";
import { Upstream } from "../../src/relay/upstream/upstream";
import { Sandbox } from "../../src/sandbox/sandbox-server";
import { TestRelay, buyBody, startRelay } from "../support/relay";
import {
  SharedUrls,
  describeShared,
  dropNamespace,
  openTestStore,
  testNamespace,
  listeningSandbox,
} from "../support/scale";

const KEY = "sk_shared_work_test_0123456789";
const RPS = 200;

/** A pacer that counts the slots it grants. */
class CountingPacer implements Pacer {
  granted = 0;
  constructor(readonly inner: Pacer) {}
  get slotLifetimeMs(): number {
    return this.inner.slotLifetimeMs;
  }
  get waiting(): number {
    return this.inner.waiting;
  }
  async acquire(signal?: AbortSignal, options?: AcquireOptions): Promise<Slot> {
    const slot = await this.inner.acquire(signal, options);
    this.granted++;
    return slot;
  }
  throttled(until: number): void {
    this.inner.throttled(until);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describeShared(
  "replicas on the shared store spend send slots only on requests they send, and start at once",
  (urls: SharedUrls) => {
    let ns: string;
    let sandbox: Sandbox;
    let sandboxUrl: string;
    const relays: TestRelay[] = [];
    const pacers: CountingPacer[] = [];

    /** A replica in live mode against the one sandbox, on the shared store, pacing through Redis. */
    const replica = async (): Promise<TestRelay> => {
      const store = await openTestStore(urls, ns);
      const pacer = new CountingPacer(new RedisPacer(store.redis, pacingRule(RPS), ns));
      pacers.push(pacer);
      const relay = await startRelay(
        {
          STR_API_KEY: KEY,
          STR_API_BASE_URL: sandboxUrl,
          RELAY_UPSTREAM_RPS: String(RPS),
          RELAY_BUDGET_USD_PER_DAY: "100000",
        },
        { store, pacer },
      );
      relays.push(relay);
      return relay;
    };

    beforeEach(async () => {
      ns = testNamespace("shared_work");
      ({ sandbox, url: sandboxUrl } = await listeningSandbox(KEY));
    });
    afterEach(async () => {
      await Promise.all(relays.splice(0).map((r) => r.close()));
      pacers.splice(0);
      await sandbox.app.close();
      await dropNamespace(urls, ns);
    });

    test("the same 60 items sent to both at once: every slot granted is a request that reaches the service, each created once", async () => {
      const [a, b] = [await replica(), await replica()];
      const items = Array.from({ length: 60 }, (_, n) => ({ strategy: "buy", params: buyBody(n) }));
      const answers = await Promise.all([a, b].map((r) => (r as TestRelay).post("/v1/batch", { items })));
      for (const answer of answers) {
        const lines = answer.text
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { status: number });
        expect(lines.map((l) => l.status)).toEqual(Array(60).fill(200));
      }
      expect(sandbox.state.duplicateCreates()).toBe(0);
      expect(sandbox.state.arrivals.length).toBe(60);
      // A slot that got old before its request could leave (this host stalled) is traded for a fresh
      // one, and the relay counts those; every other slot is a request sent, none is spent on a
      // request the other replica made.
      const renewed = (await Promise.all(relays.map((r) => r.relay.metrics.read(r.relay.metrics.slotsRenewed)))).reduce(
        (n, v) => n + v,
        0,
      );
      expect(pacers.reduce((n, p) => n + p.granted, 0) - renewed).toBe(60);
    });

    test("a big batch starts sending at once: its items are checked (cache, lock, ledger) a few slices ahead of the pacer, not all before the first send", async () => {
      const store = await openTestStore(urls, ns);
      // Requests whose lock was taken: each is taken again right before its send (the fence), not a new check.
      const locked = new Set<string>();
      const acquireLock = store.locks.acquire.bind(store.locks);
      store.locks.acquire = async (...args) => {
        const taken = await acquireLock(...args);
        if (taken) locked.add(args[0]);
        return taken;
      };
      const relay = await startRelay(
        {
          STR_API_KEY: KEY,
          STR_API_BASE_URL: sandboxUrl,
          RELAY_UPSTREAM_RPS: "1000",
          RELAY_BUDGET_USD_PER_DAY: "100000",
        },
        { store },
      );
      relays.push(relay);
      let locksAtFirstSend: number | undefined;
      const call = Upstream.prototype.call;
      jest.spyOn(Upstream.prototype, "call").mockImplementation(function (this: Upstream, ...args) {
        locksAtFirstSend ??= locked.size;
        return call.apply(this, args);
      });
      sandbox.setFaults({ rateLimitPerSecond: 100_000 });
      // Four times the bound: were they all checked before the first send, all would be locked by then.
      const items = Array.from({ length: 8 * ITEMS_PER_TURN }, (_, n) => ({ strategy: "buy", params: buyBody(n) }));
      expect((await relay.post("/v1/batch", { items })).status).toBe(200);
      jest.restoreAllMocks();
      expect(locked.size).toBe(items.length);
      expect(locksAtFirstSend).toBeLessThanOrEqual(2 * ITEMS_PER_TURN);
    }, 120_000);
  },
);

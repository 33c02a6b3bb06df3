import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { JITTER_MARGIN_MS, LocalPacer, pacingRule } from "../../src/relay/pacing/pacer";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { RelayStore } from "../../src/relay/store/store";
import { Upstream } from "../../src/relay/upstream/upstream";
import { buyBody, startRelay } from "../support/relay";
import { wrapMethod } from "../support/wrap-store";
import { maxInWindow, pacerCases } from "./pacer-cases";

describe("the pacer never lets more than the limit through in any sliding window", () => {
  const made: LocalPacer[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((p) => p.close()));
  });
  pacerCases({
    // One pacer in process: it shares the account with no other.
    make: async (rule) => {
      const pacer = new LocalPacer(rule);
      made.push(pacer);
      return [pacer];
    },
    replicas: 1,
    jitterMs: 5,
  });

  test("the rule for 100 a second is 100 per second plus the jitter margin", () => {
    expect(pacingRule(100)).toEqual({ limit: 100, windowMs: 1000 + JITTER_MARGIN_MS });
    expect(pacingRule(2.5)).toEqual({ limit: 2, windowMs: 800 + JITTER_MARGIN_MS });
    expect(pacingRule(0.5)).toEqual({ limit: 1, windowMs: 2000 + JITTER_MARGIN_MS });
    expect(() => pacingRule(0)).toThrow(/requestsPerSecond.*greater than 0, got 0/);
  });

  test("sends start evenly spaced from idle, not in a burst that would arrive bunched with the sends a window later", async () => {
    const pacer = new LocalPacer({ limit: 100, windowMs: 1000 });
    // When the pacer granted each slot (its grantedAt), not when the test saw it: the first grant's
    // callback runs after the other five acquire() calls, later on a busy machine and on newer Nodes,
    // which would shorten the span measured here.
    const granted: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, () =>
        pacer.acquire().then((slot) => {
          slot.release();
          granted.push(slot.grantedAt);
        }),
      ),
    );
    granted.sort((a, b) => a - b);
    // 10 ms apart: the sixth 50 ms after the first (it was 10 ms when five went at once).
    expect((granted[5] as number) - (granted[0] as number)).toBeGreaterThanOrEqual(49);
    await pacer.close();
  });
});

describe("the limit holds on the sends themselves, not only on the grants", () => {
  /** A SQLite store whose round trips take 0 or 4.5 ms, as a busy host's do. */
  function slowStore(file: string): RelayStore {
    const store = new SqliteStore(file);
    const slow =
      <A extends unknown[], R>(original: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        await new Promise((r) => setTimeout(r, Math.random() < 0.5 ? 0 : 4.5));
        return original(...args);
      };
    wrapMethod(store.locks, "acquire", slow);
    wrapMethod(store.cache, "get", slow);
    wrapMethod(store.analyses, "get", slow);
    wrapMethod(store.ledger, "lastCall", slow);
    wrapMethod(store.ledger, "reserveCall", slow);
    wrapMethod(store.ledger, "committedCents", slow);
    return store;
  }

  test("with a slow store, the request 20 places back left at least 1 s plus the jitter margin earlier", async () => {
    // When each request has been written to its connection: the jitter margin is for the way there.
    const departures: number[] = [];
    const call = Upstream.prototype.call;
    const spy = jest.spyOn(Upstream.prototype, "call").mockImplementation(function (
      this: Upstream,
      op,
      body,
      onWritten,
    ) {
      return call.call(this, op, body, () => {
        departures.push(performance.now());
        onWritten?.();
      });
    });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-pacer-sends-"));
    const t = await startRelay(
      { RELAY_UPSTREAM_RPS: "20" },
      { dataDir, store: slowStore(path.join(dataDir, "relay.sqlite")) },
    );
    try {
      const items = Array.from({ length: 70 }, (_, n) => ({ strategy: "buy", params: buyBody(n) }));
      const r = await t.post("/v1/batch", { items });
      expect(r.status).toBe(200);
      expect(t.relay.sandbox?.state.arrivals.length).toBe(70);
      expect(departures).toHaveLength(70);
      // The window counts a slot for its lifetime, so the time a slow store takes before the send
      // does not eat into the margin.
      expect(maxInWindow(departures, 1000 + JITTER_MARGIN_MS)).toBeLessThanOrEqual(20);
    } finally {
      spy.mockRestore();
      await t.close();
    }
  });
});

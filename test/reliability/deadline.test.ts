import { BatchLine } from "../../src/contract";
import { RelayClient } from "../../src/client";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/**
 * No batch answer outlives RELAY_MAX_REQUEST_SECONDS: items still running come back pending, their
 * work goes on, and the client asks again until every item has its answer — each sent to the
 * service once. (Excel cuts a custom function's request at about 60 s; Microsoft's office-js issues
 * 934 and 1184.)
 */
const item = (n: number) => ({
  strategy: "buy" as const,
  params: { ...buyBody(n), fullAddress: `${n} Deadline Ave, Austin TX` },
});

/**
 * How long past its deadline a request may last: a busy machine fires the deadline's timer late and
 * writes the answer's last lines late. The work each test holds past the deadline outlasts the
 * deadline and this grace together, so a request the deadline did not end still fails the bound.
 */
const GRACE_MS = 5000;

/** A client whose every HTTP request is timed. */
function timedClient(baseUrl: string) {
  const durations: number[] = [];
  const timedFetch: typeof fetch = async (input, init) => {
    const started = Date.now();
    const response = await fetch(input, init);
    if (!response.body) {
      durations.push(Date.now() - started);
      return response;
    }
    // The request lasts until its body has been read whole.
    const [forCaller, forTimer] = response.body.tee();
    void (async () => {
      const reader = forTimer.getReader();
      while (!(await reader.read()).done);
      durations.push(Date.now() - started);
    })();
    return new Response(forCaller, { status: response.status, headers: response.headers });
  };
  return { client: new RelayClient({ baseUrl, token: TEST_TOKEN, fetch: timedFetch }), durations };
}

/** 500 items at 25 a second: 20 s of sends, against a 3-s deadline. */
const ITEMS = 500;

describe("a 500-item batch, 20 s of sends, against a 3-second deadline", () => {
  let t: TestRelay;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startRelay({ RELAY_MAX_REQUEST_SECONDS: "3", RELAY_UPSTREAM_RPS: "25" });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  test("the answer ends by the deadline with the rest pending; asking again returns every item, each created once", async () => {
    const items = Array.from({ length: ITEMS }, (_, n) => item(n));
    const started = Date.now();
    const response = await fetch(`${baseUrl}/v1/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ items, maxComparables: 0 }),
    });
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { index: number; status: number; body: { pending?: boolean } });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(3000 + GRACE_MS);
    expect(lines).toHaveLength(ITEMS);
    const pending = lines.filter((l) => l.status === 202 && l.body.pending === true);
    // At 25 a second, 75 or so are sent by the deadline.
    expect(pending.length).toBeGreaterThan(ITEMS / 2);
    expect(lines.filter((l) => l.status === 200).length).toBeGreaterThan(0);
    expect(pending.length + lines.filter((l) => l.status === 200).length).toBe(ITEMS);

    // The client asks again (RelayClient.batch does it for every caller: functions, pane, CLI).
    const { client, durations } = timedClient(baseUrl);
    const answered = new Map<number, BatchLine>();
    await client.batch(items, { onLine: (line) => answered.set(line.index, line), maxComparables: 0 });
    expect(answered.size).toBe(ITEMS);
    expect([...answered.values()].every((l) => l.status === 200)).toBe(true);
    expect(durations.length).toBeGreaterThan(1);
    expect(Math.max(...durations)).toBeLessThan(3000 + GRACE_MS);
    const stats = t.sandboxStats();
    expect(stats).toMatchObject({ reports: ITEMS, duplicates: 0 });
    const ledger = await t.relay.store.ledger.rows();
    expect(ledger.reduce((sum, row) => sum + row.cents, 0)).toBe(stats.billedCents);
  }, 120_000);
});

describe("slow calls past the deadline", () => {
  let t: TestRelay;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startRelay({ RELAY_MAX_REQUEST_SECONDS: "1" });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  test("a slow create and a slow refresh (the service taking 8 s) resolve through re-asks, each sent once", async () => {
    await t.post(BUY_PATH, item(9000).params); // cached, to be refreshed
    t.relay.sandbox?.setFaults({ extraLatencyMs: 1000 + GRACE_MS + 2000 });
    const before = t.sandboxStats().arrivals;
    const { client, durations } = timedClient(baseUrl);
    const answered = new Map<number, BatchLine>();
    await client.batch(
      [
        item(9001),
        { ...item(9000), refresh: true },
        { ...item(9002), params: { ...item(9002).params, addAIComps: true } },
      ],
      {
        onLine: (line) => answered.set(line.index, line),
      },
    );
    t.relay.sandbox?.setFaults({ extraLatencyMs: 0 });
    expect([...answered.keys()].sort()).toEqual([0, 1, 2]);
    expect([...answered.values()].map((l) => l.status)).toEqual([200, 200, 200]);
    // The refresh is the new call's answer, not the older cached one.
    const refreshed = answered.get(1)?.body as { relay: { cached: boolean; fetchedAt: string } };
    expect(refreshed.relay.cached).toBe(false);
    expect(t.sandboxStats().arrivals - before).toBe(3);
    expect(Math.max(...durations)).toBeLessThan(1000 + GRACE_MS);
  }, 60_000);
});

import { SharedStore } from "../../src/relay/store/shared-store";
import {
  CLOCK_AHEAD_PRELOAD,
  Child,
  RELAY_TOKEN,
  SharedUrls,
  StoreProxy,
  buyParams,
  describeShared,
  dropNamespace,
  ensureBuilt,
  openTestStore,
  resetSandbox,
  runBatch,
  sandboxStats,
  startReplica,
  startSandboxProcess,
  testNamespace,
  waitFor,
  withPort,
} from "../support/scale";

/**
 * A living replica's calls are never written off as unknown: not when another replica's clock is
 * wrong, not when Postgres was away for everyone. Two relay processes on this machine's Redis and
 * Postgres, in front of one sandbox process that bills as the service would.
 *
 * Heartbeats every second rather than every 10 s: what decides these cases is how many beats a
 * replica misses (three make it look dead), not how long a beat is, so every figure is scaled by
 * the same tenth. The Postgres client's own timeouts do not come into play: the cut proxy refuses
 * connections at once.
 */
const HEARTBEAT_SECONDS = 1;
/** No batch deadline to speak of: on a busy machine 750 items a replica can take longer than the default 45 s. */
const REPLICA_ENV = { RELAY_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS), RELAY_MAX_REQUEST_SECONDS: "600" };
const items = (from: number, to: number, tag: string) =>
  Array.from({ length: to - from }, (_, i) => ({ strategy: "buy", params: buyParams(from + i, tag) }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeShared("a living replica's calls end in the ledger as they really ended", (urls: SharedUrls) => {
  const namespaces: string[] = [];
  const children: Child[] = [];
  const stores: SharedStore[] = [];
  const proxies: StoreProxy[] = [];
  const storeOf = async (ns: string) => {
    const store = await openTestStore(urls, ns);
    stores.push(store);
    return store;
  };
  const start = async (child: Promise<Child>) => {
    const c = await child;
    children.push(c);
    return c;
  };

  beforeAll(() => ensureBuilt(), 90_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(proxies.map((p) => p.down()));
    for (const ns of namespaces) await dropNamespace(urls, ns);
  });

  test("one replica's clock 45 s ahead: a 1,500-item split run leaves nothing unknown, and the ledger is the service's bill", async () => {
    const ns = testNamespace("skew");
    namespaces.push(ns);
    // Reports take 0.1–0.3 s (1 % of the live service's time), so each replica always has calls in flight.
    const sandbox = await start(startSandboxProcess({ SANDBOX_TIME_SCALE: "0.01" }));
    const [a, b] = await Promise.all([
      start(startReplica(urls, ns, sandbox.url, REPLICA_ENV)),
      start(
        startReplica(
          urls,
          ns,
          sandbox.url,
          { ...REPLICA_ENV, CLOCK_AHEAD_MS: "45000" },
          { preload: [CLOCK_AHEAD_PRELOAD] },
        ),
      ),
    ]);
    await resetSandbox(sandbox.url);
    const [x, y] = await Promise.all([
      runBatch(a.url, items(0, 750, "Skew")),
      runBatch(b.url, items(750, 1500, "Skew")),
    ]);
    const lines = [...x.lines, ...y.lines];
    expect(lines).toHaveLength(1500);
    expect(lines.filter((l) => l.status !== 200).map((l) => l.body)).toEqual([]);
    // Several heartbeats more, each with its sweep, after the last call ended.
    await sleep(4 * HEARTBEAT_SECONDS * 1000);

    const stats = await sandboxStats(sandbox.url);
    const ledger = await (await storeOf(ns)).ledger.rows();
    const usage = (await (
      await fetch(`${a.url}/v1/usage`, { headers: { authorization: `Bearer ${RELAY_TOKEN}` } })
    ).json()) as { today: Record<string, number> };
    const states = tally(ledger.map((row) => row.state));
    console.log(
      `clock 45 s ahead on one replica: ledger ${JSON.stringify(states)}, usage ${JSON.stringify(usage.today)}, sandbox billed ${stats.billing.cents} cents for ${stats.billing.reports} reports`,
    );
    expect(usage.today.unknownUSD).toBe(0);
    expect(usage.today.pendingUSD).toBe(0);
    expect(states).toEqual({ billed: 1500 });
    expect(ledger.reduce((s, row) => s + row.cents, 0)).toBe(stats.billing.cents);
    expect(stats.billing.reports).toBe(1500);
    expect(stats.duplicateCreates).toBe(0);
    expect(new Set(ledger.map((row) => row.owner)).size).toBe(2);
  }, 300_000);

  test("Postgres away for 3.5 beats (35 s at the default 10 s) and back: no call of either living replica stays unknown", async () => {
    const ns = testNamespace("pgcut");
    namespaces.push(ns);
    // Reports take 0.3–0.9 s, so calls sent before the cut end while Postgres is away.
    const sandbox = await start(startSandboxProcess({ SANDBOX_TIME_SCALE: "0.03" }));
    const pg = new StoreProxy(urls.databaseUrl);
    proxies.push(pg);
    await pg.up();
    const env = { ...REPLICA_ENV, DATABASE_URL: withPort(urls.databaseUrl, pg.port) };
    const [a, b] = await Promise.all([
      start(startReplica(urls, ns, sandbox.url, env)),
      start(startReplica(urls, ns, sandbox.url, env)),
    ]);
    const store = await storeOf(ns);
    await resetSandbox(sandbox.url);

    const runs = Promise.all([runBatch(a.url, items(0, 300, "Cut")), runBatch(b.url, items(300, 600, "Cut"))]);
    // Both replicas have calls in flight when Postgres goes away.
    await waitFor(
      async () =>
        new Set((await store.ledger.rows()).filter((row) => row.state === "pending").map((row) => row.owner)).size ===
        2,
      10_000,
      "both replicas to send",
    );
    await sleep(500);
    await pg.down();
    const cutAt = Date.now();
    await sleep(3.5 * HEARTBEAT_SECONDS * 1000);
    await pg.up();
    const [x, y] = await runs;
    const lines = [...x.lines, ...y.lines];
    expect(lines).toHaveLength(600);
    // Items that met the outage before they were sent got 503 (nothing sent); the rest were answered.
    expect(
      lines.filter((l) => l.status !== 200 && l.body?.error?.code !== "STR_STORE_UNAVAILABLE").map((l) => l.body),
    ).toEqual([]);

    // Long enough for any replica to have swept the other's calls, had it looked dead: three beats
    // of steady heartbeats after the cut ended, and more.
    await waitFor(
      () => Date.now() - cutAt > 3.5 * 1000 * HEARTBEAT_SECONDS + 6 * 1000 * HEARTBEAT_SECONDS,
      30_000,
      "the sweeps after the cut",
    );
    await waitFor(
      async () => (await store.ledger.rows()).every((row) => row.state !== "pending"),
      10_000,
      "every call to be recorded",
    );
    const ledger = await store.ledger.rows();
    const stats = await sandboxStats(sandbox.url);
    const states = tally(ledger.map((row) => row.state));
    const refused = lines.filter((l) => l.status === 503).length;
    console.log(
      `Postgres cut for 3.5 beats: ${lines.length - refused} answered, ${refused} refused (503) while away; ledger ${JSON.stringify(states)}; sandbox billed ${stats.billing.cents} cents for ${stats.billing.reports} reports`,
    );
    expect(refused).toBeGreaterThan(0);
    expect(
      ledger.filter((row) => row.state === "unknown").map((row) => ({ owner: row.owner, finishedAt: row.finishedAt })),
    ).toEqual([]);
    // A call sent is billed; a failed row is a reservation whose answer the cut lost, never sent.
    expect(ledger.filter((row) => row.state === "billed")).toHaveLength(stats.billing.reports);
    expect(ledger.filter((row) => row.state !== "billed").map((row) => [row.state, row.errorCode])).toEqual(
      ledger.filter((row) => row.state !== "billed").map(() => ["failed", "STR_STORE_UNAVAILABLE"]),
    );
    expect(ledger.reduce((s, row) => s + row.cents, 0)).toBe(stats.billing.cents);
    expect(stats.duplicateCreates).toBe(0);
  }, 120_000);
});

function tally(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

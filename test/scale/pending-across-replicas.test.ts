import { RelayClient } from "../../src/client";
import { BatchLine } from "../../src/contract";
import { Sandbox, buildSandbox } from "../../src/sandbox/sandbox-server";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";
import { SharedUrls, describeShared, dropNamespace, openTestStore, testNamespace, waitFor } from "../support/scale";

/**
 * A batch item left pending by one replica's deadline and asked for again on another replica (a
 * load balancer sends each request where it likes): the second replica joins the work the first
 * is doing through the request's lock, or answers from the stored answer, and the service is sent
 * the request once. A refresh asked again with its `freshSince` is not bought a second time.
 */
const KEY = "sk_pending_replicas_0123456789";
const SLOW_MS = 2500;

describeShared("pending items asked for again on the other replica", (urls: SharedUrls) => {
  let ns: string;
  let sandbox: Sandbox;
  let sandboxUrl: string;
  const relays: TestRelay[] = [];

  /** A replica with a 1-second deadline, live against the one sandbox, on the shared store, listening on loopback. */
  const replica = async (): Promise<{ relay: TestRelay; url: string }> => {
    const relay = await startRelay(
      {
        STR_API_KEY: KEY,
        STR_API_BASE_URL: sandboxUrl,
        RELAY_BUDGET_USD_PER_DAY: "100000",
        RELAY_MAX_REQUEST_SECONDS: "1",
      },
      { store: await openTestStore(urls, ns) },
    );
    relays.push(relay);
    await relay.relay.app.listen({ host: "127.0.0.1", port: 0 });
    return { relay, url: `http://127.0.0.1:${(relay.relay.app.server.address() as { port: number }).port}` };
  };

  /** A client whose first request goes to `first` and every later one (the re-asks) to `then`. */
  const splitClient = (first: string, then: string) => {
    const sentTo: string[] = [];
    const client = new RelayClient({
      baseUrl: first,
      token: TEST_TOKEN,
      fetch: (input, init) => {
        const target = sentTo.length === 0 ? first : then;
        sentTo.push(target);
        return fetch(String(input).replace(first, target), init);
      },
    });
    return { client, sentTo };
  };

  const item = (n: number, extra: Record<string, unknown> = {}) => ({
    strategy: "buy" as const,
    params: { ...buyBody(n), fullAddress: `${n} Replica Rd, Austin TX` },
    ...extra,
  });

  const ledgerCents = async (r: TestRelay) =>
    (await r.relay.store.ledger.rows()).reduce((sum, row) => sum + row.cents, 0);
  const billedCents = () => sandbox.state.billing.reduce((sum, b) => sum + b.cents, 0);

  beforeEach(async () => {
    ns = testNamespace("pending_replicas");
    sandbox = buildSandbox({
      timeScale: 0,
      apiKeys: [KEY],
      faults: { aiFailureRate: 0, aiTimeoutRate: 0, extraLatencyMs: SLOW_MS },
    });
    await sandbox.app.listen({ host: "127.0.0.1", port: 0 });
    sandboxUrl = `http://127.0.0.1:${(sandbox.app.server.address() as { port: number }).port}`;
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.close()));
    await sandbox.app.close();
    await dropNamespace(urls, ns);
  });

  test("re-asked on B while A's calls are in flight: B waits for them and answers; each created once", async () => {
    const [a, b] = [await replica(), await replica()];
    const items = Array.from({ length: 12 }, (_, n) => item(n));
    const { client, sentTo } = splitClient(a.url, b.url);
    const answered = new Map<number, BatchLine>();
    await client.batch(items, { onLine: (line) => answered.set(line.index, line), maxComparables: 0 });

    expect(sentTo[0]).toBe(a.url);
    expect(sentTo.slice(1).length).toBeGreaterThan(0);
    expect(sentTo.slice(1).every((u) => u === b.url)).toBe(true);
    expect([...answered.values()].map((l) => l.status)).toEqual(Array(12).fill(200));
    expect(sandbox.state.duplicateCreates()).toBe(0);
    expect(sandbox.state.arrivals.length).toBe(12);
    // B sent nothing: its ledger rows are A's, and the shared ledger is the service's bill.
    expect((await b.relay.relay.store.ledger.rows()).every((row) => row.owner !== b.relay.relay.owner)).toBe(true);
    expect(await ledgerCents(a.relay)).toBe(billedCents());
  }, 60_000);

  test("re-asked on B after A's calls finished: B answers from the stored answers in one request, free", async () => {
    const [a, b] = [await replica(), await replica()];
    const items = Array.from({ length: 8 }, (_, n) => item(100 + n));
    const first = await a.relay.post("/v1/batch", { items, maxComparables: 0 });
    const lines = first.text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as BatchLine);
    expect(lines.map((l) => l.status)).toEqual(Array(8).fill(202));
    await waitFor(() => sandbox.state.billing.length === 8, 20_000, "A's calls to finish");

    const again = await b.relay.post("/v1/batch", { items, maxComparables: 0 });
    const answers = again.text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { status: number; body: { relay: { cached: boolean; costUSD: number } } });
    expect(answers.map((l) => l.status)).toEqual(Array(8).fill(200));
    expect(answers.every((l) => l.body.relay.cached && l.body.relay.costUSD === 0)).toBe(true);
    expect(sandbox.state.arrivals.length).toBe(8);
    // A keeps each answer before its ledger row settles (so a crash between the two never rebuys it):
    // B can answer from the stored answers a moment before A's last rows say billed.
    await waitFor(async () => (await ledgerCents(b.relay)) === billedCents(), 5_000, "A's ledger rows to settle");
  }, 60_000);

  test("a refresh left pending on A and asked again on B with its freshSince is bought once", async () => {
    const [a, b] = [await replica(), await replica()];
    const cached = item(200);
    await a.relay.post("/v1/batch", { items: [cached] }); // pending, then finished in the background
    await waitFor(() => sandbox.state.billing.length === 1, 20_000, "the first call");
    const before = await a.relay.post("/v1/batch", { items: [cached] });
    const oldId = (JSON.parse(before.text) as { body: { data: { _id: string } } }).body.data._id;

    const { client, sentTo } = splitClient(a.url, b.url);
    const answered: BatchLine[] = [];
    await client.batch([{ ...cached, refresh: true }], { onLine: (line) => answered.push(line) });

    expect(sentTo[0]).toBe(a.url);
    expect(sentTo.slice(1).every((u) => u === b.url)).toBe(true);
    expect(answered).toHaveLength(1);
    expect(answered[0]?.status).toBe(200);
    const body = answered[0]?.body as unknown as { data: { _id: string }; relay: { cached: boolean } };
    // The refresh's own answer (a new analysis), not the older cached one, and not a third call.
    expect(body.data._id).not.toBe(oldId);
    expect(sandbox.state.arrivals.length).toBe(2);
    expect(await ledgerCents(b.relay)).toBe(billedCents());
  }, 60_000);
});

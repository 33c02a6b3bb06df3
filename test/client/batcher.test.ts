import { BatchingClient, Cancelable, RefreshGate, RelayCallError, RelayClient } from "../../src/client";
import { BatchLine, BuyRequest, EnhanceRequest, canonicalRequest } from "../../src/contract";
import { TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

/** Resolves in a later task: the calls made so far have been read (the batcher reads them in the next one). */
const laterTask = () => new Promise((resolve) => setImmediate(resolve));

describe("calls made together go as one batch, and a recalculation sends nothing", () => {
  let t: TestRelay;
  let requests: string[];
  /** Items in each batch sent, and how many calls had been read when it went. */
  let sent: { items: number; readBefore: number; priority?: string }[];
  let reads: number;
  let batcher: BatchingClient;
  let client: RelayClient;
  beforeEach(async () => {
    t = await startRelay({}, { sandbox: { timeScale: 0.002 } });
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    requests = [];
    sent = [];
    reads = 0;
    const counting: typeof fetch = (input, init) => {
      requests.push(String(input));
      if (typeof init?.body === "string") {
        const body = JSON.parse(init.body) as { items: unknown[]; priority?: string };
        sent.push({ items: body.items.length, readBefore: reads, priority: body.priority });
      }
      return fetch(input, init);
    };
    client = new RelayClient({
      baseUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
      fetch: counting,
    });
    batcher = new BatchingClient({ client });
  });
  afterEach(() => t.close());

  const body = (n: number) => BuyRequest.parse(buyBody(n));

  test("200 calls in one tick → one POST /v1/batch, every call answered with its own analysis", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => batcher.request("buy", body(n))));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatch(/\/v1\/batch$/);
    expect(sent.map((s) => s.items)).toEqual([200]);
    expect(answers.map((a) => a.data?.fullAddress)).toEqual(
      Array.from({ length: 200 }, (_, n) => `${12 + n} Main St, Austin TX`),
    );
    expect(t.sandboxStats()).toMatchObject({ reports: 200, duplicates: 0 });
  });

  test("its batches are formula requests, whatever their size: cells wait on them, ahead of the token's screening", async () => {
    await Promise.all(Array.from({ length: 120 }, (_, n) => batcher.request("buy", body(n))));
    expect(sent.map((s) => s.priority)).toEqual(["formula"]);
  });

  test("calls are read in growing slices, each sent before the next is read", async () => {
    // A request given as a function is read when its slice comes: count the reads.
    const read = (n: number) => () => {
      reads++;
      return body(n);
    };
    // Slices of 10, 40, 160… here (250, 1,000, 4,000… by default), so the sandbox's pacing keeps the test short.
    const b = new BatchingClient({ client, burstItems: 10 });
    const calls = Array.from({ length: 130 }, (_, n) => b.request("buy", read(n)));
    // Nothing is read in the tick the calls are made.
    expect(reads).toBe(0);
    const answers = await Promise.all(calls);
    expect(sent.map((s) => s.items)).toEqual([10, 40, 80]);
    // The first batch left after only its own 10 calls were read, the second after 50.
    expect(sent.map((s) => s.readBefore)).toEqual([10, 50, 130]);
    expect(new Set(answers.map((a) => a.data?._id)).size).toBe(130);
  });

  test("a call whose request cannot be read fails alone, and nothing is sent for it", async () => {
    const bad = batcher.request("buy", () => {
      throw new RangeError("bedrooms must be a whole number");
    });
    const good = batcher.request("buy", () => body(1));
    await expect(bad).rejects.toThrow("bedrooms must be a whole number");
    await good;
    expect(sent.map((s) => s.items)).toEqual([1]);
  });

  test("a call cancelled before it is read is never read", async () => {
    const invocation: Cancelable = {};
    const read = (n: number) => () => {
      reads++;
      return body(n);
    };
    const cancelledCall = batcher.request("buy", read(1), { cancelable: invocation });
    const kept = batcher.request("buy", read(2));
    invocation.onCanceled?.();
    await expect(cancelledCall).rejects.toMatchObject({ code: "STR_CANCELLED" });
    await kept;
    // The kept call was read and sent; the cancelled one was neither.
    expect(reads).toBe(1);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("the same 200 calls again are answered from the session: no request at all", async () => {
    const first = await Promise.all(Array.from({ length: 200 }, (_, n) => batcher.request("buy", body(n))));
    const before = requests.length;
    const again = await Promise.all(Array.from({ length: 200 }, (_, n) => batcher.request("buy", body(n))));
    expect(requests).toHaveLength(before);
    // The session says it answered them; what the relay said of the first answers is left as it was.
    expect(again.every((a) => a.session === "remembered")).toBe(true);
    expect(again.map((a) => a.relay)).toEqual(first.map((a) => a.relay));
    expect(first.some((a) => a.session !== undefined)).toBe(false);
  });

  test("small deliveries within the window go together: calls in separate ticks share one batch", async () => {
    const b = new BatchingClient({ client, windowMs: 200 });
    const first = Array.from({ length: 10 }, (_, n) => b.request("buy", body(n)));
    await laterTask();
    expect(requests).toHaveLength(0);
    const second = Array.from({ length: 10 }, (_, n) => b.request("buy", body(10 + n)));
    await Promise.all([...first, ...second]);
    expect(requests).toHaveLength(1);
  });

  test("a burst goes once it is read, without waiting for the window", async () => {
    const b = new BatchingClient({ client, windowMs: 60_000, burstItems: 50 });
    const small = b.request("buy", body(0));
    await laterTask();
    // One call waits for the window (a minute here)...
    expect(requests).toHaveLength(0);
    // ...until a later tick brings the gathered calls to a burst: all of them go once it is read.
    const burst = Array.from({ length: 49 }, (_, n) => b.request("buy", body(1 + n)));
    expect(requests).toHaveLength(0);
    await Promise.all([small, ...burst]);
    expect(requests).toHaveLength(1);
    expect(t.sandboxStats().arrivals).toBe(50);
  });

  test("identical calls share one item", async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => batcher.request("buy", body(1))));
    expect(new Set(answers.map((a) => a.data?._id)).size).toBe(1);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("a refresh bypasses the session and the relay's cache, and updates the session", async () => {
    const first = await batcher.request("buy", body(1));
    const refreshed = await batcher.request("buy", body(1), { refresh: true });
    expect(refreshed.data?._id).not.toBe(first.data?._id);
    expect((await batcher.request("buy", body(1))).data?._id).toBe(refreshed.data?._id);
  });

  test("a gate makes a call a refresh by its canonical request; the same request asked meanwhile joins it, once", async () => {
    const [a, b] = [await batcher.request("buy", body(1)), await batcher.request("buy", body(2))];
    const before = t.sandboxStats().reports;
    const gate = new RefreshGate();
    gate.open([canonicalRequest("buy", body(1))]);
    // Asked with another spelling of the same place: the same canonical request.
    const spelled = { ...body(1), fullAddress: String(body(1).fullAddress).toUpperCase() };
    const [refreshed, repeat, other] = await Promise.all([
      batcher.request("buy", () => spelled, { gate }),
      batcher.request("buy", body(1), { gate }),
      batcher.request("buy", body(2), { gate }),
    ]);
    expect(t.sandboxStats().reports - before).toBe(1);
    expect(refreshed.data?._id).not.toBe(a.data?._id);
    expect(repeat.data?._id).toBe(refreshed.data?._id);
    expect(other.data?._id).toBe(b.data?._id);
  });

  test("a bad item fails alone with the relay's error", async () => {
    const [good, bad] = await Promise.allSettled([
      batcher.request("buy", body(1)),
      batcher.request("buy", { ...body(2), bedrooms: 0.5 } as never),
    ]);
    expect(good.status).toBe("fulfilled");
    expect(bad.status).toBe("rejected");
    expect((bad as PromiseRejectedResult).reason).toMatchObject({ code: "STR_VALIDATION", status: 400 });
  });

  test("a call cancelled before its batch goes is dropped from the batch", async () => {
    // What Excel's invocation is to the batcher: a hook it sets, called when the cell is deleted.
    const invocation: Cancelable = {};
    const kept = batcher.request("buy", body(1));
    const dropped = batcher.request("buy", body(2), { cancelable: invocation });
    invocation.onCanceled?.();
    await expect(dropped).rejects.toMatchObject({ code: "STR_CANCELLED" });
    await kept;
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("an answered call is unhooked: a late cancel changes nothing", async () => {
    const invocation: Cancelable = {};
    const answer = await batcher.request("buy", body(1), { cancelable: invocation });
    expect(invocation.onCanceled).toBeUndefined();
    expect(answer.relay.cached).toBe(false);
  });

  test("when every call of a sent batch is cancelled, the batch is abandoned and its unsent items never go", async () => {
    const slow = await startRelay({ RELAY_UPSTREAM_RPS: "5" });
    await slow.relay.app.listen({ host: "127.0.0.1", port: 0 });
    try {
      client = new RelayClient({
        baseUrl: `http://127.0.0.1:${(slow.relay.app.server.address() as { port: number }).port}`,
        token: TEST_TOKEN,
      });
      const b = new BatchingClient({ client });
      const invocations: Cancelable[] = Array.from({ length: 30 }, () => ({}));
      const calls = invocations.map((invocation, n) =>
        b.request("buy", body(n), { cancelable: invocation }).then(
          () => "answered",
          (e: RelayCallError) => e.code,
        ),
      );
      // Cancelled once the batch has gone and the relay has started sending its items.
      while (slow.sandboxStats().arrivals === 0) await new Promise((r) => setTimeout(r, 5));
      for (const invocation of invocations) invocation.onCanceled?.();
      const outcomes = await Promise.all(calls);
      const sentAtCancel = slow.sandboxStats().arrivals;
      // The few answered before the cancel stay answered; every other call is cancelled.
      expect(outcomes.filter((o) => o === "answered").length).toBeLessThanOrEqual(sentAtCancel);
      expect(outcomes.filter((o) => o === "STR_CANCELLED").length).toBeGreaterThanOrEqual(30 - sentAtCancel);
      // Every call the batch started has ended, sent or dropped: nothing more can go out. Had the
      // relay not dropped them, all 30 would have gone first.
      await slow.relay.gateway.drain();
      expect(slow.sandboxStats().arrivals).toBeLessThanOrEqual(sentAtCancel + 1);
    } finally {
      await slow.close();
    }
  });
});

describe("the version of an analysis the session keeps (what STR.WHATIF starts from)", () => {
  let t: TestRelay;
  let client: RelayClient;
  beforeAll(async () => {
    t = await startRelay();
    await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
    client = new RelayClient({
      baseUrl: `http://127.0.0.1:${(t.relay.app.server.address() as { port: number }).port}`,
      token: TEST_TOKEN,
    });
  });
  afterAll(() => t.close());

  /** The relay's batch answer, its lines handed on once all have come: in item order, or the reverse. */
  const delivering = (reversed: boolean): Pick<RelayClient, "batch"> => ({
    async batch(items, options) {
      const lines: BatchLine[] = [];
      await client.batch(items, { ...options, onLine: (line) => lines.push(line) });
      lines.sort((a, b) => (reversed ? b.index - a.index : a.index - b.index));
      for (const line of lines) options.onLine(line);
    },
  });

  test.each([
    ["the create's line first", false],
    ["the enhance's line first", true],
  ])(
    "a create and its enhance answered in one batch, %s: the session keeps the enhanced version",
    async (_order, reversed) => {
      const buy = BuyRequest.parse(buyBody(reversed ? 41 : 40));
      // An earlier session made both, so both are in the relay's cache and come back in one batch.
      const earlier = new BatchingClient({ client });
      const id = String((await earlier.request("buy", buy)).data?._id);
      const enhance = EnhanceRequest.parse({ analysisId: id, addAIExpenseEstimates: true });
      await earlier.request("enhance", enhance);

      const b = new BatchingClient({ client: delivering(reversed) });
      const [created, enhanced] = await Promise.all([b.request("buy", buy), b.request("enhance", enhance)]);
      expect(b.batchesSent).toBe(1);
      expect([created.data?._id, enhanced.data?._id]).toEqual([id, id]);
      expect(created.data?.aiExpenseEstimatesApplied).toBe(false);
      expect(b.analysis(id)?.relay.operation).toBe("enhance");
      expect(b.analysis(id)?.data?.aiExpenseEstimatesApplied).toBe(true);
      // The create's answer, remembered again later in the session, does not take the enhanced one's place.
      expect(b.rememberAnalysis(created).relay.operation).toBe("enhance");
      expect(b.analysis(id)?.data).toEqual(enhanced.data);
    },
  );
});

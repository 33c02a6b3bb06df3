import http from "node:http";
import { BatchLine } from "../../src/contract";
import { ITEMS_PER_TURN, UNREAD_LIMIT_BYTES, streamBatch } from "../../src/relay/batch/stream-batch";
import { ParsedItem } from "../../src/relay/batch/batch-request";
import { Gateway } from "../../src/relay/gateway";
import { BUY_PATH, TEST_TOKEN, TestRelay, buyBody, startRelay } from "../support/relay";

const lines = (text: string): BatchLine[] =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchLine);

describe("POST /v1/batch", () => {
  let t: TestRelay;
  beforeEach(async () => {
    t = await startRelay();
  });
  afterEach(() => t.close());

  test("answers one NDJSON line per item, each with its index, status and body", async () => {
    const items = [0, 1, 2].map((n) => ({ strategy: "buy", params: buyBody(n) }));
    const r = await t.post("/v1/batch", { items });
    expect(r.status).toBe(200);
    expect(String(r.headers["content-type"])).toMatch(/application\/x-ndjson/);
    const out = lines(r.text);
    expect(out.map((l) => l.index).sort()).toEqual([0, 1, 2]);
    expect(out.every((l) => l.status === 200 && "data" in l.body)).toBe(true);
    expect(t.sandboxStats().arrivals).toBe(3);
  });

  test("a bad item fails alone with its fields named inside the batch, and is never sent", async () => {
    const items = [
      { strategy: "buy", params: buyBody(0) },
      { strategy: "buy", params: { ...buyBody(1), interestRatePercentage: 18 } },
      { strategy: "villa", params: {} },
      {
        strategy: "arb",
        params: { fullAddress: "Nashville, TN", monthlyRentUSD: 2100, bedrooms: 2, bathrooms: 1, accomodates: 4 },
      },
    ];
    const out = lines((await t.post("/v1/batch", { items })).text);
    const byIndex = new Map(out.map((l) => [l.index, l]));
    expect(byIndex.get(0)?.status).toBe(200);
    expect(byIndex.get(3)?.status).toBe(200);
    expect(byIndex.get(1)?.status).toBe(400);
    expect(byIndex.get(1)?.body).toMatchObject({
      error: { code: "STR_VALIDATION", fields: [{ path: "items[1].params.interestRatePercentage" }] },
    });
    expect(JSON.stringify(byIndex.get(1)?.body)).toMatch(/from 0 to 15/);
    expect(byIndex.get(2)?.body).toMatchObject({
      error: { code: "STR_VALIDATION", fields: [{ path: "items[2].strategy" }] },
    });
    expect(t.sandboxStats().arrivals).toBe(2);
  });

  test("maxComparables 0 leaves comparables out of the lines, and the stored analysis keeps them", async () => {
    const out = lines(
      (await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(0) }], maxComparables: 0 })).text,
    );
    const body = out[0]?.body as { data: Record<string, unknown> };
    expect(body.data.comparables).toEqual([]);
    expect(body.data.revenue).toBeDefined();
    const stored = await t.get(`/v1/analyses/${String(body.data._id)}`);
    expect((stored.json.data.comparables as unknown[]).length).toBeGreaterThan(3);
  });

  test("maxComparables 3 keeps the first three, as the service listed them", async () => {
    const out = lines(
      (await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(0) }], maxComparables: 3 })).text,
    );
    const body = out[0]?.body as unknown as { data: { _id: string; comparables: unknown[] } };
    const stored = await t.get(`/v1/analyses/${body.data._id}`);
    expect(body.data.comparables).toEqual((stored.json.data.comparables as unknown[]).slice(0, 3));
  });

  test("maxComparables cuts cached answers as it cuts fresh ones, and the cache keeps every comparable", async () => {
    const ask = async (extra: object) =>
      lines((await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(4) }], ...extra })).text)[0]
        ?.body as unknown as { data: Record<string, unknown> & { comparables: unknown[] }; relay: { cached: boolean } };
    const fresh = await ask({ maxComparables: 2 });
    const all = (await t.get(`/v1/analyses/${String(fresh.data._id)}`)).json.data.comparables as unknown[];
    expect(fresh.relay.cached).toBe(false);
    expect(fresh.data.comparables).toEqual(all.slice(0, 2));
    const none = await ask({ maxComparables: 0 });
    expect(none.relay.cached).toBe(true);
    expect(none.data).toEqual({ ...fresh.data, comparables: [] });
    expect((await ask({ maxComparables: 3 })).data.comparables).toEqual(all.slice(0, 3));
    expect((await ask({})).data.comparables).toEqual(all);
    // The single route has no maxComparables: every comparable, from the same cache entry.
    const single = await t.post(BUY_PATH, buyBody(4));
    expect(single.json.relay.cached).toBe(true);
    expect(single.json.data.comparables).toEqual(all);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("maxComparables outside 0 to 50 is a 400 naming it", async () => {
    const r = await t.post("/v1/batch", { items: [{ strategy: "buy", params: buyBody(0) }], maxComparables: 51 });
    expect(r.status).toBe(400);
    expect(r.json.error.fields).toEqual([expect.objectContaining({ path: "maxComparables" })]);
  });

  test("identical items in one batch share one upstream call", async () => {
    const items = Array.from({ length: 5 }, () => ({ strategy: "buy", params: buyBody(0) }));
    const out = lines((await t.post("/v1/batch", { items })).text);
    expect(new Set(out.map((l) => JSON.stringify((l.body as { data?: { _id?: unknown } }).data?._id))).size).toBe(1);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("a dry run counts cached, to-create, duplicate and invalid items, estimates the most it can cost, and spends nothing", async () => {
    await t.post(BUY_PATH, buyBody(0));
    const items = [
      { strategy: "buy", params: buyBody(0) }, // cached
      { strategy: "buy", params: buyBody(1) }, // create: 0.20
      { strategy: "buy", params: { ...buyBody(2), addAIComps: true } }, // create: up to 0.30
      { strategy: "buy", params: buyBody(1) }, // duplicate of item 1
      { strategy: "buy", params: { bedrooms: 2 } }, // invalid
      { strategy: "buy", params: buyBody(0), refresh: true }, // refresh: create 0.20
    ];
    const r = await t.post("/v1/batch", { items, dryRun: true });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ items: 6, cached: 1, toCreate: 3, invalid: 1, unknownOutcome: 0, sandbox: true });
    expect(r.json.verdicts).toEqual(["cached", "create", "create", "duplicate", "invalid", "create"]);
    expect(r.json.estimatedCostUSD).toBeCloseTo(0.7);
    expect(t.sandboxStats().arrivals).toBe(1);
  });

  test("a second run of the same batch is all cached: its dry run estimates 0 USD", async () => {
    const items = [0, 1, 2].map((n) => ({ strategy: "buy", params: buyBody(n) }));
    await t.post("/v1/batch", { items });
    const dry = await t.post("/v1/batch", { items, dryRun: true });
    expect(dry.json).toMatchObject({ cached: 3, toCreate: 0, estimatedCostUSD: 0 });
  });

  test("more than 10,000 items is refused with 413", async () => {
    const items = Array.from({ length: 10_001 }, () => ({ strategy: "buy", params: {} }));
    const r = await t.post("/v1/batch", { items });
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe("STR_BATCH_TOO_LARGE");
    expect(t.sandboxStats().arrivals).toBe(0);
  });

  test("a batch without items, or not an object, is a 400 naming the rule", async () => {
    expect((await t.post("/v1/batch", { items: [] })).json.error).toMatchObject({
      code: "STR_BAD_REQUEST",
      fields: [{ path: "items" }],
    });
    expect((await t.post("/v1/batch", { things: [] })).status).toBe(400);
  });
});

describe("a caller that disconnects stops its queued items", () => {
  test("items not yet sent when the client goes away are never sent", async () => {
    // 5 sends a second: a 60-item batch would take 12 s.
    const t = await startRelay({ RELAY_UPSTREAM_RPS: "5" });
    try {
      await t.relay.app.listen({ host: "127.0.0.1", port: 0 });
      const port = (t.relay.app.server.address() as { port: number }).port;
      const items = Array.from({ length: 60 }, (_, n) => ({ strategy: "buy", params: buyBody(n) }));
      const received: string[] = [];
      await new Promise<void>((resolve) => {
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            path: "/v1/batch",
            method: "POST",
            headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
          },
          (res) => {
            res.on("data", (chunk: Buffer) => {
              received.push(chunk.toString());
              if (received.join("").split("\n").filter(Boolean).length >= 3) {
                req.destroy();
                resolve();
              }
            });
          },
        );
        req.end(JSON.stringify({ items }));
      });
      const sentAtDisconnect = t.sandboxStats().arrivals;
      // Every call the batch started has ended, sent or dropped: nothing more can go out.
      await t.relay.gateway.drain();
      // At most the one or two already granted a slot go out after the disconnect.
      expect(t.sandboxStats().arrivals).toBeLessThanOrEqual(sentAtDisconnect + 2);
      expect(t.sandboxStats().arrivals).toBeLessThan(10);
      expect(await t.relay.metrics.render()).toMatch(/str_relay_upstream_queue_depth 0/);
    } finally {
      await t.close();
    }
  });
});

describe("a batch streams as it goes, not all at once", () => {
  // A gateway that answers at once, as the cache does: what a batch of cached items is to the relay.
  const instant = (bytes = 200) => {
    const started: number[] = [];
    const gateway = {
      analyze: (_op: string, params: { n: number }) => {
        started.push(params.n);
        return Promise.resolve({
          success: true,
          data: { _id: `a${params.n}`, pad: "x".repeat(bytes) },
          relay: { cached: true, costUSD: 0, sandbox: true, fetchedAt: "2026-01-01T00:00:00.000Z" },
        });
      },
    } as unknown as Gateway;
    return { gateway, started };
  };
  const items = (count: number): ParsedItem[] =>
    Array.from({ length: count }, (_, n) => ({ index: n, ok: true, op: "buy", params: { n }, refresh: false }));
  const turn = () => new Promise((r) => setImmediate(r));
  const readAll = async (out: NodeJS.ReadableStream) => {
    let text = "";
    for await (const chunk of out) text += String(chunk);
    return lines(text);
  };

  test("items start a slice per turn of the event loop, so lines go out and other callers are served between slices", async () => {
    const { gateway, started } = instant();
    const out = streamBatch(gateway, items(1000), new AbortController().signal);
    await turn();
    // Started whole, every item would be answered before anything else ran.
    expect(started.length).toBeLessThan(1000);
    expect(started.length).toBeLessThanOrEqual(2 * ITEMS_PER_TURN);
    const answered = await readAll(out);
    expect(answered).toHaveLength(1000);
    expect(new Set(answered.map((l) => l.index)).size).toBe(1000);
  });

  test("a caller that does not read holds about UNREAD_LIMIT_BYTES of lines: no more items start until it reads", async () => {
    const { gateway, started } = instant(10_000);
    const out = streamBatch(gateway, items(1000), new AbortController().signal);
    for (let i = 0; i < 30; i++) await turn();
    // 10 kB lines: about 100 fill the limit, so a slice or two start and then nothing until it is read.
    expect(started.length).toBeLessThanOrEqual(Math.ceil(UNREAD_LIMIT_BYTES / 10_000) + 2 * ITEMS_PER_TURN);
    expect(started.length).toBeLessThan(1000);
    expect(await readAll(out)).toHaveLength(1000);
    expect(started).toHaveLength(1000);
  });

  test("when the caller goes, items not started yet are never started", async () => {
    const { gateway, started } = instant();
    const caller = new AbortController();
    const out = streamBatch(gateway, items(1000), caller.signal);
    caller.abort();
    const answered = await readAll(out);
    expect(started).toHaveLength(ITEMS_PER_TURN);
    expect(answered.length).toBeLessThanOrEqual(ITEMS_PER_TURN);
  });
});

describe("a batch's items are checked a few at a time", () => {
  test("at most 25 items' checks run in one turn of the event loop: on SQLite they hold the loop without I/O, and a long hold bunches the pacer's sends", async () => {
    const t = await startRelay({ RELAY_UPSTREAM_RPS: "100" });
    try {
      // Each turn of the event loop moves `turn` on; each item's lock is taken during its checks.
      let turn = 0;
      let ticking = true;
      const tick = () => {
        turn++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const perTurn = new Map<number, number>();
      const store = t.relay.store;
      const acquireLock = store.locks.acquire.bind(store.locks);
      // Only the first take of each lock is an item's check: it is taken again right before sending (the fence).
      const taken = new Set<string>();
      store.locks.acquire = (...args) => {
        if (!taken.has(args[0])) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
        taken.add(args[0]);
        return acquireLock(...args);
      };
      const items = Array.from({ length: 100 }, (_, n) => ({ strategy: "buy", params: buyBody(n) }));
      const r = await t.post("/v1/batch", { items });
      ticking = false;
      expect(r.status).toBe(200);
      expect([...perTurn.values()].reduce((a, b) => a + b, 0)).toBe(100);
      expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(25);
    } finally {
      await t.close();
    }
  });
});
